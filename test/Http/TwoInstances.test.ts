import { expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { freshDatabase } from "../support/Databases.ts"
import { describeNeeding, missingOf, postgresMissing, redisMissing } from "../support/Requires.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

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
describeNeeding(missingOf(postgresMissing, redisMissing), "two instances on one PostgreSQL and one Redis", () => {
  it.live("share gapless ticket numbers, one rate-limit budget, and key revocation", () =>
    Effect.gen(function*() {
      const [a, b] = yield* twoInstances
      const project = yield* createProject(a)
      const apiA = yield* a.api(project.key)
      const apiB = yield* b.api(project.key)
      const created = yield* Effect.all(
        Array.from({ length: 30 }, (_, i) =>
          (i % 2 === 0 ? apiA : apiB).tickets.create({
            payload: { subject: `Ticket ${i}`, body: "Two instances" },
            headers: {},
            responseMode: "decoded-and-response"
          })),
        { concurrency: "unbounded" }
      )
      expect(created.map(([, response]) => response.status).every((s) => s === 202)).toBe(true)
      expect(created.map(([ticket]) => ticket.ticket_number).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 30 }, (_, i) => i + 1)
      )

      const adminA = yield* a.api(adminToken)
      const adminB = yield* b.api(adminToken)
      const limited = yield* adminB.admin.createKey({ params: { pid: project.projectId }, payload: {} })
      const key = limited.api_key
      // the shared budget shows in the statuses on the wire, 429 included
      const statuses: Array<number> = []
      for (let i = 0; i < 42; i++) {
        const response = yield* Effect.promise(() => (i % 2 === 0 ? a : b).request("GET", "/v1/articles/search?q=x", { key }))
        statuses.push(response.status)
      }
      expect(statuses.slice(0, 40).every((s) => s === 200)).toBe(true)
      expect(statuses.slice(40)).toEqual([429, 429])

      const fresh = yield* adminA.admin.createKey({ params: { pid: project.projectId }, payload: {} })
      const [, before] = yield* Effect.flatMap(b.api(fresh.api_key), (api) =>
        api.articles.search({ query: { q: "x" }, responseMode: "decoded-and-response" }))
      expect(before.status).toBe(200)
      yield* adminA.admin.revokeKey({ params: { pid: project.projectId, key_id: fresh.key_id } })
      for (const instance of [a, b]) {
        const after = yield* Effect.flatMap(instance.api(fresh.api_key), (api) => api.articles.search({ query: { q: "x" } }))
          .pipe(Effect.flip)
        expect(after._tag).toBe("Unauthorized")
      }
    }), 120_000)
})
