import { Schema } from "effect"
import { EventKinds } from "./Events.ts"
import { OneOf, optional, RequiredText, Uuid } from "./Fields.ts"

// `[]` stands for the index of the item, which the error envelope fills in from the path
export const EventKind = OneOf("events[]", EventKinds)

const EventList = Schema.Array(EventKind).annotate({ message: "events must be an array of event names" }).pipe(
  Schema.check(Schema.makeFilter((events) => events.length > 0 || "events must name at least one event"))
)

export const CreateWebhookInput = Schema.Struct({
  url: RequiredText("url", 2048),
  events: optional(EventList),
  secret: optional(RequiredText("secret", 255).pipe(
    Schema.check(Schema.makeFilter((s: string) => s.length >= 16 || "secret must be at least 16 characters"))
  ))
}).annotate({ message: "request body must be a JSON object", identifier: "CreateWebhookInput" })
export type CreateWebhookInput = typeof CreateWebhookInput.Type

export const WebhookCreated = Schema.Struct({
  webhook_id: Uuid,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  secret: Schema.String
})

export const WebhookSummary = Schema.Struct({
  webhook_id: Uuid,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  created_at: Schema.String
})
export type WebhookSummary = typeof WebhookSummary.Type
export const WebhookList = Schema.Struct({ webhooks: Schema.Array(WebhookSummary) })

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
  created_at: Schema.String
}).annotate({ identifier: "Delivery" })
export type Delivery = typeof Delivery.Type
export const DeliveryList = Schema.Struct({ deliveries: Schema.Array(Delivery) })

export const RedeliveryAccepted = Schema.Struct({ delivery_id: Uuid, status: Schema.Literal("pending") })
export const SecretRotated = Schema.Struct({ secret: Schema.String })
