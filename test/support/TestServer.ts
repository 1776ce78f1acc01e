import { HttpServer } from "@effect/platform"
import { NodeContext, NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { createServer } from "node:http"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { HttpLive, ServicesLive } from "../../src/Http/Server.ts"
import type { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { pipelineLayer, PipelineLive } from "../../src/Jobs/Pipeline.ts"
import type { Notifier } from "../../src/Notifier/Notifier.ts"
import type { Triage } from "../../src/Triage/Triage.ts"
import { type DatabaseKind, freshDatabase, testSettings } from "./Databases.ts"

export const adminToken = "test-admin-token"

export interface TestServerShape {
  readonly baseUrl: string
  readonly kind: DatabaseKind
  /** `fetch` against the service, JSON in and out. */
  readonly request: (
    method: string,
    path: string,
    options?: {
      readonly key?: string | undefined
      readonly body?: unknown
      readonly rawBody?: string
      readonly headers?: Record<string, string>
    }
  ) => Promise<{ readonly status: number; readonly headers: Headers; readonly body: any; readonly text: string }>
}

/** The whole service, as `npm start` builds it, on a free loopback port. */
export class TestServer extends Context.Tag("test/TestServer")<TestServer, TestServerShape>() {}

export interface ServiceOptions {
  /**
   * The background pipeline, or none: suites about the API's own writes leave the outbox
   * untouched so they can read it; pipeline suites pass the edge services (mocks or real).
   */
  readonly pipeline?: Layer.Layer<Triage | ErrorTracker | Notifier> | "live" | undefined
}

export const serviceLayer = (
  kind: DatabaseKind,
  overrides: Record<string, string> = {},
  env?: Record<string, string>,
  options: ServiceOptions = {}
) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const database = env ?? (yield* freshDatabase(kind))
    const config = yield* testSettings({ ADMIN_TOKEN: adminToken, ...database, ...overrides })
    const pipeline = options.pipeline === undefined
      ? Layer.empty
      : options.pipeline === "live"
      ? PipelineLive
      : pipelineLayer(options.pipeline)
    return Layer.merge(HttpLive, pipeline).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(ServicesLive),
      Layer.provideMerge(Database.layer),
      Layer.provideMerge(Layer.succeed(AppConfig, config)),
      Layer.provide(NodeContext.layer)
    )
  }))

export const testServer = (
  kind: DatabaseKind,
  overrides: Record<string, string> = {},
  env?: Record<string, string>,
  options: ServiceOptions = {}
) =>
  Layer.effect(
    TestServer,
    Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      const address = server.address
      if (address._tag !== "TcpAddress") return yield* Effect.die("expected a TCP address")
      const baseUrl = `http://127.0.0.1:${address.port}`
      const request: TestServerShape["request"] = async (method, path, options = {}) => {
        const headers: Record<string, string> = { ...options.headers }
        if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
        let body: string | undefined
        if (options.rawBody !== undefined) body = options.rawBody
        else if (options.body !== undefined) {
          body = JSON.stringify(options.body)
          headers["content-type"] ??= "application/json"
        }
        const response = await fetch(`${baseUrl}${path}`, { method, headers, body })
        const text = await response.text()
        let parsed: unknown = undefined
        try {
          parsed = text === "" ? undefined : JSON.parse(text)
        } catch {
          parsed = undefined
        }
        return { status: response.status, headers: response.headers, body: parsed, text }
      }
      return { baseUrl, kind, request }
    })
  ).pipe(Layer.provideMerge(serviceLayer(kind, overrides, env, options)))

/** Provisions a project through the admin API, as an operator would. */
export const createProject = async (server: TestServerShape, name = "Test project") => {
  const created = await server.request("POST", "/v1/admin/projects", { key: adminToken, body: { name } })
  if (created.status !== 201) throw new Error(`project not created: ${created.status} ${created.text}`)
  const widget = await server.request("POST", `/v1/admin/projects/${created.body.project_id}/api-keys`, {
    key: adminToken,
    body: { scope: "widget", name: "widget" }
  })
  return {
    projectId: created.body.project_id as string,
    key: created.body.api_key as string,
    keyId: created.body.key_id as string,
    widgetKey: widget.body.api_key as string
  }
}

/**
 * The same service for suites written with plain promises (the client's, which also runs under
 * Deno): started on a free loopback port, stopped by `close`.
 */
export const startTestServer = async (
  kind: DatabaseKind,
  overrides: Record<string, string> = {},
  options: ServiceOptions = {}
) => {
  const runtime = ManagedRuntime.make(testServer(kind, overrides, undefined, options))
  const server = await runtime.runPromise(TestServer)
  /** Runs an effect with the service's own services (its SqlClient, say). */
  const run = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof testServer>>>) =>
    runtime.runPromise(effect)
  return { ...server, run, close: () => runtime.dispose() }
}
