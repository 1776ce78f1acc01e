import { layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import { TicketId } from "../../src/Domain/Ids.ts"
import { FollowupsRepo } from "../../src/Tickets/FollowupsRepo.ts"
import { WebhooksRepo } from "../../src/Webhooks/Repo.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

const tickets = 60
const deliveries = 60

/** Updates of the table so far in this transaction, and how many of them stayed on their page (HOT). */
const updatesOf = (sql: SqlClient.SqlClient, table: string) =>
  Effect.map(
    sql<{ updated: number; hot: number }>`
      SELECT pg_stat_get_xact_tuples_updated(${table}::regclass)::int AS updated,
        pg_stat_get_xact_tuples_hot_updated(${table}::regclass)::int AS hot`,
    (rows) => rows[0]!
  )

describe.each(databaseKinds)("room for updates on %s", (kind) => {
  layer(FollowupsRepo.layer.pipe(Layer.provideMerge(databaseLayer(kind))), { excludeTestServices: true })((it) => {
    it.effect("a ticket's triage stays on its page and writes no index entry", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const repo = yield* FollowupsRepo
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
            ticketId: TicketId.make(id),
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

/** The page each row is on, by id: a row updated in place (HOT) keeps it, one moved elsewhere does not. */
const pagesOf = (sql: SqlClient.SqlClient, ids: ReadonlyArray<string>) =>
  Effect.map(
    sql<{ id: string; page: number }>`
      SELECT id, (ctid::text::point)[0]::int AS page FROM webhook_deliveries WHERE id IN ${sql.in(ids)}`,
    (rows) => new Map(rows.map(({ id, page }) => [id, page]))
  )

describe.each(databaseKinds)("room for delivery attempts on %s", (kind) => {
  layer(WebhooksRepo.layer.pipe(Layer.provideMerge(databaseLayer(kind))), { excludeTestServices: true })((it) => {
    it.effect("a delivery's attempt is recorded on the page the delivery is on", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const repo = yield* WebhooksRepo
        const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('Room') RETURNING id`
        const [webhook] = yield* sql<{ id: string }>`
          INSERT INTO webhooks (project_id, url, events, secret)
          VALUES (${project!.id}, 'http://127.0.0.1:9/hook', ARRAY['ticket_created'], 'whsec_room') RETURNING id`
        // bodies the size of a ticket_created event, written one after another as a flood of
        // tickets would queue them: at full pages no page has room for a second version of any
        const written = yield* sql<{ id: string }>`
          INSERT INTO webhook_deliveries (webhook_id, project_id, event, body, next_attempt_at, created_at)
          SELECT ${webhook!.id}, ${project!.id}, 'ticket.created',
            '{"event":"ticket.created","timestamp":"2026-11-26T12:00:00.000Z","data":{"subject":"' ||
              repeat('Cannot log in after the password reset ', 16) || g || '"}}',
            now(), now()
          FROM generate_series(1, ${deliveries}) g
          RETURNING id`
        const ids = written.map(({ id }) => id)
        const before = yield* pagesOf(sql, ids)
        yield* Effect.forEach(ids, (deliveryId) =>
          repo.recordAttempt({
            deliveryId,
            atLeast: 1,
            status: "delivered",
            statusCode: 200,
            error: null,
            nextAttemptAt: null,
            now: Date.now()
          }), { concurrency: 8, discard: true })
        const after = yield* pagesOf(sql, ids)
        const attempts = yield* sql<{ attempts: number }>`
          SELECT attempts FROM webhook_deliveries WHERE id IN ${sql.in(ids)} AND status = 'delivered'`
        expect(attempts.map(({ attempts }) => attempts)).toEqual(ids.map(() => 1))
        const stayed = ids.filter((id) => before.get(id) === after.get(id)).length
        // a few may find their page taken by the versions of its neighbours
        expect(stayed, `${stayed} of ${deliveries} attempts stayed on their page`).toBeGreaterThanOrEqual(deliveries * 0.9)
      }))
  })
})
