import { Effect, Layer, Option, Redacted } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AdminToken } from "../Admin/AdminToken.ts"
import { AppConfig } from "../Config.ts"
import { Unauthorized } from "../Domain/Errors.ts"
import { Projects } from "../Projects/Projects.ts"
import { sameSecret } from "../Projects/Secrets.ts"
import { RateLimit } from "../RateLimit/RateLimit.ts"
import { AdminAuth, CurrentKey, ProjectAuth } from "./Api.ts"

const invalidKey = new Unauthorized({ message: "a valid API key is required: Authorization: Bearer tf_..." })

/**
 * Tells the embeddable widget that the key in its page is a widget key: an answer without the
 * mark went to a full key, and the widget warns the site's developer. Only widget keys get it,
 * so the API's main traffic pays nothing for it.
 */
const markWidgetScope = HttpEffect.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "api-key-scope", "widget"))
)

/**
 * A known key spends its own budget. A missing or unknown one spends the budget of the client
 * address instead, so guessing keys is throttled like anything else.
 */
export const ProjectAuthLive = Layer.effect(
  ProjectAuth,
  Effect.gen(function*() {
    const projects = yield* Projects
    const rateLimit = yield* RateLimit
    const config = yield* AppConfig

    const clientAddress = (request: HttpServerRequest.HttpServerRequest) => {
      const forwarded = request.headers["x-forwarded-for"]
      // the last entry is the one the proxy appended; those before it are the client's to write
      if (config.trustProxy && forwarded !== undefined) return forwarded.split(",").at(-1)!.trim()
      return Option.getOrElse(request.remoteAddress, () => "unknown")
    }

    return ProjectAuth.of({
      apiKey: (httpEffect, { credential }) =>
        Effect.gen(function*() {
          const key = yield* projects.authenticate(Redacted.value(credential))
          if (Option.isNone(key)) {
            const request = yield* HttpServerRequest.HttpServerRequest
            yield* rateLimit.check(`addr:${clientAddress(request)}`)
            return yield* invalidKey
          }
          yield* rateLimit.check(`key:${key.value.key_id}`)
          if (key.value.scope === "widget") yield* markWidgetScope
          return yield* Effect.provideService(httpEffect, CurrentKey, {
            keyId: key.value.key_id,
            projectId: key.value.project_id,
            scope: key.value.scope
          })
        })
    })
  })
)

export const AdminAuthLive = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const admin = yield* AdminToken
    return AdminAuth.of({
      adminToken: (httpEffect, { credential }) =>
        Option.match(admin.token, {
          onNone: () =>
            Effect.fail(new Unauthorized({ message: "the admin API is disabled: set ADMIN_TOKEN to enable it" })),
          onSome: (expected) =>
            sameSecret(Redacted.value(credential), expected)
              ? httpEffect
              : Effect.fail(new Unauthorized({ message: "a valid admin token is required: Authorization: Bearer <ADMIN_TOKEN>" }))
        })
    })
  })
)
