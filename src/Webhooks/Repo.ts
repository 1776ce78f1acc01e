import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Grouped from "../Database/Grouped.ts"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow, TimestampFromRow } from "../Domain/Fields.ts"
import { EventKinds } from "../Domain/Events.ts"
import { type Delivery, DeliveryStatus, type WebhookSummary } from "../Domain/Webhook.ts"
import { type DeliveryId, DeliveryIdFromRow, type ProjectId, type WebhookId, WebhookIdFromRow } from "../Domain/Ids.ts"

const WebhookRow = Schema.Struct({
  webhook_id: WebhookIdFromRow,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  created_at: TimestampFromRow
})

const DeliveryRow = Schema.Struct({
  delivery_id: DeliveryIdFromRow,
  event: Schema.String,
  status: DeliveryStatus,
  attempts: IntFromRow,
  last_status_code: Schema.NullOr(IntFromRow),
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Schema.NullOr(TimestampFromRow),
  created_at: TimestampFromRow
})

/** One delivery with what an attempt needs: its endpoint's current URL and secret. */
const TargetRow = Schema.Struct({
  id: Schema.String,
  event: Schema.String,
  body: Schema.String,
  status: DeliveryStatus,
  url: Schema.String,
  secret: Schema.String
})
export type DeliveryTarget = typeof TargetRow.Type

const iso = (millis: number) => new Date(millis).toISOString()

/** The outcome of one attempt of a delivery. */
export interface AttemptRecord {
  readonly deliveryId: string
  /** at least this many attempts were made: the job's count, which includes one a crash cut off */
  readonly atLeast: number
  readonly status: Delivery["status"]
  readonly statusCode: number | null
  readonly error: string | null
  readonly nextAttemptAt: number | null
  readonly now: number
}

