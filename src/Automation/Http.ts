import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Automation } from "./Automation.ts"

export const AutomationHttpLive = HttpApiBuilder.group(Api, "automation", (handlers) =>
  Effect.map(Effect.service(Automation), (automation) =>
    handlers
      .handle("create", ({ params, payload }) => automation.create(params.pid, payload))
      .handle("list", ({ params }) => automation.list(params.pid))
      .handle("runs", ({ params }) => automation.runs(params.pid, params.rule_id))))
