import { Schema } from "effect"
import { EventKinds } from "./Events.ts"
import { IsoTimestamp, OneOf, optional, RequiredText, Uuid } from "./Fields.ts"

// `[]` stands for the index of the item, which the error envelope fills in from the path
export const EventKind = OneOf("events[]", EventKinds)

const EventList = Schema.Array(EventKind).annotate({ message: "events must be an array of event names" }).pipe(
  Schema.check(Schema.makeFilter((events) => events.length > 0 || "events must name at least one event"))
)

/** `default`: the spec's 1m, 5m, 30m; `extended`: about three days, as Standard Webhooks' schedule. */
export const RetrySchedules = ["default", "extended"] as const
export const RetrySchedule = OneOf("retry_schedule", RetrySchedules)
export type RetrySchedule = typeof RetrySchedule.Type

const maxPerSecondRule = "max_per_second must be an integer from 1 to 10000, or null for no limit"
const MaxPerSecond = Schema.NullOr(
  Schema.Finite.annotate({ message: maxPerSecondRule }).check(
    Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= 1 && n <= 10_000) || maxPerSecondRule)
  )
).annotate({ message: maxPerSecondRule })

export const CreateWebhookInput = Schema.Struct({
  url: RequiredText("url", 2048),
  events: optional(EventList),
  secret: optional(RequiredText("secret", 255).pipe(
    Schema.check(Schema.makeFilter((s: string) => s.length >= 16 || "secret must be at least 16 characters"))
  )),
  retry_schedule: optional(RetrySchedule),
  max_per_second: optional(MaxPerSecond)
}).annotate({ message: "request body must be a JSON object", identifier: "CreateWebhookInput" })
export type CreateWebhookInput = typeof CreateWebhookInput.Type

/** What an endpoint's owner may change in place; what is left out stays as it is. */
export const UpdateWebhookInput = Schema.Struct({
  events: optional(EventList),
  retry_schedule: optional(RetrySchedule),
  max_per_second: optional(MaxPerSecond)
}).annotate({ message: "request body must be a JSON object", identifier: "UpdateWebhookInput" })
export type UpdateWebhookInput = typeof UpdateWebhookInput.Type

export const WebhookCreated = Schema.Struct({
  webhook_id: Uuid,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  secret: Schema.String,
  retry_schedule: RetrySchedule,
  max_per_second: Schema.NullOr(Schema.Int)
})

export const WebhookSummary = Schema.Struct({
  webhook_id: Uuid,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  retry_schedule: RetrySchedule,
  /** deliveries a second at most; null for no limit */
  max_per_second: Schema.NullOr(Schema.Int),
  /** `disabled` after a `410` or after failing for WEBHOOK_DISABLE_AFTER; `enable` turns it back on */
  status: Schema.Literals(["enabled", "disabled"]),
  disabled_at: Schema.NullOr(Schema.String),
  disabled_reason: Schema.NullOr(Schema.String),
  /** the first failed attempt since the last success; null while deliveries get through */
  failing_since: Schema.NullOr(Schema.String),
  /** until when the secret rotated out still signs beside the current one */
  previous_secret_expires_at: Schema.NullOr(Schema.String),
  created_at: Schema.String
}).annotate({ identifier: "WebhookSummary" })
export type WebhookSummary = typeof WebhookSummary.Type
export const WebhookList = Schema.Struct({ webhooks: Schema.Array(WebhookSummary) })

/** Which deliveries of a time range to send again, oldest first. */
export const ReplayInput = Schema.Struct({
  since: IsoTimestamp("since"),
  until: optional(IsoTimestamp("until")),
  /** `failed` (the default): only those that never got through; `all`: delivered ones too */
  only: optional(OneOf("only", ["failed", "all"]))
}).annotate({ message: "request body must be a JSON object", identifier: "ReplayInput" })
export type ReplayInput = typeof ReplayInput.Type

export const Replay = Schema.Struct({
  replay_id: Uuid,
  webhook_id: Uuid,
  since: Schema.String,
  until: Schema.String,
  only: Schema.Literals(["failed", "all"]),
  /** `running` while deliveries are sent, one after the other; `done` once each had its attempt */
  status: Schema.Literals(["running", "done"]),
  total: Schema.Int,
  delivered: Schema.Int,
  failed: Schema.Int,
  created_at: Schema.String,
  finished_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "Replay" })
export type Replay = typeof Replay.Type
export const ReplayList = Schema.Struct({ replays: Schema.Array(Replay) })

/** How long the secret being replaced keeps signing beside the new one. */
export const RotateSecretInput = Schema.Struct({
  overlap_minutes: optional(Schema.Finite.annotate({ message: "overlap_minutes must be an integer from 0 to 10080 (a week)" }).check(
    Schema.makeFilter((n: number) =>
      (Number.isInteger(n) && n >= 0 && n <= 10_080) || "overlap_minutes must be an integer from 0 to 10080 (a week)"
    )
  ))
}).annotate({ message: "request body must be a JSON object", identifier: "RotateSecretInput" })
export type RotateSecretInput = typeof RotateSecretInput.Type

export const DeliveryStatus = Schema.Literals(["pending", "delivered", "failed"])
export type DeliveryStatus = typeof DeliveryStatus.Type

export const Delivery = Schema.Struct({
  delivery_id: Uuid,
  event: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Number,
  last_status_code: Schema.NullOr(Schema.Number),
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Schema.NullOr(Schema.String),
  /** the replay that sent it again, if one did */
  replay_id: Schema.NullOr(Uuid),
  created_at: Schema.String
}).annotate({ identifier: "Delivery" })
export type Delivery = typeof Delivery.Type
export const DeliveryList = Schema.Struct({ deliveries: Schema.Array(Delivery) })

export const RedeliveryAccepted = Schema.Struct({ delivery_id: Uuid, status: Schema.Literal("pending") })
export const SecretRotated = Schema.Struct({
  secret: Schema.String,
  /** the old secret signs beside the new one until then; null when it stopped at once */
  previous_secret_expires_at: Schema.NullOr(Schema.String)
})
