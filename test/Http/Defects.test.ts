import { layer } from "@effect/vitest"
import { NodeContext, NodeHttpServer } from "@effect/platform-node"
import { HttpServer } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import { createServer } from "node:http"
import { describe, expect } from "vitest"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { HttpLive, ServicesLive } from "../../src/Http/Server.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { freshDatabase } from "../support/Databases.ts"
import { testSettings } from "../support/Settings.ts"
import { adminToken } from "../support/TestServer.ts"

class BaseUrl extends Context.Tag("test/BaseUrl")<BaseUrl, string>() {}

/** The real server, with a Tickets service whose every call dies the way a broken query would. */
const brokenTickets = Layer.unwrapScoped(Effect.gen(function*() {
  const env = yield* freshDatabase("pglite")
  const config = yield* testSettings({ ...env, ADMIN_TOKEN: adminToken })
  const defect = () => Effect.die(new Error("relation \"secret_internal_table\" does not exist"))
  const tickets = Tickets.make({
    create: defect,
    get: defect,
    addMessage: defect,
    adminGet: defect,
    adminUpdate: defect,
    addAgentMessage: defect
  })
  const server = HttpLive.pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provide(Layer.succeed(Tickets, tickets)),
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(Database.layer),
    Layer.provideMerge(Layer.succeed(AppConfig, config)),
    Layer.provide(NodeContext.layer)
  )
  return Layer.effect(
    BaseUrl,
    Effect.map(HttpServer.HttpServer, (s) => s.address._tag === "TcpAddress" ? `http://127.0.0.1:${s.address.port}` : "")
  ).pipe(Layer.provideMerge(server))
}))

describe("a defect", () => {
  layer(brokenTickets, { excludeTestServices: true })((it) => {
    it.effect("leaves as 500 INTERNAL_ERROR with the request id, and no internals", () =>
      Effect.gen(function*() {
        const baseUrl = yield* BaseUrl
        const project = yield* Effect.promise(() =>
          fetch(`${baseUrl}/v1/admin/projects`, {
            method: "POST",
            headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
            body: JSON.stringify({ name: "broken" })
          }).then((r) => r.json()))
        const response = yield* Effect.promise(() =>
          fetch(`${baseUrl}/v1/tickets`, {
            method: "POST",
            headers: { authorization: `Bearer ${project.api_key}`, "content-type": "application/json", "x-request-id": "req-500" },
            body: JSON.stringify({ subject: "x", body: "y" })
          }))
        const text = yield* Effect.promise(() => response.text())
        expect(response.status).toBe(500)
        expect(JSON.parse(text)).toEqual({
          error: { code: "INTERNAL_ERROR", message: "something went wrong on our side; quote request id req-500" }
        })
        expect(text).not.toContain("secret_internal_table")
        expect(text).not.toContain("at ")
      }))
  })
})
