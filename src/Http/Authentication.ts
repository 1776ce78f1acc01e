import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option, Redacted } from "effect"
import { AdminToken } from "../Admin/AdminToken.ts"
import { AppConfig } from "../Config.ts"
import { Unauthorized } from "../Domain/Errors.ts"
import { Projects } from "../Projects/Projects.ts"
import { sameSecret } from "../Projects/Secrets.ts"
import { RateLimit } from "./RateLimit.ts"
import { AdminAuth, ProjectAuth } from "./Security.ts"

const invalidKey = new Unauthorized({ message: "a valid API key is required: Authorization: Bearer tf_..." })

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

    const clientAddress = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const forwarded = request.headers["x-forwarded-for"]
      if (config.trustProxy && forwarded !== undefined) return forwarded.split(",")[0]!.trim()
      return Option.getOrElse(request.remoteAddress, () => "unknown")
    })

    return {
      bearer: (token) =>
        Effect.gen(function*() {
          const key = yield* projects.authenticate(Redacted.value(token))
          if (Option.isNone(key)) {
            yield* rateLimit.check(`addr:${yield* clientAddress}`)
            return yield* invalidKey
          }
          yield* rateLimit.check(`key:${key.value.key_id}`)
          return { keyId: key.value.key_id, projectId: key.value.project_id, scope: key.value.scope }
        })
    }
  })
)

export const AdminAuthLive = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const admin = yield* AdminToken
    return {
      bearer: (token) =>
        Option.match(admin.token, {
          onNone: () =>
            Effect.fail(new Unauthorized({ message: "the admin API is disabled: set ADMIN_TOKEN to enable it" })),
          onSome: (expected) =>
            sameSecret(Redacted.value(token), expected)
              ? Effect.void
              : Effect.fail(new Unauthorized({ message: "a valid admin token is required: Authorization: Bearer <ADMIN_TOKEN>" }))
        })
    }
  })
)
