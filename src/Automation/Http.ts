import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { ProjectId, RuleId } from "../Domain/Ids.ts"
import { Automation } from "./Automation.ts"

export const AutomationHttpLive = HttpApiBuilder.group(Api, "automation", (handlers) =>
  Effect.map(Effect.service(Automation), (automation) =>
    handlers
      .handle("create", ({ params, payload }) => automation.create(ProjectId.make(params.pid), payload))
      .handle("list", ({ params }) => automation.list(ProjectId.make(params.pid)))
      .handle("runs", ({ params }) => automation.runs(ProjectId.make(params.pid), RuleId.make(params.rule_id)))))
