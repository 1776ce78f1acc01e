import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { FetchHttpClient, HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { createServer, requestTimeouts } from "../../src/Http/NodeServer.ts"
import { Api } from "../../src/Api.ts"
import { AppConfig } from "../../src/Config.ts"
import * as App from "../../src/App.ts"
import { AdminAuth, MailAuth, ProjectAuth } from "../../src/Auth/Api.ts"
import type { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import type { Notifier } from "../../src/Notifier/Notifier.ts"
import type { Triage } from "../../src/Triage/Triage.ts"
import * as Tracing from "../../src/Observability/Tracing.ts"
import { type DatabaseKind, freshDatabase, testSettings } from "./Databases.ts"

export const adminToken = "test-admin-token"

/** A typed client of the service at `baseUrl`, sending `token` (a project key or the admin token) if given. */
export const apiClient = (baseUrl: string, token?: string) => {
  const bearer: HttpApiMiddleware.HttpApiMiddlewareClient<unknown, never, never> = ({ next, request }) =>
    next(token === undefined ? request : HttpClientRequest.bearerToken(request, token))
  return HttpApiClient.make(Api, { baseUrl }).pipe(
    Effect.provide(Layer.mergeAll(
      HttpApiMiddleware.layerClient(ProjectAuth, bearer),
      HttpApiMiddleware.layerClient(AdminAuth, bearer),
      HttpApiMiddleware.layerClient(MailAuth, bearer),
      FetchHttpClient.layer
    ))
  )
}

/** The contract's own typed client: requests and answers checked against the HttpApi schemas. */
export type ApiClient = Effect.Success<ReturnType<typeof apiClient>>

export interface RawResponse {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

export interface TestServerShape {
  readonly baseUrl: string
  readonly kind: DatabaseKind
  /** The typed client, authenticated with `token` (a project key or the admin token) when given. */
  readonly api: (token?: string) => Effect.Effect<ApiClient>
  /**
   * `fetch` against the service, JSON in and out: for what the typed client cannot send (a body
   * that is not JSON, a wrong content type, a key in a malformed header) or when the test is
   * about the wire itself (headers, the exact bytes of an envelope).
   */
  readonly request: (
    method: string,
    path: string,
    options?: {
      readonly key?: string | undefined
      readonly body?: unknown
      readonly rawBody?: string
      readonly headers?: Record<string, string>
    }
  ) => Promise<RawResponse>
}

/** The whole service, as `npm start` builds it, on a free loopback port. */
export class TestServer extends Context.Service<TestServer, TestServerShape>()("test/TestServer") {}

export interface ServiceOptions {
  /**
   * The background pipeline, or none: suites about the API's own writes leave the outbox
   * untouched so they can read it; pipeline suites pass the edge services (mocks or real).
   */
  readonly pipeline?: Layer.Layer<Triage | ErrorTracker | Notifier> | "live" | undefined
  /**
   * What runs once the port is bound and before the service is started, as the demo seeding does
   * in `npm start`: a test holds it to look at a service that is still starting, and its
   * finalizer runs once shutdown has begun but before the server stops accepting.
   */
  readonly startup?: Layer.Layer<never> | undefined
  /** A fixed loopback port, for a test that calls the service before its layer is built; else a free one. */
  readonly port?: number | undefined
}

export const serviceLayer = (
  kind: DatabaseKind,
  overrides: Record<string, string> = {},
  env?: Record<string, string>,
  options: ServiceOptions = {}
) =>
  Layer.unwrap(Effect.gen(function*() {
    const database = env ?? (yield* freshDatabase(kind))
    const config = yield* testSettings({ ADMIN_TOKEN: adminToken, ...database, ...overrides })
    const pipeline = options.pipeline === undefined
      ? Layer.empty
      : options.pipeline === "live"
      ? App.PipelineLive
      : App.pipeline(options.pipeline)
    const http = NodeHttpServer.layer(() => createServer(requestTimeouts(config.requestTimeout)), {
      port: options.port ?? 0,
      host: "127.0.0.1"
    })
    return Layer.mergeAll(App.httpLayer(http, options.startup ?? Layer.empty), pipeline, App.MailListenerLive).pipe(
      Layer.provideMerge(App.ServicesLive),
      Layer.provideMerge(App.DatabaseLive),
      // as in main: traces when OTEL_EXPORTER_OTLP_ENDPOINT is set, else no span at all
      Layer.provide(Tracing.layer(config)),
      Layer.provideMerge(Layer.succeed(AppConfig, config)),
      Layer.provideMerge(NodeHttpServer.layerHttpServices)
    )
  }))

const rawRequest = (baseUrl: string): TestServerShape["request"] => async (method, path, options = {}) => {
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

/** The running service's own HttpServer, as a test sees it. */
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
      if (address._tag === "UnixPathAddress") return yield* Effect.die("expected a TCP address")
      const baseUrl = `http://127.0.0.1:${address.port}`
      return { baseUrl, kind, request: rawRequest(baseUrl), api: (token?: string) => apiClient(baseUrl, token) }
    })
  ).pipe(Layer.provideMerge(serviceLayer(kind, overrides, env, options)))

/** Provisions a project and a widget key through the admin API, as an operator would. */
export const createProject = (server: TestServerShape, name = "Test project") =>
  Effect.gen(function*() {
    const admin = yield* server.api(adminToken)
    const created = yield* admin.admin.createProject({ payload: { name } })
    const widget = yield* admin.admin.createKey({
      params: { pid: created.project_id },
      payload: { scope: "widget", name: "widget" }
    })
    return {
      projectId: created.project_id,
      key: created.api_key,
      keyId: created.key_id,
      widgetKey: widget.api_key
    }
  }).pipe(Effect.orDie)

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
  const server = await runtime.runPromise(Effect.service(TestServer))
  /** Runs an effect with the service's own services (its SqlClient, say). */
  const run = <A, E>(effect: Effect.Effect<A, E, Layer.Success<ReturnType<typeof testServer>>>) =>
    runtime.runPromise(effect)
  return {
    ...server,
    run,
    createProject: (name?: string) => runtime.runPromise(createProject(server, name)),
    close: () => runtime.dispose()
  }
}
