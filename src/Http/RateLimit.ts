import { NodeRedis } from "@effect/platform-node"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { RateLimiter } from "effect/persistence"
import { AppConfig } from "../Config.ts"
import { RateLimited } from "../Domain/Errors.ts"

const window = Duration.minutes(1)

/** The budget store: this process's memory, or Redis so that every instance shares one budget. */
const StoreLive = Layer.unwrap(AppConfig.useSync((config) =>
  Option.match(config.redisUrl, {
    onNone: () => RateLimiter.layerStoreMemory,
    onSome: (url) =>
      RateLimiter.layerStoreRedis({ prefix: "support:ratelimit:" }).pipe(
        Layer.provide(NodeRedis.layer({ url: Redacted.value(url) })),
        Layer.orDie
      )
  })
))

const seconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toSeconds(duration)))

/** Fixed windows of one minute per key; the RateLimit-* headers go on every response it governs. */
export class RateLimit extends Context.Service<RateLimit>()("app/Http/RateLimit", {
  make: Effect.gen(function*() {
    const limiter = yield* RateLimiter.RateLimiter
    const config = yield* AppConfig
    const limit = config.rateLimitPerMinute

    const headers = (remaining: number, reset: number, retryAfter?: number) =>
      HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeaders(response, {
          "ratelimit-limit": String(limit),
          "ratelimit-remaining": String(Math.max(0, remaining)),
          "ratelimit-reset": String(reset),
          ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) })
        }))
      )

    /** Counts one request against `key`; fails with 429 past the budget. */
    const check = (key: string) =>
      Effect.matchEffect(limiter.consume({ algorithm: "fixed-window", onExceeded: "fail", window, limit, key }), {
        onSuccess: (result) => headers(result.remaining, seconds(result.resetAfter)),
        onFailure: (error) => {
          if (error.reason._tag !== "RateLimitExceeded") {
            // the limiter's store being down must not take the whole API down with it
            return Effect.andThen(Effect.logWarning("rate limit store unavailable", error), headers(limit, 60))
          }
          const retryAfter = seconds(error.reason.retryAfter)
          // the HttpApi writes the 429 from the contract's error schema, which has no headers
          return Effect.andThen(
            headers(0, retryAfter, retryAfter),
            Effect.fail(new RateLimited({
              message: `rate limit of ${limit} requests a minute exceeded; retry after ${retryAfter} s`,
              retryAfterSeconds: retryAfter
            }))
          )
        }
      })

    return { check }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide(RateLimiter.layer),
    Layer.provide(StoreLive)
  )
}
