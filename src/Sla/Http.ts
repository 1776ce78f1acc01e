import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { ProjectId, SlaPolicyId } from "../Domain/Ids.ts"
import { Sla } from "./Sla.ts"

export const SlaHttpLive = HttpApiBuilder.group(Api, "sla", (handlers) =>
  Effect.map(Effect.service(Sla), (sla) =>
    handlers
      .handle("getHours", ({ params }) => sla.getHours(ProjectId.make(params.pid)))
      .handle("putHours", ({ params, payload }) => sla.putHours(ProjectId.make(params.pid), payload))
      .handle("create", ({ params, payload }) => sla.create(ProjectId.make(params.pid), payload))
      .handle("list", ({ params }) => sla.list(ProjectId.make(params.pid)))
      .handle("order", ({ params, payload }) => sla.order(ProjectId.make(params.pid), payload))
      .handle("get", ({ params }) => sla.get(ProjectId.make(params.pid), SlaPolicyId.make(params.policy_id)))
      .handle("update", ({ params, payload }) =>
        sla.update(ProjectId.make(params.pid), SlaPolicyId.make(params.policy_id), payload))
      .handle("remove", ({ params }) => sla.remove(ProjectId.make(params.pid), SlaPolicyId.make(params.policy_id)))))
