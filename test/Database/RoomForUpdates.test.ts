import { layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import { TicketsRepo } from "../../src/Tickets/Repo.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

const tickets = 60

/** Updates of the table so far in this transaction, and how many of them stayed on their page (HOT). */
const updatesOf = (sql: SqlClient.SqlClient, table: string) =>
  Effect.map(
    sql<{ updated: number; hot: number }>`
      SELECT pg_stat_get_xact_tuples_updated(${table}::regclass)::int AS updated,
        pg_stat_get_xact_tuples_hot_updated(${table}::regclass)::int AS hot`,
    (rows) => rows[0]!
  )

describe.each(databaseKinds)("room for updates on %s", (kind) => {
  layer(TicketsRepo.layer.pipe(Layer.provideMerge(databaseLayer(kind))), { excludeTestServices: true })((it) => {
    it.effect("a ticket's triage stays on its page and writes no index entry", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const repo = yield* TicketsRepo
        const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('Room') RETURNING id`
        // tickets of a usual size, written one after another as a flood of them would be: at
        // full pages, no page has room for a second version of any of them
        const written = yield* sql<{ id: string }>`
          INSERT INTO tickets (project_id, ticket_number, subject, body, sender_email)
          SELECT ${project!.id}, g, 'Cannot log in after the password reset ' || g,
            repeat('The reset link says my token expired, and the new one does the same. ', 5) || g,
            'user' || g || '@example.com'
          FROM generate_series(1, ${tickets}) g
          RETURNING id`
        const counted = yield* sql.withTransaction(Effect.gen(function*() {
          yield* repo.applyTriage(written.map(({ id }) => ({
            ticketId: id,
            result: {
              category: { value: "account", confidence: 0.8 },
              priority: { value: "p2_high", confidence: 0.6 },
              sentiment: { value: "negative", confidence: 0.7, score: -0.4 },
              model: "local-nb-1"
            },
            automation: { jobId: crypto.randomUUID(), payload: null, runAt: new Date().toISOString() }
          })))
          return yield* updatesOf(sql, "tickets")
        }))
        expect(counted.updated).toBe(tickets)
        // a few may find their page taken by the versions of its neighbours
        expect(counted.hot, `${counted.hot} of ${counted.updated} updates stayed on their page`).toBeGreaterThanOrEqual(
          tickets * 0.9
        )
      }))
  })
})
