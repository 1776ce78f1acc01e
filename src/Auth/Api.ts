import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Forbidden, RateLimited, Unauthorized } from "../Domain/Errors.ts"
import type { ProjectId } from "../Domain/Ids.ts"
import type { KeyScope } from "../Domain/Project.ts"

/** The API key of the request being served: its project bounds everything the request sees. */
export class CurrentKey extends Context.Service<CurrentKey, {
  readonly keyId: string
  readonly projectId: ProjectId
  readonly scope: KeyScope
}>()("app/Auth/CurrentKey") {}

/** `Authorization: Bearer tf_...`, then the per-key rate limit. */
export class ProjectAuth extends HttpApiMiddleware.Service<ProjectAuth, { provides: CurrentKey }>()("app/Auth/ProjectAuth", {
  error: [Unauthorized.wire, Forbidden.wire, RateLimited.wire],
  security: { bearer: HttpApiSecurity.bearer },
  requiredForClient: true
}) {}

/** `Authorization: Bearer <ADMIN_TOKEN>` for the operator API. */
export class AdminAuth extends HttpApiMiddleware.Service<AdminAuth>()("app/Auth/AdminAuth", {
  error: Unauthorized.wire,
  security: { bearer: HttpApiSecurity.bearer },
  requiredForClient: true
}) {}
