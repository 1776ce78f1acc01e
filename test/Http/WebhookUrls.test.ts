/**
 * A webhook URL may carry a user and password for the receiver (Basic auth). The operator API
 * never shows them again, neither in the answer that registers the endpoint nor in its list, and
 * deliveries still send them.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { startStub } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

describe.each(databaseKinds)("webhook URLs with credentials on %s", (kind) => {
  layer(testServer(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }, undefined, { pipeline: "live" }), {
    excludeTestServices: true
  })((it) => {
    it.effect("are shown without them, and delivered with them", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const receiver = yield* Effect.acquireRelease(Effect.promise(() => startStub()), (stub) => Effect.promise(stub.close))
        const { key, projectId } = yield* createProject(server)
        const withCredentials = receiver.url.replace("http://", "http://hooks:pa%24%24word@") + "/in?team=7"
        const admin = yield* server.api(adminToken)
        const created = yield* admin.webhooks.register({
          params: { pid: projectId },
          payload: { url: withCredentials, events: ["ticket_created"] }
        }).pipe(Effect.orDie)
        const shown = receiver.url.replace("http://", "http://REDACTED:REDACTED@") + "/in?team=7"
        expect(created.url).toBe(shown)
        const listed = yield* admin.webhooks.list({ params: { pid: projectId } }).pipe(Effect.orDie)
        expect(listed.webhooks.map((webhook) => webhook.url)).toEqual([shown])
        expect(JSON.stringify([created, listed])).not.toContain("word")

        yield* createTicket(server, key, { subject: "Hello", body: "x" })
        const delivered = yield* eventually("the delivery", Effect.sync(() => ({
          done: receiver.requests.length > 0,
          value: receiver.requests[0]
        })))
        expect(delivered!.path).toBe("/in?team=7")
        expect(delivered!.headers.authorization).toBe(`Basic ${Buffer.from("hooks:pa$$word").toString("base64")}`)
      }))
  })
})
