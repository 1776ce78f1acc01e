import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Conflict, InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { DeliveryId, pathParam, ProjectId, WebhookId } from "../Domain/Ids.ts"
import {
  CreateWebhookInput,
  DeliveryList,
  RedeliveryAccepted,
  Replay,
  ReplayInput,
  ReplayList,
  RotateSecretInput,
  SecretRotated,
  UpdateWebhookInput,
  WebhookCreated,
  WebhookList,
  WebhookSummary
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
    HttpApiEndpoint.patch("update", `${base}/:webhook_id`, {
      params: WebhookPath,
      payload: UpdateWebhookInput,
      success: WebhookSummary,
      error
    }).annotate(
      OpenApi.Description,
      "Changes the events, the retry schedule (`default`: 1m, 5m, 30m; `extended`: about three days) or the deliveries a second (`max_per_second`, null for no limit); what is left out stays."
    ),
    HttpApiEndpoint.post("enable", `${base}/:webhook_id/enable`, { params: WebhookPath, success: WebhookSummary, error })
      .annotate(
        OpenApi.Description,
        "Turns a disabled endpoint back on (one disabled by a `410 Gone`, or after failing for WEBHOOK_DISABLE_AFTER). What it missed stays in its log as failed, for a replay."
      ),
    HttpApiEndpoint.delete("remove", `${base}/:webhook_id`, { params: WebhookPath, success: HttpApiSchema.NoContent, error }),
    HttpApiEndpoint.get("deliveries", `${base}/:webhook_id/deliveries`, { params: WebhookPath, success: DeliveryList, error }),
    HttpApiEndpoint.post("redeliver", `${base}/:webhook_id/deliveries/:delivery_id/redeliver`, {
      params: DeliveryPath,
      success: RedeliveryAccepted.pipe(HttpApiSchema.status(202)),
      error: [...error, Conflict.wire]
    }),
    HttpApiEndpoint.post("replay", `${base}/:webhook_id/replays`, {
      params: WebhookPath,
      payload: ReplayInput,
      success: Replay.pipe(HttpApiSchema.status(202)),
      error: [...error, Conflict.wire]
    }).annotate(
      OpenApi.Description,
      "Sends again the failed (or, with `only: all`, every) deliveries created from `since` until `until` (default: now), oldest first and one at a time, each with one attempt under its own delivery id. They show as `pending` with the replay's id in the deliveries log until sent; 409 while the endpoint is disabled."
    ),
    HttpApiEndpoint.get("replays", `${base}/:webhook_id/replays`, { params: WebhookPath, success: ReplayList, error }),
    HttpApiEndpoint.post("rotateSecret", `${base}/:webhook_id/rotate-secret`, {
      params: WebhookPath,
      payload: Schema.UndefinedOr(RotateSecretInput),
      success: SecretRotated,
      error
    }).annotate(
      OpenApi.Description,
      "A new secret signs every later attempt. The one it replaces keeps signing beside it for `overlap_minutes` (default WEBHOOK_SECRET_OVERLAP, 24 h; 0 stops it at once): `webhook-signature` then carries both signatures, `X-Service-Signature` the new one."
    )
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: webhooks")
  .annotate(OpenApi.Description, "Signed event deliveries with retries after 1, 5 and 30 minutes") {}
