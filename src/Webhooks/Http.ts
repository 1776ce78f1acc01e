import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Webhooks } from "./Webhooks.ts"

export const WebhooksHttpLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.map(Effect.service(Webhooks), (webhooks) =>
    handlers
      .handle("register", ({ params, payload }) => webhooks.register(params.pid, payload))
      .handle("list", ({ params }) => webhooks.list(params.pid))
      .handle("remove", ({ params }) => webhooks.remove(params.pid, params.webhook_id))
      .handle("deliveries", ({ params }) => webhooks.deliveries(params.pid, params.webhook_id))
      .handle("redeliver", ({ params }) => webhooks.redeliver(params.pid, params.webhook_id, params.delivery_id))
      .handle("rotateSecret", ({ params }) => webhooks.rotateSecret(params.pid, params.webhook_id))))