export class WebhooksRepo extends Context.Service<WebhooksRepo>()("app/Webhooks/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // an endpoint that takes every event lists the kinds there are now, not those when it was registered
    const subscribed = sql`CASE WHEN all_events
      THEN ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(EventKinds)}::jsonb)) ELSE events END AS events`

    /** `events` "all" subscribes the endpoint to every event, those added later included. */
    const insert = (projectId: ProjectId, url: string, events: ReadonlyArray<string> | "all", secret: string) =>
      sql`
        INSERT INTO webhooks (project_id, url, events, all_events, secret)
        VALUES (${projectId}, ${url},
          ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(events === "all" ? EventKinds : events)}::jsonb)),
          ${events === "all"}, ${secret})
        RETURNING id AS webhook_id, url, ${subscribed}, created_at`.pipe(Rows.single(WebhookRow))

    const list = (projectId: ProjectId) =>
      sql`SELECT id AS webhook_id, url, ${subscribed}, created_at FROM webhooks
          WHERE project_id = ${projectId} ORDER BY created_at, id`.pipe(
        Rows.all(WebhookRow),
        Effect.map((rows): ReadonlyArray<WebhookSummary> => rows)
      )

    const remove = (projectId: ProjectId, webhookId: WebhookId) =>
      sql`DELETE FROM webhooks WHERE id = ${webhookId} AND project_id = ${projectId} RETURNING id`.pipe(Rows.some)

    const rotateSecret = (projectId: ProjectId, webhookId: WebhookId, secret: string) =>
      sql`UPDATE webhooks SET secret = ${secret} WHERE id = ${webhookId} AND project_id = ${projectId} RETURNING id`
        .pipe(Rows.some)

    const exists = (projectId: ProjectId, webhookId: WebhookId) =>
      sql`SELECT id FROM webhooks WHERE id = ${webhookId} AND project_id = ${projectId}`.pipe(Rows.some)

    const deliveries = (webhookId: WebhookId, limit: number) =>
      sql`
        SELECT id AS delivery_id, event, status, attempts, last_status_code, last_error, next_attempt_at, created_at
        FROM webhook_deliveries WHERE webhook_id = ${webhookId}
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(
        Rows.all(DeliveryRow),
        Effect.map((rows): ReadonlyArray<Delivery> => rows)
      )

    const targetSelect = sql`
      SELECT d.id, d.event, d.body, d.status, w.url, w.secret
      FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id`

    const targetOne = (deliveryId: string) =>
      sql`${targetSelect} WHERE d.id = ${deliveryId}`.pipe(Rows.first(TargetRow), Effect.map(Option.getOrUndefined))

    const targetMany = (deliveryIds: ReadonlyArray<string>) =>
      sql`${targetSelect}
        WHERE d.id = ANY(ARRAY(SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(deliveryIds)}::jsonb)))`
        .pipe(
          Rows.all(TargetRow),
          Effect.map((rows) => {
            const byId = new Map(rows.map((row) => [row.id, row]))
            return deliveryIds.map((id) => byId.get(id))
          })
        )

    /** One delivery with its endpoint, or undefined once the endpoint is deleted; read with the others in flight. */
    const target = yield* Grouped.statements({ inFlight: 2, maxBatch: 100, one: targetOne, many: targetMany })

    const recordOne = (outcome: AttemptRecord) =>
      sql`UPDATE webhook_deliveries SET status = ${outcome.status}, attempts = greatest(attempts + 1, ${outcome.atLeast}),
            last_status_code = ${outcome.statusCode}, last_error = ${outcome.error},
            next_attempt_at = ${outcome.nextAttemptAt === null ? null : iso(outcome.nextAttemptAt)},
            updated_at = ${iso(outcome.now)}
          WHERE id = ${outcome.deliveryId}`.pipe(Rows.run)

    const recordMany = (outcomes: ReadonlyArray<AttemptRecord>) =>
      // two attempts of one delivery (a redelivery beside a retry) would count as one in a
      // single UPDATE: such a group goes one by one
      new Set(outcomes.map((outcome) => outcome.deliveryId)).size < outcomes.length
        ? Effect.die(new Error("two attempts of one delivery in a group"))
        : sql`
          UPDATE webhook_deliveries d SET status = o.status, attempts = greatest(d.attempts + 1, o.at_least),
            last_status_code = o.status_code, last_error = o.error, next_attempt_at = o.next_attempt_at,
            updated_at = o.now
          FROM jsonb_to_recordset(${
          JSON.stringify(outcomes.map((outcome) => ({
            id: outcome.deliveryId,
            status: outcome.status,
            at_least: outcome.atLeast,
            status_code: outcome.statusCode,
            error: outcome.error,
            next_attempt_at: outcome.nextAttemptAt === null ? null : iso(outcome.nextAttemptAt),
            now: iso(outcome.now)
          })))
        }::jsonb) AS o(id uuid, status text, at_least int, status_code int, error text, next_attempt_at timestamptz,
            now timestamptz)
          WHERE d.id = o.id`.pipe(Rows.run, Effect.as(outcomes.map(() => undefined)))

    /** The outcome of one attempt, for the deliveries log; written with the others that end meanwhile. */
    const recordAttempt = yield* Grouped.statements({ inFlight: 2, maxBatch: 100, one: recordOne, many: recordMany })

    /** A fresh single attempt of a logged delivery, with its body and id; false when unknown. */
    const redeliver = (projectId: ProjectId, webhookId: WebhookId, deliveryId: DeliveryId, now: number) =>
      sql`
        WITH delivery AS (
          UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${iso(now)}, updated_at = ${iso(now)}
          WHERE id = ${deliveryId} AND webhook_id = ${webhookId} AND project_id = ${projectId}
          RETURNING id, project_id
        ), job AS (
          INSERT INTO jobs (kind, project_id, payload, run_at)
          SELECT 'webhook_delivery', project_id, jsonb_build_object('delivery_id', id, 'once', true), ${iso(now)}
          FROM delivery
        )
        SELECT id FROM delivery`.pipe(Rows.some)

    return { insert, list, remove, rotateSecret, exists, deliveries, target, recordAttempt, redeliver }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
