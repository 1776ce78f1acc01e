/**
 * An Idempotency-Key is the API key's own: a repeat with the same key replays the first answer,
 * while the same Idempotency-Key sent with another key of the project (the site's backend after a
 * widget's visitor, or a second backend key) is a request of its own and never gets that answer.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const ticket = { subject: "Cannot log in", body: "since this morning", sender_email: "kim@example.com" }

const file = (server: TestServerShape, key: string, idempotencyKey: string) =>
  Effect.promise(() =>
    server.request("POST", "/v1/tickets", { key, body: ticket, headers: { "idempotency-key": idempotencyKey } })
  ).pipe(Effect.map((response) => ({
    status: response.status,
    ticketId: response.body?.ticket_id as string | undefined,
    replayed: response.headers.get("idempotent-replayed")
  })))

describe.each(databaseKinds)("Idempotency-Key scope on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("replays only to the API key that stored it", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, widgetKey, projectId } = yield* createProject(server)
        const admin = yield* server.api(adminToken)
        const second = yield* admin.admin.createKey({ params: { pid: projectId }, payload: { scope: "full", name: "second" } })
          .pipe(Effect.orDie)

        const byWidget = yield* file(server, widgetKey, "same-key")
        expect(byWidget).toMatchObject({ status: 202, replayed: null })
        expect(yield* file(server, widgetKey, "same-key")).toEqual({ ...byWidget, replayed: "true" })

        const byBackend = yield* file(server, key, "same-key")
        expect(byBackend).toMatchObject({ status: 202, replayed: null })
        expect(byBackend.ticketId).not.toBe(byWidget.ticketId)
        expect(yield* file(server, key, "same-key")).toEqual({ ...byBackend, replayed: "true" })

        const bySecond = yield* file(server, second.api_key, "same-key")
        expect(bySecond).toMatchObject({ status: 202, replayed: null })
        expect(new Set([byWidget.ticketId, byBackend.ticketId, bySecond.ticketId]).size).toBe(3)
      }))

    it.effect("still replays an entry stored before keys owned theirs, to any key of its project", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, widgetKey, projectId } = yield* createProject(server, "Upgraded")
        const first = yield* file(server, widgetKey, "from-before")
        expect(first.status).toBe(202)
        // as the upgrade leaves an entry of the day before it: no key recorded
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE idempotency_keys SET api_key_id = NULL WHERE project_id = ${projectId}`
        expect(yield* file(server, key, "from-before")).toEqual({ ...first, replayed: "true" })
      }))
  })
})
