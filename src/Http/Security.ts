import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Context, Schema } from "effect"
import { ForbiddenWire, RateLimitedWire, UnauthorizedWire } from "../Domain/Errors.ts"
import type { KeyScope } from "../Domain/Project.ts"

/** The API key of the request being served: its project bounds everything the request sees. */
export class CurrentKey extends Context.Tag("app/CurrentKey")<CurrentKey, {
  readonly keyId: string
  readonly projectId: string
  readonly scope: KeyScope
}>() {}

/** `Authorization: Bearer tf_...`, then the per-key rate limit. */
export class ProjectAuth extends HttpApiMiddleware.Tag<ProjectAuth>()("app/ProjectAuth", {
  failure: Schema.Union(UnauthorizedWire, ForbiddenWire, RateLimitedWire),
  provides: CurrentKey,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/** `Authorization: Bearer <ADMIN_TOKEN>` for the operator API. */
export class AdminAuth extends HttpApiMiddleware.Tag<AdminAuth>()("app/AdminAuth", {
  failure: UnauthorizedWire,
  security: { bearer: HttpApiSecurity.bearer }
}) {}
