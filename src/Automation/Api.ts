import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { CreateRuleInput, RuleCreated, RuleList, RuleRunList } from "../Domain/Automation.ts"
import { NotFoundWire, ValidationErrorWire } from "../Domain/Errors.ts"
import { AdminAuth } from "../Http/Security.ts"

const ProjectPath = Schema.Struct({ pid: Schema.String })
const RulePath = Schema.Struct({ pid: Schema.String, rule_id: Schema.String })
const base = "/v1/admin/projects/:pid/automation-rules"

export class AutomationApi extends HttpApiGroup.make("automation")
  .add(
    HttpApiEndpoint.post("create", base)
      .setPath(ProjectPath)
      .setPayload(CreateRuleInput)
      .addSuccess(RuleCreated, { status: 201 })
  )
  .add(HttpApiEndpoint.get("list", base).setPath(ProjectPath).addSuccess(RuleList))
  .add(HttpApiEndpoint.get("runs", `${base}/:rule_id/runs`).setPath(RulePath).addSuccess(RuleRunList))
  .addError(ValidationErrorWire)
  .addError(NotFoundWire)
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: automation rules")
  .annotate(OpenApi.Description, "Rules that change a ticket when one of the five events fires; every run is recorded") {}
