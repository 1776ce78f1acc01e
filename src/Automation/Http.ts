import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Automation } from "./Automation.ts"

export const AutomationHttpLive = HttpApiBuilder.group(Api, "automation", (handlers) =>
  Effect.map(Automation, (automation) =>
    handlers
      .handle("create", ({ path, payload }) => automation.create(path.pid, payload))
      .handle("list", ({ path }) => automation.list(path.pid))
      .handle("runs", ({ path }) => automation.runs(path.pid, path.rule_id))))
