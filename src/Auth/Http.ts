import { Effect, Layer, Option, Redacted, Result, Schema } from "effect"
import { HttpEffect, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AdminToken } from "../Admin/AdminToken.ts"
import { Agents } from "../Admin/Agents.ts"
import { Audit } from "../Audit/Audit.ts"
import { cliUserAgentPrefix } from "../Domain/Audit.ts"
import { AppConfig } from "../Config.ts"
import { Unauthorized, ValidationError } from "../Domain/Errors.ts"
import { Email } from "../Domain/Fields.ts"
import { ProjectId } from "../Domain/Ids.ts"
import type { VerifiedVisitor } from "../Domain/Visitor.ts"
import { Projects } from "../Projects/Projects.ts"
import { sameSecret } from "../Projects/Secrets.ts"
import { RateLimit } from "../RateLimit/RateLimit.ts"
import { ActingAgent, AdminAuth, agentHeader, CurrentKey, MailAuth, ProjectAuth } from "./Api.ts"
import { verifyVisitor } from "./Visitor.ts"

const invalidKey = new Unauthorized({ message: "a valid API key is required: Authorization: Bearer tf_..." })
const visitorRequired = new Unauthorized({
  message: "this project accepts only verified visitors: the widget needs identityToken, a token its site's backend signed (sent as X-Visitor-Token)"
})

/**
 * Tells the embeddable widget that the key in its page is a widget key: an answer without the
 * mark went to a full key, and the widget warns the site's developer. Only widget keys get it,
 * so the API's main traffic pays nothing for it.
 */
const markWidgetScope = HttpEffect.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "api-key-scope", "widget"))
)

/** Where a request came from: the connection's peer, or behind a trusted proxy the address it reported. */
const clientAddressOf = (config: AppConfig["Service"]) => (request: HttpServerRequest.HttpServerRequest) => {
  const forwarded = request.headers["x-forwarded-for"]
  // the last entry is the one the proxy appended; those before it are the client's to write
  if (config.trustProxy && forwarded !== undefined) return forwarded.split(",").at(-1)!.trim()
  return Option.getOrElse(request.remoteAddress, () => "unknown")
}

/**
 * A known key spends its own budget. A missing or unknown one spends the budget of the client
 * address instead, so guessing keys is throttled like anything else. A widget key's request
 * first spends its visitor's own budget (the verified visitor, else the client address), so
 * one visitor cannot use up what a whole site shares.
 */
const keyAuthentication = Effect.gen(function*() {
  const projects = yield* Projects
  const rateLimit = yield* RateLimit
  const config = yield* AppConfig

  const clientAddress = clientAddressOf(config)

  return <A, E, R>(httpEffect: Effect.Effect<A, E, R>, credential: string) =>
    Effect.gen(function*() {
      const key = yield* projects.authenticate(credential)
      if (Option.isNone(key)) {
        const request = yield* HttpServerRequest.HttpServerRequest
        yield* rateLimit.check(`addr:${clientAddress(request)}`)
        return yield* invalidKey
      }
      const found = key.value
      let visitor: VerifiedVisitor | undefined
      if (found.scope === "widget") {
        yield* markWidgetScope
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = request.headers["x-visitor-token"]
        const visitorBudget = (by: string) =>
          rateLimit.check(`visitor:${found.project_id}:${by}`, config.widgetVisitorRateLimitPerMinute)
        const address = `addr:${clientAddress(request)}`
        if (token !== undefined && token !== "") {
          const verified = yield* Effect.result(verifyVisitor(token, found.identity_secret))
          // a refused token spends its address's budget, so forging them is throttled too
          if (Result.isFailure(verified)) return yield* Effect.andThen(visitorBudget(address), Effect.fail(verified.failure))
          visitor = verified.success
        } else if (found.require_verified_visitors) {
          return yield* Effect.andThen(visitorBudget(address), Effect.fail(visitorRequired))
        }
        yield* visitorBudget(visitor === undefined ? address : `sub:${visitor.sub}`)
      }
      yield* rateLimit.check(`key:${found.key_id}`, found.rate_limit_per_minute ?? undefined)
      return yield* Effect.provideService(httpEffect, CurrentKey, {
        keyId: found.key_id,
        projectId: found.project_id,
        scope: found.scope,
        visitor
      })
    })
})

export const ProjectAuthLive = Layer.effect(
  ProjectAuth,
  Effect.map(keyAuthentication, (authenticate) =>
    ProjectAuth.of({ apiKey: (httpEffect, { credential }) => authenticate(httpEffect, Redacted.value(credential)) }))
)

/**
 * A project's key as a Bearer token, or as the password of HTTP Basic: a mail provider's inbound
 * webhook is configured with a URL, and credentials in a URL are Basic. A request with neither
 * spends its address's budget once, on the Bearer attempt.
 */
