/**
 * Known keys are cached per instance, so a request costs no key lookup; the cache is only as good
 * as the notifications that empty it. These tests take the notifications away on purpose.
 */
import { expect, it, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { eventually } from "../support/Eventually.ts"
import { describeNeeding, postgresMissing } from "../support/Requires.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

const statusOf = (key: string) =>
  Effect.flatMap(Effect.service(TestServer), (server) =>
    Effect.promise(() => server.request("GET", "/v1/articles/search?q=anything", { key }).then((r) => r.status)))

// Needs a PostgreSQL server: only there can the listening connection be cut from outside. The
// second test also holds that connection's server process still with a signal, so the server must
// run on this machine as a user this one may signal (as in CI, where both are root).
describeNeeding(postgresMissing, "the key cache on PostgreSQL", () => {
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
  })

  it.effect("answers a revocation only once the connection that hears revocations has heard it", () =>
    Effect.gen(function*() {
      // built in the test, so the revocation's wait for its echo (a second at most) is timed by
      // the TestClock, which stands still: nothing but the echo can end that wait
      const service = yield* Layer.build(testServer("postgres", { RATE_LIMIT_PER_MINUTE: "1000000" }))
      yield* Effect.gen(function*() {
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
        // committed, and forgotten by this instance at once, just before the revocation waits for its echo
        yield* eventually("this instance to refuse the revoked key", Effect.map(statusOf(key), (status) => ({ done: status === 401, value: status })))
        // a wrong answer would come at once; with the clock standing still this pause races no deadline
        yield* TestClock.withLive(Effect.sleep("300 millis"))
        expect(revocation.pollUnsafe()).toBeUndefined()
        process.kill(listener!.pid, "SIGCONT")
        yield* Fiber.join(revocation)
        expect(yield* statusOf(key)).toBe(401)
      }).pipe(Effect.provideContext(service))
    }).pipe(Effect.scoped), 60_000)
})
