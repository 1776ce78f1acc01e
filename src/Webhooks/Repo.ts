import { Context, Effect, Layer, Option, Schema, SchemaGetter } from "effect"
import { SqlClient } from "effect/sql"
import * as Grouped from "../Database/Grouped.ts"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow, TimestampFromRow } from "../Domain/Fields.ts"
import { EventKinds } from "../Domain/Events.ts"
import type { NewJob } from "../Domain/Jobs.ts"
import { type Delivery, DeliveryStatus, type Replay, RetrySchedule, type WebhookSummary } from "../Domain/Webhook.ts"
import * as Outbox from "../Jobs/Outbox.ts"
import { type DeliveryId, DeliveryIdFromRow, type ProjectId, type WebhookId, WebhookIdFromRow } from "../Domain/Ids.ts"

const WebhookRow = Schema.Struct({
  webhook_id: WebhookIdFromRow,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  retry_schedule: RetrySchedule,
  max_per_second: Schema.NullOr(IntFromRow),
  status: Schema.Literals(["enabled", "disabled"]),
  disabled_at: Schema.NullOr(TimestampFromRow),
  disabled_reason: Schema.NullOr(Schema.String),
  failing_since: Schema.NullOr(TimestampFromRow),
  previous_secret_expires_at: Schema.NullOr(TimestampFromRow),
  created_at: TimestampFromRow
})

const ReplayRow = Schema.Struct({
  replay_id: Schema.String,
  webhook_id: Schema.String,
  since: TimestampFromRow,
  until: TimestampFromRow,
  only: Schema.Literals(["failed", "all"]),
  status: Schema.Literals(["running", "done"]),
  total: IntFromRow,
  delivered: IntFromRow,
  failed: IntFromRow,
  created_at: TimestampFromRow,
  finished_at: Schema.NullOr(TimestampFromRow)
})

const DeliveryRow = Schema.Struct({
  delivery_id: DeliveryIdFromRow,
  event: Schema.String,
  status: DeliveryStatus,
  attempts: IntFromRow,
  last_status_code: Schema.NullOr(IntFromRow),
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Schema.NullOr(TimestampFromRow),
  replay_id: Schema.NullOr(Schema.String),
  created_at: TimestampFromRow
})

const Millis = Schema.NullOr(Schema.Union([Schema.Number, Schema.String]).pipe(
  Schema.decodeTo(Schema.Number, { decode: SchemaGetter.transform(Number), encode: SchemaGetter.transform(String) })
))

/**
 * One delivery with what an attempt needs: its endpoint's current URL, secrets and schedule, and
 * its health (times in epoch milliseconds, which the Clock compares).
 */
const TargetRow = Schema.Struct({
  id: Schema.String,
  event: Schema.String,
  body: Schema.String,
  status: DeliveryStatus,
  webhook_id: Schema.String,
  project_id: Schema.String,
  url: Schema.String,
  secret: Schema.String,
  previous_secret: Schema.NullOr(Schema.String),
  previous_secret_until: Millis,
  retry_schedule: RetrySchedule,
  max_per_second: Schema.NullOr(IntFromRow),
  disabled: Schema.Boolean,
  failing_since: Millis
})
export type DeliveryTarget = typeof TargetRow.Type

const iso = (millis: number) => new Date(millis).toISOString()

/** An endpoint as registered. */
export interface NewEndpoint {
  readonly url: string
  readonly events: ReadonlyArray<string> | "all"
  readonly secret: string
  readonly retrySchedule: RetrySchedule
  readonly maxPerSecond: number | null
}

/** A change of an endpoint: what is undefined stays. */
export interface EndpointChange {
  readonly events?: ReadonlyArray<string> | "all" | undefined
  readonly retrySchedule?: RetrySchedule | undefined
  readonly maxPerSecond?: number | null | undefined
}

