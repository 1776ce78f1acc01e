/**
 * The statements of webhook attempts in flight at once: each attempt reads its delivery and logs
 * its outcome as if alone, while the reads and the logs of concurrent attempts go out together.
 */
import { layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import { WebhooksRepo } from "../../src/Webhooks/Repo.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

const now = Date.parse("2026-11-24T00:00:00.000Z")

describe.each(databaseKinds)("the deliveries log on %s", (kind) => {
  layer(WebhooksRepo.layer.pipe(Layer.provideMerge(databaseLayer(kind))), { excludeTestServices: true })((it) => {
    it.effect("attempts in flight at once read their deliveries and log their outcomes together, each as if alone", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const repo = yield* WebhooksRepo
        const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('log') RETURNING id`
        const [hook] = yield* sql<{ id: string }>`
          INSERT INTO webhooks (project_id, url, events, secret)
          VALUES (${project!.id}, 'https://receiver.example/hooks', ARRAY['ticket_created'], 'a-secret-of-sixteen')
          RETURNING id`
        const ids = (yield* sql<{ id: string }>`
          INSERT INTO webhook_deliveries (webhook_id, project_id, event, body, created_at)
          SELECT ${hook!.id}, ${project!.id}, 'ticket_created', '{"n":' || g || '}', now()
          FROM generate_series(1, 20) g
          RETURNING id`).map((row) => row.id)
        const unknown = crypto.randomUUID()

        const targets = yield* Effect.all([...ids, unknown].map(repo.target), { concurrency: "unbounded" })
        expect(targets.at(-1)).toBeUndefined()
        targets.slice(0, -1).forEach((target, i) => {
          expect(target).toEqual({
            id: ids[i],
            event: "ticket_created",
            body: `{"n":${i + 1}}`,
            status: "pending",
            webhook_id: hook!.id,
            project_id: project!.id,
            url: "https://receiver.example/hooks",
            secret: "a-secret-of-sixteen",
            previous_secret: null,
            previous_secret_until: null,
            retry_schedule: "default",
            max_per_second: null,
            disabled: false,
            failing_since: null
          })
        })

        // even-numbered deliveries get through; odd ones fail and are due again in a minute
        const outcome = (deliveryId: string, at: number) => {
          const delivered = ids.indexOf(deliveryId) % 2 === 0
          return repo.recordAttempt({
            deliveryId,
            atLeast: 1,
            status: delivered ? "delivered" : "pending",
            statusCode: delivered ? 204 : 500,
            error: delivered ? null : "receiver answered 500",
            nextAttemptAt: delivered ? null : now + 60_000,
            now: at
          })
        }
        yield* Effect.all(ids.map((id, i) => outcome(id, now + i)), { concurrency: "unbounded" })
        const grouped = yield* sql<{ n: number }>`
          SELECT count(DISTINCT xmin::text)::int AS n FROM webhook_deliveries WHERE webhook_id = ${hook!.id}`
        // fewer statements than attempts: the outcomes went out together
        expect(grouped[0]!.n).toBeLessThan(20)
        // a redelivery beside a retry: two attempts of one delivery at once count twice
        yield* Effect.all([outcome(ids[0]!, now), outcome(ids[0]!, now)], { concurrency: "unbounded" })
        const rows = yield* sql<{
          id: string
          status: string
          attempts: number
          last_status_code: number | null
          last_error: string | null
          next_attempt_at: string | null
        }>`SELECT id, status, attempts, last_status_code, last_error,
             to_char(next_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS next_attempt_at
           FROM webhook_deliveries WHERE webhook_id = ${hook!.id}`
        for (const [i, id] of ids.entries()) {
          const delivered = i % 2 === 0
          expect(rows.find((row) => row.id === id), `delivery ${i}`).toEqual({
            id,
            status: delivered ? "delivered" : "pending",
            attempts: i === 0 ? 3 : 1,
            last_status_code: delivered ? 204 : 500,
            last_error: delivered ? null : "receiver answered 500",
            next_attempt_at: delivered ? null : "2026-11-24T00:01:00.000Z"
          })
        }
      }))
  })
})