export const MailAuthLive = Layer.effect(
  MailAuth,
  Effect.map(keyAuthentication, (authenticate) =>
    MailAuth.of({
      apiKey: (httpEffect, { credential }) => authenticate(httpEffect, Redacted.value(credential)),
      keyAsPassword: (httpEffect, { credential }) => {
        const password = Redacted.value(credential.password)
        return password === "" ? Effect.fail(invalidKey) : authenticate(httpEffect, password)
      }
    }))
)

/**
 * An operator call that changes something (any method but GET), once it has succeeded: appended
 * to the audit log with its group and endpoint, the ids of its path, and who and where from.
 */
const audited = <A extends HttpServerResponse.HttpServerResponse, E, R>(
  audit: Audit["Service"],
  clientAddress: (request: HttpServerRequest.HttpServerRequest) => string,
  httpEffect: Effect.Effect<A, E, R>,
  action: string,
  actingAgent: () => string | undefined
) =>
  Effect.tap(httpEffect, (response) =>
    Effect.gen(function*() {
      if (response.status >= 400) return
      const request = yield* HttpServerRequest.HttpServerRequest
      const { pid, ...rest } = yield* HttpRouter.params
      const target = Object.fromEntries(Object.entries(rest).filter((entry): entry is [string, string] => entry[1] !== undefined))
      const userAgent = request.headers["user-agent"] ?? null
      const agentEmail = actingAgent() ?? null
      yield* audit.record({
        projectId: pid ?? null,
        actor: agentEmail !== null ? "agent" : userAgent?.startsWith(cliUserAgentPrefix) ? "cli" : "admin_token",
        agentEmail,
        action,
        target,
        status: response.status,
        sourceIp: clientAddress(request),
        userAgent: userAgent === null ? null : userAgent.slice(0, 500)
      }).pipe(
        // the action is done and committed: an answer saying otherwise would be the wrong one
        Effect.catchCause((cause) => Effect.logError("an operator action could not be written to the audit log", cause))
      )
    }))

/** Reads that hand out everything about a person are actions of their own. */
const auditedReads: ReadonlySet<string> = new Set(["privacy.exportContact", "privacy.exportContactZip"])

const decodeAgentEmail = Schema.decodeUnknownEffect(Email("X-Agent-Email"))

export const AdminAuthLive = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const admin = yield* AdminToken
    const audit = yield* Audit
    const agents = yield* Agents
    const config = yield* AppConfig
    const clientAddress = clientAddressOf(config)

    /** The agent `X-Agent-Email` names, checked to be one of the project the call is about. */
    const namedAgent = Effect.fnUntraced(function*(header: string) {
      const email = yield* decodeAgentEmail(header).pipe(
        Effect.mapError((error) => new ValidationError({ message: error.message }))
      )
      const { pid } = yield* HttpRouter.params
      const projectId = pid === undefined ? undefined : Schema.decodeUnknownOption(ProjectId)(pid)
      if (projectId === undefined || Option.isNone(projectId)) {
        return yield* new ValidationError({ message: "X-Agent-Email names an agent of a project: this call is about no one project" })
      }
      const agent = yield* agents.findInProject(projectId.value, email)
      if (Option.isNone(agent)) {
        return yield* new ValidationError({ message: "X-Agent-Email must be the address of an agent of this project" })
      }
      return agent.value.email
    })

    /** What a read naming no agent is given: nobody is recorded for it, so nobody is kept. */
    const unrecorded = ActingAgent.of({ actAs: () => Effect.void })

    const authorized = <A extends HttpServerResponse.HttpServerResponse, E, R>(
      httpEffect: Effect.Effect<A, E, R>,
      action: string,
      method: string
    ) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const header = request.headers[agentHeader]
        // a change (any method but GET), or a read of a person's data, goes into the log
        const recorded = method !== "GET" || auditedReads.has(action)
        if (header === undefined && !recorded) return Effect.provideService(httpEffect, ActingAgent, unrecorded)
        return Effect.gen(function*() {
          let acting = header === undefined ? undefined : yield* namedAgent(header)
          const served = Effect.provideService(httpEffect, ActingAgent, {
            actAs: (email) =>
              Effect.sync(() => {
                acting ??= email
              })
          })
          return yield* recorded ? audited(audit, clientAddress, served, action, () => acting) : served
        })
      })

    return AdminAuth.of({
      adminToken: (httpEffect, { credential, endpoint, group }) =>
        Option.match(admin.token, {
          onNone: () =>
            Effect.fail(new Unauthorized({ message: "the admin API is disabled: set ADMIN_TOKEN to enable it" })),
          onSome: (expected) =>
            !sameSecret(Redacted.value(credential), expected)
              ? Effect.fail(new Unauthorized({ message: "a valid admin token is required: Authorization: Bearer <ADMIN_TOKEN>" }))
              : authorized(httpEffect, `${group.identifier}.${endpoint.identifier}`, endpoint.method)
        })
    })
  })
)
