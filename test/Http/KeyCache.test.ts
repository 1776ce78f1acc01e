/**
 * Known keys are cached per instance, so a request costs no key lookup; the cache is only as good
 * as the notifications that empty it. These tests take the notifications away on purpose.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { eventually } from "../support/Eventually.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

const postgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== ""

const statusOf = (key: string) =>
  Effect.flatMap(Effect.service(TestServer), (server) =>
    Effect.promise(() => server.request("GET", "/v1/articles/search?q=anything", { key }).then((r) => r.status)))

// Needs a PostgreSQL server: only there can the listening connection be cut from outside. The
// second test also holds that connection's server process still with a signal, so the server must
// run on this machine as a user this one may signal (as in CI, where both are root).
describe.skipIf(!postgres)("the key cache on PostgreSQL", () => {
  layer(testServer("postgres", { RATE_LIMIT_PER_MINUTE: "1000000" }), { excludeTestServices: true })((it) => {
  it.effect("is not trusted while the connection that hears revocations is down, and trusted again once it is back", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sql = yield* SqlClient.SqlClient
      const { key, keyId } = yield* createProject(server)
      expect(yield* statusOf(key)).toBe(200)

      // a revocation nobody hears: written behind the service's back, with no NOTIFY
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId}`
      const listeners = sql<{ pid: number }>`
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%api_keys%'`
      const [listener] = yield* listeners
      expect(listener).toBeDefined()
      yield* sql`SELECT pg_terminate_backend(${listener!.pid})`

      // from the moment the listener is gone the cache is not used: the key is looked up, and refused
      yield* eventually("the revoked key to be refused", Effect.map(statusOf(key), (status) => ({ done: status === 401, value: status })))
      // the listener comes back by itself, and with it the cache, empty
      yield* eventually("a new listening connection", Effect.map(listeners, (rows) => ({ done: rows.length === 1, value: rows })))
      const fresh = yield* createProject(server, "After the reconnect")
      expect(yield* statusOf(fresh.key)).toBe(200)
      expect(yield* statusOf(key)).toBe(401)
    }), 60_000)

  it.effect("answers a revocation only once the connection that hears revocations has heard it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sql = yield* SqlClient.SqlClient
      const { key, keyId, projectId } = yield* createProject(server, "Echo")
      expect(yield* statusOf(key)).toBe(200)
      const [listener] = yield* sql<{ pid: number }>`
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%api_keys%'`
      expect(listener).toBeDefined()
      // the listening connection's server process, held still: it cannot pass the notification on
      process.kill(listener!.pid, "SIGSTOP")
      yield* Effect.addFinalizer(() => Effect.sync(() => process.kill(listener!.pid, "SIGCONT")))
      const admin = yield* server.api(adminToken)
      const revocation = yield* Effect.forkChild(admin.admin.revokeKey({ params: { pid: projectId, key_id: keyId } }))
      // committed, and still unanswered: it waits for the notification (up to a second)
      yield* eventually(
        "the revocation to be committed",
        Effect.map(sql<{ revoked: boolean }>`SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = ${keyId}`, ([row]) => ({
          done: row?.revoked === true,
          value: row
        }))
      )
      yield* Effect.sleep("300 millis")
      expect(revocation.pollUnsafe()).toBeUndefined()
      process.kill(listener!.pid, "SIGCONT")
      yield* Fiber.join(revocation)
      expect(yield* statusOf(key)).toBe(401)
    }).pipe(Effect.scoped), 60_000)
  })
})
