import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { AdminAuth } from "../Auth/Api.ts"
import { AuditPage, AuditQuery } from "../Domain/Audit.ts"
import { InternalError, ValidationError } from "../Domain/Errors.ts"

/** The operator's audit log: who changed what, when and from where. */
export class AuditApi extends HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("list", "/v1/admin/audit-log", {
      query: AuditQuery,
      success: AuditPage,
      error: [ValidationError.wire, InternalError.wire]
    }).annotate(
      OpenApi.Description,
      "Every operator action that changed something (keys, endpoints, replays, merges, erasures, settings, SLA policies, replies…), through the operator API or the CLI, newest first: who (`agent` with its `agent_email` when the call named one by `X-Agent-Email` or as a reply's author, else `cli` or `admin_token`), when, what (`action`, the ids it named in `target`, the status answered) and from where. Filters: project_id, action, actor, agent_email, since, until (ISO 8601). Append-only: nothing changes or removes an entry."
    )
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: audit log")
  .annotate(OpenApi.Description, "Who did what through the operator API and the CLI") {}
