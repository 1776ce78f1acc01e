import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuth } from "../Auth/Api.ts"
import { BusinessHours } from "../Domain/BusinessHours.ts"
import { InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { pathParam, ProjectId, SlaPolicyId } from "../Domain/Ids.ts"
import { CreatePolicyInput, Policy, PolicyList, PolicyOrderInput, UpdatePolicyInput } from "../Domain/Sla.ts"

const ProjectPath = { pid: pathParam(ProjectId) }
const PolicyPath = { ...ProjectPath, policy_id: pathParam(SlaPolicyId) }
const base = "/v1/admin/projects/:pid/sla-policies"
const error = [ValidationError.wire, NotFound.wire, PayloadTooLarge.wire, InternalError.wire]

export class SlaApi extends HttpApiGroup.make("sla")
  .add(
    HttpApiEndpoint.get("getHours", "/v1/admin/projects/:pid/business-hours", { params: ProjectPath, success: BusinessHours, error }),
    HttpApiEndpoint.put("putHours", "/v1/admin/projects/:pid/business-hours", {
      params: ProjectPath,
      payload: BusinessHours,
      success: BusinessHours,
      error
    }),
    HttpApiEndpoint.post("create", base, {
      params: ProjectPath,
      payload: CreatePolicyInput,
      success: Policy.pipe(HttpApiSchema.status(201)),
      error
    }),
    HttpApiEndpoint.get("list", base, { params: ProjectPath, success: PolicyList, error }),
    // before `/:policy_id`, which would read "order" as an id
    HttpApiEndpoint.put("order", `${base}/order`, { params: ProjectPath, payload: PolicyOrderInput, success: PolicyList, error }),
    HttpApiEndpoint.get("get", `${base}/:policy_id`, { params: PolicyPath, success: Policy, error }),
    HttpApiEndpoint.patch("update", `${base}/:policy_id`, { params: PolicyPath, payload: UpdatePolicyInput, success: Policy, error }),
    HttpApiEndpoint.delete("remove", `${base}/:policy_id`, { params: PolicyPath, success: HttpApiSchema.NoContent, error })
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: service levels")
  .annotate(
    OpenApi.Description,
    "Business hours and SLA policies: the first policy (by position) whose conditions match a ticket sets its first-response and resolution due times"
  ) {}
