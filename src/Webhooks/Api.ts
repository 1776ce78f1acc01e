import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { NotFoundWire, ValidationErrorWire } from "../Domain/Errors.ts"
import {
  CreateWebhookInput,
  DeliveryList,
  RedeliveryAccepted,
  SecretRotated,
  WebhookCreated,
  WebhookList
} from "../Domain/Webhook.ts"
import { AdminAuth } from "../Http/Security.ts"

const ProjectPath = Schema.Struct({ pid: Schema.String })
const WebhookPath = Schema.Struct({ pid: Schema.String, webhook_id: Schema.String })
const DeliveryPath = Schema.Struct({ pid: Schema.String, webhook_id: Schema.String, delivery_id: Schema.String })
const base = "/v1/admin/projects/:pid/webhooks"

/** The operator's webhook endpoints: registration, secrets and the deliveries log. */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("register", base)
      .setPath(ProjectPath)
      .setPayload(CreateWebhookInput)
      .addSuccess(WebhookCreated, { status: 201 })
  )
  .add(HttpApiEndpoint.get("list", base).setPath(ProjectPath).addSuccess(WebhookList))
  .add(HttpApiEndpoint.del("remove", `${base}/:webhook_id`).setPath(WebhookPath).addSuccess(HttpApiSchema.NoContent))
  .add(HttpApiEndpoint.get("deliveries", `${base}/:webhook_id/deliveries`).setPath(WebhookPath).addSuccess(DeliveryList))
  .add(
    HttpApiEndpoint.post("redeliver", `${base}/:webhook_id/deliveries/:delivery_id/redeliver`)
      .setPath(DeliveryPath)
      .addSuccess(RedeliveryAccepted, { status: 202 })
  )
  .add(
    HttpApiEndpoint.post("rotateSecret", `${base}/:webhook_id/rotate-secret`)
      .setPath(WebhookPath)
      .addSuccess(SecretRotated)
  )
  .addError(ValidationErrorWire)
  .addError(NotFoundWire)
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: webhooks")
  .annotate(OpenApi.Description, "Signed event deliveries with retries after 1, 5 and 30 minutes") {}
