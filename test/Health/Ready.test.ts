/**
 * GET /ready, for load balancers: 200 only while the instance can serve (started, not stopping,
 * its database answering with every migration of this build applied, its Redis answering when
 * one is configured), else 503 naming what fails; it comes back by itself, without a restart,
 * while /health (liveness) stays 200 throughout. Outages go through a loopback proxy the test
 * cuts, so the real PostgreSQL and Redis are never stopped.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Latch, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { freePort } from "../support/Process.ts"
import { tcpProxy } from "../support/TcpProxy.ts"
import { apiClient, type ServiceOptions, TestServer, testServer, type TestServerShape } from "../support/TestServer.ts"

/** What /ready answers through the typed client: the body, or the 503's message. */
const readyAt = (baseUrl: string) =>
  Effect.flatMap(apiClient(baseUrl), (api) => api.health.ready()).pipe(
    Effect.match({
      onSuccess: (body) => ({ status: 200, body, message: undefined }),
      onFailure: (error) =>
        error._tag === "ServiceUnavailable"
          ? { status: 503, body: undefined, message: error.message }
          : { status: 0, body: undefined, message: String(error) }
    })
  )

const ready = (server: TestServerShape) => readyAt(server.baseUrl)

const readyBecomes = (server: TestServerShape, status: number) =>
  eventually(`/ready to answer ${status}`, Effect.map(ready(server), (seen) => ({ done: seen.status === status, value: seen })))

const healthStatus = (server: TestServerShape) =>
  Effect.flatMap(server.api(), (api) => api.health.health({ responseMode: "decoded-and-response" })).pipe(
    Effect.map(([, response]) => response.status),
    Effect.orDie
  )

const allGood = { status: "ready", checks: { database: "ok", migrations: "ok", redis: "not_configured" } }

/** The service, built in a scope of the test's own so that the test decides when it stops. */
const serviceIn = (
  scope: Scope.Scope,
  kind: (typeof databaseKinds)[number],
  settings: Record<string, string> = {},
  env?: Record<string, string>,
  options: ServiceOptions = {}
) =>
  Effect.map(Layer.buildWithScope(testServer(kind, settings, env, options), scope), (context) => ({
    server: Context.get(context, TestServer),
    sql: Context.get(context, SqlClient.SqlClient)
  }))

const service = (kind: (typeof databaseKinds)[number], settings: Record<string, string> = {}, env?: Record<string, string>) =>
  Effect.flatMap(Effect.scope, (scope) => serviceIn(scope, kind, settings, env))

/** The newest migration this checkout carries, by its file name, read apart from the code under test. */
const newestMigration = readdirSync(fileURLToPath(new URL("../../migrations/", import.meta.url)))
  .filter((name) => /^\d{4}_.+\.sql$/.test(name))
  .sort()
  .at(-1)!
  .replace(/\.sql$/, "")

