import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { DeliveryId, pathParam, ProjectId, WebhookId } from "../Domain/Ids.ts"
import {
  CreateWebhookInput,
  DeliveryList,
  RedeliveryAccepted,
  SecretRotated,
  WebhookCreated,
  WebhookList
} from "../Domain/Webhook.ts"
import { AdminAuth } from "../Auth/Api.ts"

const ProjectPath = { pid: pathParam(ProjectId) }
const WebhookPath = { ...ProjectPath, webhook_id: pathParam(WebhookId) }
const DeliveryPath = { ...WebhookPath, delivery_id: pathParam(DeliveryId) }
const base = "/v1/admin/projects/:pid/webhooks"
const error = [ValidationError.wire, NotFound.wire, PayloadTooLarge.wire, InternalError.wire]

/** The operator's webhook endpoints: registration, secrets and the deliveries log. */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("register", base, {
      params: ProjectPath,
      payload: CreateWebhookInput,
      success: WebhookCreated.pipe(HttpApiSchema.status(201)),
      error
    }),
    HttpApiEndpoint.get("list", base, { params: ProjectPath, success: WebhookList, error }),
    HttpApiEndpoint.delete("remove", `${base}/:webhook_id`, { params: WebhookPath, success: HttpApiSchema.NoContent, error }),
    HttpApiEndpoint.get("deliveries", `${base}/:webhook_id/deliveries`, { params: WebhookPath, success: DeliveryList, error }),
    HttpApiEndpoint.post("redeliver", `${base}/:webhook_id/deliveries/:delivery_id/redeliver`, {
      params: DeliveryPath,
      success: RedeliveryAccepted.pipe(HttpApiSchema.status(202)),
      error
    }),
    HttpApiEndpoint.post("rotateSecret", `${base}/:webhook_id/rotate-secret`, {
      params: WebhookPath,
      success: SecretRotated,
      error
    })
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: webhooks")
  .annotate(OpenApi.Description, "Signed event deliveries with retries after 1, 5 and 30 minutes") {}
