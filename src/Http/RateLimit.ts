import { RateLimiter } from "@effect/experimental"
import * as RedisStore from "@effect/experimental/RateLimiter/Redis"
import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../Config.ts"
import { RateLimited } from "../Domain/Errors.ts"

const window = Duration.minutes(1)

const redisOptions = (url: string) => {
  const parsed = new URL(url)
  return {
    host: parsed.hostname,
    port: parsed.port === "" ? 6379 : Number(parsed.port),
    username: parsed.username === "" ? undefined : decodeURIComponent(parsed.username),
    password: parsed.password === "" ? undefined : decodeURIComponent(parsed.password),
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined,
    tls: parsed.protocol === "rediss:" ? {} : undefined,
    prefix: "support:ratelimit:"
  }
}

/** The budget store: this process's memory, or Redis so that every instance shares one budget. */
const StoreLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  Option.match(config.redisUrl, {
    onNone: () => RateLimiter.layerStoreMemory,
    onSome: (url) => RedisStore.layerStore(redisOptions(Redacted.value(url)))
  })
))

const seconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toSeconds(duration)))

/** Fixed windows of one minute per key; the RateLimit-* headers go on every response it governs. */
export class RateLimit extends Effect.Service<RateLimit>()("app/Http/RateLimit", {
  dependencies: [RateLimiter.layer.pipe(Layer.provide(StoreLive))],
  effect: Effect.gen(function*() {
    const limiter = yield* RateLimiter.RateLimiter
    const config = yield* AppConfig
    const limit = config.rateLimitPerMinute

    const consume = (key: string) =>
      limiter.consume({ algorithm: "fixed-window", onExceeded: "fail", window, limit, key }).pipe(
        Effect.matchEffect({
          onSuccess: (result) => Effect.succeed({ remaining: result.remaining, reset: seconds(result.resetAfter) }),
          onFailure: (error) =>
            error.reason === "Exceeded"
              ? Effect.fail({ retryAfter: seconds(error.retryAfter) })
              // the limiter's store being down must not take the whole API down with it
              : Effect.as(Effect.logWarning("rate limit store unavailable", error), { remaining: limit, reset: 60 })
        })
      )

    const headers = (remaining: number, reset: number) =>
      HttpApp.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeaders(response, {
          "ratelimit-limit": String(limit),
          "ratelimit-remaining": String(Math.max(0, remaining)),
          "ratelimit-reset": String(reset)
        }))
      )

    /** Counts one request against `key`; fails with 429 past the budget. */
    const check = (key: string) =>
      consume(key).pipe(
        Effect.matchEffect({
          onSuccess: ({ remaining, reset }) => headers(remaining, reset),
          onFailure: ({ retryAfter }) =>
            Effect.zipRight(
              headers(0, retryAfter),
              Effect.fail(new RateLimited({
                message: `rate limit of ${limit} requests a minute exceeded; retry after ${retryAfter} s`,
                retryAfterSeconds: retryAfter
              }))
            )
        })
      )

    return { check } as const
  })
}) {}
