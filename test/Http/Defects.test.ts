import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, Logger, References } from "effect"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import { AppConfig } from "../../src/Config.ts"
import * as App from "../../src/App.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { freshDatabase } from "../support/Databases.ts"
import { testSettings } from "../support/Settings.ts"
import { adminToken, apiClient } from "../support/TestServer.ts"

class BaseUrl extends Context.Service<BaseUrl, string>()("test/BaseUrl") {}

/** Every line the server logs, with its level and annotations, to count what one defect leaves. */
const logged: Array<{ readonly level: string; readonly message: unknown; readonly annotations: Record<string, unknown>; readonly hasCause: boolean }> = []
const capturing = Logger.layer([
  Logger.make(({ cause, fiber, logLevel, message }) => {
    logged.push({ level: logLevel, message, annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }, hasCause: cause.reasons.length > 0 })
  })
])

/** The real server, with a Tickets service whose every call dies the way a broken query would. */
const brokenTickets = Layer.unwrap(Effect.gen(function*() {
  const env = yield* freshDatabase("pglite")
  const config = yield* testSettings({ ...env, ADMIN_TOKEN: adminToken })
  const defect = () => Effect.die(new Error("relation \"secret_internal_table\" does not exist"))
  const tickets = Tickets.of({
    create: defect,
    createTogether: defect,
    get: defect,
    claim: defect,
    addMessage: defect,
    adminGet: defect,
    adminUpdate: defect,
    addAgentMessage: defect,
    list: defect,
    listForContact: defect,
    listForVisitor: defect,
    findId: defect
  })
  // the whole server, its Tickets swapped for the broken one
  const http = NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })
  const server = App.httpLayer(http, Layer.empty, { ...App.liveServices, tickets: Layer.succeed(Tickets, tickets) }).pipe(
    Layer.provideMerge(Layer.succeed(AppConfig, config)),
    Layer.provideMerge(NodeHttpServer.layerHttpServices),
    Layer.provide(capturing)
  )
  return Layer.effect(
    BaseUrl,
    Effect.gen(function*() {
      const { address } = yield* HttpServer.HttpServer
      if (address._tag === "UnixPathAddress") return yield* Effect.die("expected a TCP address")
      return `http://127.0.0.1:${address.port}`
    })
  ).pipe(Layer.provideMerge(server))
}))

describe("a defect", () => {
  layer(brokenTickets, { excludeTestServices: true })((it) => {
    it.effect("leaves as 500 INTERNAL_ERROR with the request id, and no internals", () =>
      Effect.gen(function*() {
        const baseUrl = yield* BaseUrl
        const admin = yield* apiClient(baseUrl, adminToken)
        const project = yield* admin.admin.createProject({ payload: { name: "broken" } })
        // the wire itself: the exact bytes of the 500, which must not leak the defect
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
        // logged once, as an error with its cause and request id
        const errors = logged.filter((line) => line.level === "Error" || line.level === "Fatal")
        expect(errors.map((line) => [line.message, line.annotations["request_id"], line.hasCause])).toEqual([
          [["unexpected failure"], "req-500", true]
        ])
      }))
  })
})