describe.each(databaseKinds)("GET /ready on %s", (kind) => {
  it.live("is 200 with every check once the service has started, and needs no key", () =>
    Effect.gen(function*() {
      const { server } = yield* service(kind)
      expect(yield* ready(server)).toEqual({ status: 200, body: allGood, message: undefined })
      const raw = yield* Effect.promise(() => server.request("GET", "/ready"))
      expect(raw.status).toBe(200)
      expect(raw.headers.get("x-request-id")).toBeTruthy()
    }), 60_000)

  it.live("is 503 naming the migrations while the newest one of this build is not applied, and 200 again once it is", () =>
    Effect.gen(function*() {
      const { server, sql } = yield* service(kind)
      const id = Number(newestMigration.slice(0, 4))
      const [row] = yield* sql<{ name: string }>`
        DELETE FROM effect_sql_migrations WHERE migration_id = ${id} RETURNING name`
      const seen = yield* ready(server)
      expect(seen.status).toBe(503)
      expect(seen.message).toBe(`not ready: migrations not applied: ${newestMigration}`)
      expect(yield* healthStatus(server)).toBe(200)

      yield* sql`INSERT INTO effect_sql_migrations (migration_id, name) VALUES (${id}, ${row!.name})`
      expect((yield* ready(server)).status).toBe(200)
    }), 60_000)

  it.live("is 503 at once while start-up is not done, without waiting for it, and 200 once it is", () =>
    Effect.gen(function*() {
      const hold = yield* Latch.make(false)
      const port = yield* Effect.promise(freePort)
      const scope = yield* Effect.scope
      const building = yield* Effect.forkChild(
        serviceIn(scope, kind, {}, undefined, { startup: Layer.effectDiscard(hold.await), port })
      )
      const baseUrl = `http://127.0.0.1:${port}`
      // the socket opens before start-up runs; until then a probe cannot connect at all
      const starting = yield* eventually(
        "/ready to answer while starting",
        Effect.map(readyAt(baseUrl), (seen) => ({ done: seen.status !== 0, value: seen }))
      )
      expect(starting).toEqual({ status: 503, body: undefined, message: "not ready: the service is starting" })

      yield* hold.open
      const { server } = yield* Fiber.join(building)
      expect(yield* ready(server)).toEqual({ status: 200, body: allGood, message: undefined })
    }), 60_000)

  it.live("turns 503 as soon as shutdown begins, while the server still answers and /health stays 200", () =>
    Effect.gen(function*() {
      const release = yield* Latch.make(false)
      const scope = yield* Scope.make()
      // its finalizer runs once shutdown has begun, and holds the server open until released
      const holdShutdown = Layer.effectDiscard(Effect.addFinalizer(() => release.await))
      const { server } = yield* serviceIn(scope, kind, {}, undefined, { startup: holdShutdown })
      expect((yield* ready(server)).status).toBe(200)

      const stopping = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      const seen = yield* readyBecomes(server, 503)
      expect(seen.message).toBe("not ready: the service is shutting down")
      expect(yield* healthStatus(server)).toBe(200)

      yield* release.open
      yield* Fiber.join(stopping)
    }), 60_000)

  it.live("keeps accepting for SHUTDOWN_DRAIN after it turns 503, then closes the port", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { server } = yield* serviceIn(scope, kind, { SHUTDOWN_DRAIN: "5s" })
      expect((yield* ready(server)).status).toBe(200)

      const stopping = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* readyBecomes(server, 503)
      // a new connection, as a balancer that has not probed yet would open
      const answer = yield* Effect.promise(() => fetch(`${server.baseUrl}/health`, { headers: { connection: "close" } }))
      expect(answer.status).toBe(200)

      yield* Fiber.join(stopping)
      const afterwards = yield* Effect.promise(() =>
        fetch(`${server.baseUrl}/health`, { headers: { connection: "close" } }).then((response) => response.status, () => "refused")
      )
      expect(afterwards).toBe("refused")
    }), 60_000)

  it.live("is 503 naming Redis while the configured Redis is away, and 200 again once it is back, without a restart", () =>
    Effect.gen(function*() {
      const proxy = yield* tcpProxy(6379)
      const { server } = yield* service(kind, { REDIS_URL: `redis://127.0.0.1:${proxy.port}` })
      expect(yield* ready(server)).toEqual({
        status: 200,
        body: { ...allGood, checks: { ...allGood.checks, redis: "ok" } },
        message: undefined
      })

      proxy.cut()
      const seen = yield* readyBecomes(server, 503)
      expect(seen.message).toBe("not ready: Redis does not answer")
      expect(yield* healthStatus(server)).toBe(200)

      proxy.restore()
      expect((yield* readyBecomes(server, 200)).body?.checks.redis).toBe("ok")
    }), 60_000)

  if (kind === "postgres") {
    it.live("is 503 naming the database while PostgreSQL is away, and 200 again once it is back, without a restart", () =>
      Effect.gen(function*() {
        const database = yield* freshDatabase("postgres")
        const url = new URL(database.DATABASE_URL!)
        const proxy = yield* tcpProxy(Number(url.port || 5432), url.hostname)
        url.host = `127.0.0.1:${proxy.port}`
        const { server } = yield* service("postgres", {}, { ...database, DATABASE_URL: url.toString() })
        expect(yield* ready(server)).toEqual({ status: 200, body: allGood, message: undefined })

        proxy.cut()
        const seen = yield* readyBecomes(server, 503)
        expect(seen.message).toBe("not ready: the database does not answer")
        expect(yield* healthStatus(server)).toBe(200)

        proxy.restore()
        expect((yield* readyBecomes(server, 200)).body).toEqual(allGood)
      }), 60_000)
  }
})
