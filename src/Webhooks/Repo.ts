import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { isoTimestamp } from "../Domain/Fields.ts"
import type { Delivery } from "../Domain/Webhook.ts"

export interface WebhookRow {
  readonly id: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly created_at: Date | string
}

/** One delivery with what an attempt needs: its endpoint's current URL and secret. */
export interface DeliveryTarget {
  readonly id: string
  readonly event: string
  readonly body: string
  readonly status: "pending" | "delivered" | "failed"
  readonly url: string
  readonly secret: string
}

const iso = (millis: number) => new Date(millis).toISOString()

export class WebhooksRepo extends Effect.Service<WebhooksRepo>()("app/Webhooks/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (projectId: string, url: string, events: ReadonlyArray<string>, secret: string) =>
      sql<WebhookRow>`
        INSERT INTO webhooks (project_id, url, events, secret)
        VALUES (${projectId}, ${url},
          ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(events)}::jsonb)), ${secret})
        RETURNING id, url, events, created_at`.pipe(Effect.map((rows) => rows[0]!))

    const list = (projectId: string) =>
      sql<WebhookRow>`SELECT id, url, events, created_at FROM webhooks
                      WHERE project_id = ${projectId} ORDER BY created_at, id`

    const remove = (projectId: string, webhookId: string) =>
      sql<{ id: string }>`DELETE FROM webhooks WHERE id = ${webhookId} AND project_id = ${projectId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const rotateSecret = (projectId: string, webhookId: string, secret: string) =>
      sql<{ id: string }>`UPDATE webhooks SET secret = ${secret}
                          WHERE id = ${webhookId} AND project_id = ${projectId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const exists = (projectId: string, webhookId: string) =>
      sql<{ id: string }>`SELECT id FROM webhooks WHERE id = ${webhookId} AND project_id = ${projectId}`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const deliveries = (webhookId: string, limit: number) =>
      sql<{
        id: string
        event: string
        status: Delivery["status"]
        attempts: number
        last_status_code: number | null
        last_error: string | null
        next_attempt_at: Date | string | null
        created_at: Date | string
      }>`
        SELECT id, event, status, attempts, last_status_code, last_error, next_attempt_at, created_at
        FROM webhook_deliveries WHERE webhook_id = ${webhookId}
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(
        Effect.map((rows) =>
          rows.map((row): Delivery => ({
            delivery_id: row.id,
            event: row.event,
            status: row.status,
            attempts: Number(row.attempts),
            last_status_code: row.last_status_code,
            last_error: row.last_error,
            next_attempt_at: row.next_attempt_at === null ? null : isoTimestamp(row.next_attempt_at),
            created_at: isoTimestamp(row.created_at)
          }))
        )
      )

    const target = (deliveryId: string) =>
      sql<DeliveryTarget>`
        SELECT d.id, d.event, d.body, d.status, w.url, w.secret
        FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.id = ${deliveryId}`.pipe(Effect.map((rows): DeliveryTarget | undefined => rows[0]))

    /** The outcome of one attempt, for the deliveries log. */
    const recordAttempt = (deliveryId: string, outcome: {
      /** at least this many attempts were made: the job's count, which includes one a crash cut off */
      readonly atLeast: number
      readonly status: Delivery["status"]
      readonly statusCode: number | null
      readonly error: string | null
      readonly nextAttemptAt: number | null
      readonly now: number
    }) =>
      sql`UPDATE webhook_deliveries SET status = ${outcome.status}, attempts = greatest(attempts + 1, ${outcome.atLeast}),
            last_status_code = ${outcome.statusCode}, last_error = ${outcome.error},
            next_attempt_at = ${outcome.nextAttemptAt === null ? null : iso(outcome.nextAttemptAt)},
            updated_at = ${iso(outcome.now)}
          WHERE id = ${deliveryId}`.pipe(Effect.asVoid)

    /** A fresh single attempt of a logged delivery, with its body and id; false when unknown. */
    const redeliver = (projectId: string, webhookId: string, deliveryId: string, now: number) =>
      sql<{ id: string }>`
        WITH delivery AS (
          UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${iso(now)}, updated_at = ${iso(now)}
          WHERE id = ${deliveryId} AND webhook_id = ${webhookId} AND project_id = ${projectId}
          RETURNING id, project_id
        ), job AS (
          INSERT INTO jobs (kind, project_id, payload, run_at)
          SELECT 'webhook_delivery', project_id, jsonb_build_object('delivery_id', id, 'once', true), ${iso(now)}
          FROM delivery
        )
        SELECT id FROM delivery`.pipe(Effect.map((rows) => rows.length > 0))

    return {
      insert: (projectId: string, url: string, events: ReadonlyArray<string>, secret: string) =>
        Effect.orDie(insert(projectId, url, events, secret)),
      list: (projectId: string) => Effect.orDie(list(projectId)),
      remove: (projectId: string, webhookId: string) => Effect.orDie(remove(projectId, webhookId)),
      rotateSecret: (projectId: string, webhookId: string, secret: string) =>
        Effect.orDie(rotateSecret(projectId, webhookId, secret)),
      exists: (projectId: string, webhookId: string) => Effect.orDie(exists(projectId, webhookId)),
      deliveries: (webhookId: string, limit: number) => Effect.orDie(deliveries(webhookId, limit)),
      target: (deliveryId: string) => Effect.orDie(target(deliveryId)),
      recordAttempt: (deliveryId: string, outcome: Parameters<typeof recordAttempt>[1]) =>
        Effect.orDie(recordAttempt(deliveryId, outcome)),
      redeliver: (projectId: string, webhookId: string, deliveryId: string, now: number) =>
        Effect.orDie(redeliver(projectId, webhookId, deliveryId, now))
    } as const
  })
}) {}
