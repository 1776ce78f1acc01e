import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { freshDatabase } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

const postgres = process.env.DATABASE_URL !== undefined
const redisUrl = process.env.REDIS_URL

/** Two processes' worth of service on one PostgreSQL and one Redis, as behind a load balancer. */
const twoInstances = Effect.gen(function*() {
  const env = yield* freshDatabase("postgres")
  const settings = { REDIS_URL: redisUrl!, RATE_LIMIT_PER_MINUTE: "40" }
  const a = yield* Layer.build(testServer("postgres", settings, env))
  const b = yield* Layer.build(testServer("postgres", settings, env))
  return [Context.get(a, TestServer), Context.get(b, TestServer)] as const
})

// Needs a PostgreSQL server and a Redis server; .ci/run provides both.
describe.skipIf(!postgres || redisUrl === undefined)("two instances on one PostgreSQL and one Redis", () => {
  it.live("share gapless ticket numbers, one rate-limit budget, and key revocation", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoInstances
      const project = yield* Effect.promise(() => createProject(a))
      const created = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: 30 }, (_, i) =>
          (i % 2 === 0 ? a : b).request("POST", "/v1/tickets", {
            key: project.key,
            body: { subject: `Ticket ${i}`, body: "Two instances" }
          }))))
      expect(created.map((r) => r.status).every((s) => s === 202)).toBe(true)
      expect(created.map((r) => r.body.ticket_number).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))

      const limited = yield* Effect.promise(() =>
        b.request("POST", `/v1/admin/projects/${project.projectId}/api-keys`, { key: adminToken, body: {} }))
      const key = limited.body.api_key
      const statuses: Array<number> = []
      for (let i = 0; i < 42; i++) {
        const response = yield* Effect.promise(() => (i % 2 === 0 ? a : b).request("GET", "/v1/articles/search?q=x", { key }))
        statuses.push(response.status)
      }
      expect(statuses.slice(0, 40).every((s) => s === 200)).toBe(true)
      expect(statuses.slice(40)).toEqual([429, 429])

      const fresh = yield* Effect.promise(() =>
        a.request("POST", `/v1/admin/projects/${project.projectId}/api-keys`, { key: adminToken, body: {} }))
      const before = yield* Effect.promise(() => b.request("GET", "/v1/articles/search?q=x", { key: fresh.body.api_key }))
      expect(before.status).toBe(200)
      yield* Effect.promise(() =>
        a.request("DELETE", `/v1/admin/projects/${project.projectId}/api-keys/${fresh.body.key_id}`, { key: adminToken }))
      for (const instance of [a, b]) {
        const after = yield* Effect.promise(() => instance.request("GET", "/v1/articles/search?q=x", { key: fresh.body.api_key }))
        expect(after.status).toBe(401)
      }
    }).pipe(Effect.scoped), 120_000)
})
