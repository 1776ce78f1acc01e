import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CreateRuleInput, RuleCreated, RuleList, RuleRunList } from "../Domain/Automation.ts"
import { InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { pathParam, ProjectId, RuleId } from "../Domain/Ids.ts"
import { AdminAuth } from "../Auth/Api.ts"

const ProjectPath = { pid: pathParam(ProjectId) }
const RulePath = { ...ProjectPath, rule_id: pathParam(RuleId) }
const base = "/v1/admin/projects/:pid/automation-rules"
const error = [ValidationError.wire, NotFound.wire, PayloadTooLarge.wire, InternalError.wire]

export class AutomationApi extends HttpApiGroup.make("automation")
  .add(
    HttpApiEndpoint.post("create", base, {
      params: ProjectPath,
      payload: CreateRuleInput,
      success: RuleCreated.pipe(HttpApiSchema.status(201)),
      error
    }),
    HttpApiEndpoint.get("list", base, { params: ProjectPath, success: RuleList, error }),
    HttpApiEndpoint.get("runs", `${base}/:rule_id/runs`, { params: RulePath, success: RuleRunList, error })
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: automation rules")
  .annotate(OpenApi.Description, "Rules that change a ticket when one of the five events fires; every run is recorded") {}
