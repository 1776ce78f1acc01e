import { Schema } from "effect"
import { EventKinds } from "./Events.ts"
import { OneOf, optional, RequiredText } from "./Fields.ts"

const bodyMustBeObject = { message: () => ({ message: "request body must be a JSON object", override: false }) }

export const EventKind = OneOf("each event", EventKinds)

const EventList = Schema.Array(EventKind).annotations({
  message: () => ({ message: "events must be an array of event names", override: false })
}).pipe(Schema.filter((events) => events.length > 0 || "events must name at least one event"))

export const CreateWebhookInput = Schema.Struct({
  url: RequiredText("url", 2048),
  events: optional(EventList),
  secret: optional(RequiredText("secret", 255).pipe(
    Schema.filter((s) => s.length >= 16 || "secret must be at least 16 characters")
  ))
}).annotations({ ...bodyMustBeObject, identifier: "CreateWebhookInput" })
export type CreateWebhookInput = typeof CreateWebhookInput.Type

export const WebhookCreated = Schema.Struct({
  webhook_id: Schema.UUID,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  secret: Schema.String
})

export const WebhookSummary = Schema.Struct({
  webhook_id: Schema.UUID,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  created_at: Schema.String
})
export const WebhookList = Schema.Struct({ webhooks: Schema.Array(WebhookSummary) })

export const Delivery = Schema.Struct({
  delivery_id: Schema.UUID,
  event: Schema.String,
  status: Schema.Literal("pending", "delivered", "failed"),
  attempts: Schema.Number,
  last_status_code: Schema.NullOr(Schema.Number),
  last_error: Schema.NullOr(Schema.String),
  next_attempt_at: Schema.NullOr(Schema.String),
  created_at: Schema.String
}).annotations({ identifier: "Delivery" })
export type Delivery = typeof Delivery.Type
export const DeliveryList = Schema.Struct({ deliveries: Schema.Array(Delivery) })

export const RedeliveryAccepted = Schema.Struct({ delivery_id: Schema.UUID, status: Schema.Literal("pending") })
export const SecretRotated = Schema.Struct({ secret: Schema.String })
