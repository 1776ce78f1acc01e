import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Webhooks } from "./Webhooks.ts"

export const WebhooksHttpLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.map(Webhooks, (webhooks) =>
    handlers
      .handle("register", ({ path, payload }) => webhooks.register(path.pid, payload))
      .handle("list", ({ path }) => webhooks.list(path.pid))
      .handle("remove", ({ path }) => webhooks.remove(path.pid, path.webhook_id))
      .handle("deliveries", ({ path }) => webhooks.deliveries(path.pid, path.webhook_id))
      .handle("redeliver", ({ path }) => webhooks.redeliver(path.pid, path.webhook_id, path.delivery_id))
      .handle("rotateSecret", ({ path }) => webhooks.rotateSecret(path.pid, path.webhook_id))))