export interface NewReplay {
  readonly id: string
  readonly projectId: ProjectId
  readonly webhookId: WebhookId
  readonly since: number
  readonly until: number
  readonly onlyFailed: boolean
  readonly now: number
}

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

    // what the operator API shows of an endpoint; the rotated-out secret's end only while it signs
    const summary = (now: number) =>
      sql`id AS webhook_id, url, ${subscribed}, retry_schedule, max_per_second,
        CASE WHEN disabled_at IS NULL THEN 'enabled' ELSE 'disabled' END AS status, disabled_at, disabled_reason,
        failing_since, CASE WHEN previous_secret_until > ${iso(now)}::timestamptz THEN previous_secret_until END
          AS previous_secret_expires_at, created_at`

    /** `events` "all" subscribes the endpoint to every event, those added later included. */
    const insert = (projectId: ProjectId, endpoint: NewEndpoint, now: number) =>
      sql`
        INSERT INTO webhooks (project_id, url, events, all_events, secret, retry_schedule, max_per_second)
        VALUES (${projectId}, ${endpoint.url}, ${eventArray(endpoint.events)}, ${endpoint.events === "all"},
          ${endpoint.secret}, ${endpoint.retrySchedule}, ${endpoint.maxPerSecond})
        RETURNING ${summary(now)}`.pipe(Rows.single(WebhookRow))

    const eventArray = (events: ReadonlyArray<string> | "all") =>
      sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(events === "all" ? EventKinds : events)}::jsonb))`

    const list = (projectId: ProjectId, now: number) =>
      sql`SELECT ${summary(now)} FROM webhooks
          WHERE project_id = ${projectId} ORDER BY created_at, id`.pipe(
        Rows.all(WebhookRow),
        Effect.map((rows): ReadonlyArray<WebhookSummary> => rows)
      )

    /** Changes what is given, leaves the rest; none when the project has no such endpoint. */
    const update = (projectId: ProjectId, webhookId: WebhookId, change: EndpointChange, now: number) =>
      sql`
        UPDATE webhooks SET
          events = ${change.events === undefined ? sql`events` : eventArray(change.events)},
          all_events = ${change.events === undefined ? sql`all_events` : sql`${change.events === "all"}`},
          retry_schedule = ${change.retrySchedule === undefined ? sql`retry_schedule` : sql`${change.retrySchedule}`},
          max_per_second = ${change.maxPerSecond === undefined ? sql`max_per_second` : sql`${change.maxPerSecond}::int`}
        WHERE id = ${webhookId} AND project_id = ${projectId}
        RETURNING ${summary(now)}`.pipe(Rows.first(WebhookRow))

    /** Takes deliveries again, as a healthy endpoint with no failures behind it. */
    const enable = (projectId: ProjectId, webhookId: WebhookId, now: number) =>
      sql`
        UPDATE webhooks SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
        WHERE id = ${webhookId} AND project_id = ${projectId}
        RETURNING ${summary(now)}`.pipe(Rows.first(WebhookRow))

    const remove = (projectId: ProjectId, webhookId: WebhookId) =>
      sql`DELETE FROM webhooks WHERE id = ${webhookId} AND project_id = ${projectId} RETURNING id`.pipe(Rows.some)

    /**
     * The new secret signs from now on; the one it replaces signs beside it until `previousUntil`
     * (none: it stops at once). A secret rotated out before stops: two at a time at most.
     */
    const rotateSecret = (projectId: ProjectId, webhookId: WebhookId, secret: string, previousUntil: number | null) =>
      sql`UPDATE webhooks SET previous_secret = ${previousUntil === null ? null : sql`secret`},
            previous_secret_until = ${previousUntil === null ? null : iso(previousUntil)}::timestamptz, secret = ${secret}
          WHERE id = ${webhookId} AND project_id = ${projectId} RETURNING id`
        .pipe(Rows.some)

    const exists = (projectId: ProjectId, webhookId: WebhookId) =>
      sql`SELECT id FROM webhooks WHERE id = ${webhookId} AND project_id = ${projectId}`.pipe(Rows.some)

    const deliveries = (webhookId: WebhookId, limit: number) =>
      sql`
        SELECT id AS delivery_id, event, status, attempts, last_status_code, last_error, next_attempt_at, replay_id,
          created_at
        FROM webhook_deliveries WHERE webhook_id = ${webhookId}
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(
        Rows.all(DeliveryRow),
        Effect.map((rows): ReadonlyArray<Delivery> => rows)
      )

    const epochMillis = (column: string) => sql.literal(`(extract(epoch FROM ${column}) * 1000)::float8`)
    const targetSelect = sql`
      SELECT d.id, d.event, d.body, d.status, w.id AS webhook_id, w.project_id, w.url, w.secret, w.previous_secret,
        ${epochMillis("w.previous_secret_until")} AS previous_secret_until, w.retry_schedule, w.max_per_second,
        w.disabled_at IS NOT NULL AS disabled, ${epochMillis("w.failing_since")} AS failing_since
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

    /**
     * One attempt's place in the endpoint's budget for the second `second` (unix seconds), shared
     * by every instance through the row; false when the second's budget is spent.
     */
    const takeThrottleSlot = (webhookId: string, second: number) =>
      sql`UPDATE webhooks SET throttle_second = ${second},
            throttle_count = CASE WHEN throttle_second = ${second} THEN throttle_count + 1 ELSE 1 END
          WHERE id = ${webhookId}
            AND (throttle_second IS DISTINCT FROM ${second} OR max_per_second IS NULL OR throttle_count < max_per_second)
          RETURNING id`.pipe(Rows.some)

    /** The first failure since the last success starts the clock that disables the endpoint. */
    const markFailing = (webhookId: string, now: number) =>
      sql`UPDATE webhooks SET failing_since = ${iso(now)} WHERE id = ${webhookId} AND failing_since IS NULL`.pipe(Rows.run)

    /** A success stops that clock. */
    const markHealthy = (webhookId: string) =>
      sql`UPDATE webhooks SET failing_since = NULL WHERE id = ${webhookId} AND failing_since IS NOT NULL`.pipe(Rows.run)

    /**
     * Disables the endpoint and writes what tells of it (its event, the operators' mail) in one
     * transaction; false, writing nothing, when it was disabled already: told once, however many
     * attempts or instances found it failing.
     */
    const disable = (webhookId: string, reason: string, now: number, jobs: ReadonlyArray<NewJob>) =>
      sql`
        WITH disabled AS (
          UPDATE webhooks SET disabled_at = ${iso(now)}, disabled_reason = ${reason}
          WHERE id = ${webhookId} AND disabled_at IS NULL
          RETURNING id
        )
        SELECT id FROM disabled`.pipe(
        Rows.some,
        Effect.tap((disabled) => disabled ? Outbox.enqueue(sql, jobs) : Effect.void),
        Rows.transaction(sql)
      )

    const replayColumns = sql`id AS replay_id, webhook_id, since, until,
      CASE WHEN only_failed THEN 'failed' ELSE 'all' END AS only, status, total, delivered, failed, created_at, finished_at`

    /**
     * Marks the deliveries of the range pending under a new replay, oldest first, and writes the
     * job that sends them one after the other; a range with none is a replay done at once.
     */
    const startReplay = (replay: NewReplay) =>
      sql`
        WITH marked AS (
          UPDATE webhook_deliveries SET replay_id = ${replay.id}, status = 'pending', next_attempt_at = ${iso(replay.now)},
            updated_at = ${iso(replay.now)}
          WHERE webhook_id = ${replay.webhookId} AND created_at >= ${iso(replay.since)} AND created_at < ${iso(replay.until)}
            AND (status = 'failed' OR (${!replay.onlyFailed} AND status = 'delivered'))
          RETURNING id
        ), replay AS (
          INSERT INTO webhook_replays (id, webhook_id, project_id, since, until, only_failed, status, total, created_at,
            finished_at)
          SELECT ${replay.id}, ${replay.webhookId}, ${replay.projectId}, ${iso(replay.since)}, ${iso(replay.until)},
            ${replay.onlyFailed}, CASE WHEN count(*) = 0 THEN 'done' ELSE 'running' END, count(*), ${iso(replay.now)},
            CASE WHEN count(*) = 0 THEN ${iso(replay.now)}::timestamptz END
          FROM marked
          RETURNING *
        ), job AS (
          INSERT INTO jobs (kind, project_id, payload, run_at)
          SELECT 'webhook_replay', project_id, jsonb_build_object('replay_id', id), ${iso(replay.now)}
          FROM replay WHERE status = 'running'
        )
        SELECT ${replayColumns} FROM replay`.pipe(Rows.single(ReplayRow), Effect.map((row): Replay => row))

    const replays = (webhookId: WebhookId, limit: number) =>
      sql`SELECT ${replayColumns} FROM webhook_replays WHERE webhook_id = ${webhookId}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(
        Rows.all(ReplayRow),
        Effect.map((rows): ReadonlyArray<Replay> => rows)
      )

    /** The next deliveries a replay sends, oldest first, with their endpoint. */
    const replayNext = (replayId: string, limit: number) =>
      sql`${targetSelect} WHERE d.replay_id = ${replayId} AND d.status = 'pending'
          ORDER BY d.created_at, d.id LIMIT ${limit}`.pipe(Rows.all(TargetRow))

    /** Counts a replayed delivery's outcome; the replay is done with its last one. */
    const countReplayed = (replayId: string, delivered: boolean, now: number) =>
      sql`UPDATE webhook_replays SET delivered = delivered + ${delivered ? 1 : 0}, failed = failed + ${delivered ? 0 : 1},
            status = CASE WHEN delivered + failed + 1 >= total THEN 'done' ELSE status END,
            finished_at = CASE WHEN delivered + failed + 1 >= total THEN ${iso(now)}::timestamptz ELSE finished_at END
          WHERE id = ${replayId}`.pipe(Rows.run)

    /** The replay's next run, for the deliveries after those this run sent. */
    const continueReplay = (projectId: string, replayId: string, now: number) =>
      sql`INSERT INTO jobs (kind, project_id, payload, run_at)
          VALUES ('webhook_replay', ${projectId}, ${JSON.stringify({ replay_id: replayId })}::jsonb, ${iso(now)})`
        .pipe(Rows.run)

    /** Ends a replay whose endpoint went away or was disabled: what it had not sent stays failed. */
    const abandonReplay = (replayId: string, reason: string, now: number) =>
      sql`
        WITH left_over AS (
          UPDATE webhook_deliveries SET status = 'failed', last_error = ${reason}, next_attempt_at = NULL,
            updated_at = ${iso(now)}
          WHERE replay_id = ${replayId} AND status = 'pending'
          RETURNING id
        )
        UPDATE webhook_replays SET failed = failed + (SELECT count(*) FROM left_over), status = 'done',
          finished_at = ${iso(now)}
        WHERE id = ${replayId}`.pipe(Rows.run)

    /** The project's agents' addresses: who hears that an endpoint was disabled. */
    const operatorAddresses = (projectId: string) =>
      sql`SELECT email FROM agents WHERE project_id = ${projectId} ORDER BY created_at, id`.pipe(
        Rows.all(Schema.Struct({ email: Schema.String })),
        Effect.map((rows) => rows.map((row) => row.email))
      )

    /** An endpoint's URL and state for the mail about it; none once it is deleted. */
    const endpoint = (webhookId: string) =>
      sql`SELECT url, disabled_reason, disabled_at IS NOT NULL AS disabled FROM webhooks WHERE id = ${webhookId}`.pipe(
        Rows.first(Schema.Struct({ url: Schema.String, disabled_reason: Schema.NullOr(Schema.String), disabled: Schema.Boolean }))
      )

    const isDisabled = (projectId: ProjectId, webhookId: WebhookId) =>
      sql`SELECT id FROM webhooks WHERE id = ${webhookId} AND project_id = ${projectId} AND disabled_at IS NOT NULL`
        .pipe(Rows.some)

    return {
      insert,
      list,
      update,
      enable,
      remove,
      rotateSecret,
      exists,
      isDisabled,
      deliveries,
      target,
      recordAttempt,
      redeliver,
      takeThrottleSlot,
      markFailing,
      markHealthy,
      disable,
      startReplay,
      replays,
      replayNext,
      countReplayed,
      continueReplay,
      abandonReplay,
      operatorAddresses,
      endpoint
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
