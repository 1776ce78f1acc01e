import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { DeliveryId, ProjectId, WebhookId } from "../Domain/Ids.ts"
import { Webhooks } from "./Webhooks.ts"

export const WebhooksHttpLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.map(Effect.service(Webhooks), (webhooks) =>
    handlers
      .handle("register", ({ params, payload }) => webhooks.register(ProjectId.make(params.pid), payload))
      .handle("list", ({ params }) => webhooks.list(ProjectId.make(params.pid)))
      .handle("update", ({ params, payload }) =>
        webhooks.update(ProjectId.make(params.pid), WebhookId.make(params.webhook_id), payload))
      .handle("enable", ({ params }) => webhooks.enable(ProjectId.make(params.pid), WebhookId.make(params.webhook_id)))
      .handle("replay", ({ params, payload }) =>
        webhooks.replay(ProjectId.make(params.pid), WebhookId.make(params.webhook_id), payload))
      .handle("replays", ({ params }) => webhooks.replays(ProjectId.make(params.pid), WebhookId.make(params.webhook_id)))
      .handle("remove", ({ params }) => webhooks.remove(ProjectId.make(params.pid), WebhookId.make(params.webhook_id)))
      .handle("deliveries", ({ params }) =>
        webhooks.deliveries(ProjectId.make(params.pid), WebhookId.make(params.webhook_id)))
      .handle("redeliver", ({ params }) =>
        webhooks.redeliver(
          ProjectId.make(params.pid),
          WebhookId.make(params.webhook_id),
          DeliveryId.make(params.delivery_id)
        ))
      .handle("rotateSecret", ({ params, payload }) =>
        webhooks.rotateSecret(ProjectId.make(params.pid), WebhookId.make(params.webhook_id), payload))))
