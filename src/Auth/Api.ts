import { Context, type Effect } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Forbidden, NotFound, RateLimited, Unauthorized, ValidationError } from "../Domain/Errors.ts"
import type { ProjectId } from "../Domain/Ids.ts"
import type { KeyScope } from "../Domain/Project.ts"
import type { VerifiedVisitor } from "../Domain/Visitor.ts"

/**
 * The API key of the request being served: its project bounds everything the request sees. With
 * a widget key, `visitor` is who the site's backend says the visitor is (a verified visitor token).
 */
export class CurrentKey extends Context.Service<CurrentKey, {
  readonly keyId: string
  readonly projectId: ProjectId
  readonly scope: KeyScope
  readonly visitor?: VerifiedVisitor | undefined
}>()("app/Auth/CurrentKey") {}

/** Named apart in /docs, so Authorize says which credential goes where. */
const apiKey = HttpApiSecurity.bearer.pipe(HttpApiSecurity.annotate(
  OpenApi.Description,
  "A project's API key, `tf_…`: a full key for your backend, a widget key for web pages."
))
const adminToken = HttpApiSecurity.bearer.pipe(HttpApiSecurity.annotate(
  OpenApi.Description,
  "The operator token (`ADMIN_TOKEN`, or the one printed at the first start on the embedded database). A tool acting for one of a project's agents names them in `X-Agent-Email`, for the audit log."
))

/** `Authorization: Bearer tf_...`, then the per-key rate limit. */
export class ProjectAuth extends HttpApiMiddleware.Service<ProjectAuth, { provides: CurrentKey }>()("app/Auth/ProjectAuth", {
  error: [Unauthorized.wire, Forbidden.wire, RateLimited.wire],
  security: { apiKey },
  requiredForClient: true
}) {}

const keyAsPassword = HttpApiSecurity.basic.pipe(HttpApiSecurity.annotate(
  OpenApi.Description,
  "A project's full key as the password of HTTP Basic (any user name), for mail providers' webhooks configured with a URL."
))

/** A project's key as Bearer or as a Basic password, then the per-key rate limit: the inbound mail door. */
export class MailAuth extends HttpApiMiddleware.Service<MailAuth, { provides: CurrentKey }>()("app/Auth/MailAuth", {
  error: [Unauthorized.wire, Forbidden.wire, RateLimited.wire],
  security: { apiKey, keyAsPassword },
  requiredForClient: true
}) {}

/** The header by which a desk using the admin token for its agents names the one acting. */
export const agentHeader = "x-agent-email"

/**
 * The agent an operator call is done as, for the audit log: the one `X-Agent-Email` names, else
 * one the call itself names as acting (a reply's author), told through `actAs`.
 */
export class ActingAgent extends Context.Service<ActingAgent, {
  readonly actAs: (email: string) => Effect.Effect<void>
}>()("app/Auth/ActingAgent") {}

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` for the operator API, and optionally `X-Agent-Email`:
 * the agent of the call's project it is done as (400 when it names no agent of that project, 404
 * when there is no such project).
 */
export class AdminAuth extends HttpApiMiddleware.Service<AdminAuth, { provides: ActingAgent }>()("app/Auth/AdminAuth", {
  error: [Unauthorized.wire, ValidationError.wire, NotFound.wire],
  security: { adminToken },
  requiredForClient: true
}) {}
