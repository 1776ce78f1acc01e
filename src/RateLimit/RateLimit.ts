import { Context, Duration, Effect, Layer, Option, Random, Redacted, Schedule } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { RateLimiter, Redis } from "effect/persistence"
import { AppConfig } from "../Config.ts"
import { RateLimited } from "../Domain/Errors.ts"
import { recordRefusal } from "../Observability/Metrics.ts"

const window = Duration.minutes(1)

/**
 * Whether the budget store can be used now: /health tells it, and requests go unlimited while it
 * cannot. `ping` asks the store itself (readiness), and what it learns updates `reachable` too.
 */
class StoreReachable extends Context.Service<StoreReachable, {
  readonly reachable: () => boolean
  readonly ping: Effect.Effect<boolean>
}>()("app/RateLimit/StoreReachable") {}

/** Redis answers in a millisecond; a request waits this long for it at most before it goes unlimited. */
const commandTimeout = Duration.millis(500)

/** Before the first connection attempt has an outcome, startup waits this long at most. */
const connectTimeoutMillis = 2_000

const describeCause = (cause: unknown) => cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)

/**
 * The budget in Redis, shared by every instance. Redis being down or stuck must cost the API
 * nothing: a request does not wait for a reconnection (no offline queue) nor past the time box;
 * once a command has failed, requests skip Redis altogether until a probe finds it answering
 * again, and the log says so once each way (node-redis reports every failed reconnection
 * attempt as an error). The client reconnects in the background, for ever, backing off to 5 s.
 */
const redisStore = (url: string) =>
  Layer.effectContext(Effect.gen(function*() {
    // loaded only when REDIS_URL asks for it: node-redis's command tables are thousands of
    // objects that every full collection would otherwise mark for nothing
    const { createClient } = yield* Effect.promise(() => import("redis"))
    // node-redis calls its callbacks outside any fiber: they run effects with the layer's services
    const runSync = Effect.runSyncWith(yield* Effect.context<never>())
    const client = yield* Effect.acquireRelease(
      Effect.sync(() =>
        createClient({
          url,
          disableOfflineQueue: true,
          socket: {
            connectTimeout: connectTimeoutMillis,
            reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000) + runSync(Random.nextIntBetween(0, 100))
          }
        })
      ),
      // not close(): that would wait for commands stuck on a Redis that does not answer
      (client) => Effect.sync(() => client.destroy())
    )

    let reachable = true
    const wentDown = (cause: unknown) => {
      if (!reachable) return
      reachable = false
      runSync(Effect.logWarning(
        "rate limit store (Redis) unavailable: requests go unlimited until it answers again",
        describeCause(cause)
      ))
    }
    const cameBack = () => {
      if (reachable) return
      reachable = true
      runSync(Effect.logInfo("rate limit store (Redis) is back: requests are counted again"))
    }
    // without a listener node-redis would throw its errors; each one is a failed attempt
    client.on("error", wentDown)

    // the first attempt decides how the service starts: counting, or degraded; it is not waited
    // for past the connect timeout, which a Redis that accepts and then never answers would outlast
    // (connect() itself settles only once connected, or when the client is destroyed)
    yield* Effect.callback<void>((resume) => {
      const settled = () => {
        client.off("ready", settled).off("error", settled)
        resume(Effect.void)
      }
      client.on("ready", settled).on("error", settled)
      client.connect().catch(() => {})
      return Effect.sync(() => client.off("ready", settled).off("error", settled))
    }).pipe(Effect.timeoutOrElse({
      duration: Duration.millis(connectTimeoutMillis),
      orElse: () => Effect.sync(() => wentDown(`no answer within ${connectTimeoutMillis} ms`))
    }))

    // node-redis times out only commands it has not written yet: one written to a Redis that
    // stopped answering would wait for ever
    const send = <A>(command: string, ...args: ReadonlyArray<string>) =>
      Effect.tryPromise({
        try: () => client.sendCommand([command, ...args]) as Promise<A>,
        catch: (cause) => new Redis.RedisError({ cause })
      }).pipe(Effect.timeoutOrElse({
        duration: commandTimeout,
        orElse: () =>
          Effect.fail(new Redis.RedisError({ cause: `no answer within ${Duration.format(commandTimeout)}` }))
      }))
    // the limiter's scripts need commands only: no dedicated connection, no channel
    const unused = Effect.fail(new Redis.RedisError({ cause: "not used by the rate limiter" }))
    const redis = yield* Redis.make({ send, connect: unused, subscribe: () => unused })
    const store = yield* RateLimiter.makeStoreRedis({ prefix: "support:ratelimit:" }).pipe(
      Effect.provideService(Redis.Redis, redis)
    )

    const unavailable = new RateLimiter.RateLimiterError({
      reason: new RateLimiter.RateLimitStoreError({ message: "rate limit store unavailable" })
    })
    const guarded = <A>(command: () => Effect.Effect<A, RateLimiter.RateLimiterError>) =>
      reachable
        ? Effect.tapError(command(), (error) => Effect.sync(() => wentDown(error.reason.cause ?? error.reason)))
        : Effect.fail(unavailable)

    const probe = Effect.suspend(() =>
      reachable ? Effect.void : store.fixedWindow({
        key: "store-probe",
        tokens: 1,
        refillRate: Duration.seconds(1),
        limit: undefined
      }).pipe(Effect.match({ onSuccess: cameBack, onFailure: () => undefined }))
    )
    yield* Effect.forkScoped(Effect.repeat(probe, Schedule.spaced("1 second")))

    const ping = send("PING").pipe(Effect.match({
      onSuccess: () => {
        cameBack()
        return true
      },
      onFailure: (error) => {
        wentDown(error.cause)
        return false
      }
    }))

    return Context.make(StoreReachable, { reachable: () => reachable, ping }).pipe(
      Context.add(
        RateLimiter.RateLimiterStore,
        RateLimiter.RateLimiterStore.of({
          ...store,
          fixedWindow: (options) => guarded(() => store.fixedWindow(options)),
          tokenBucket: (options) => guarded(() => store.tokenBucket(options))
        })
      )
    )
  }))

/** The budget store: this process's memory, or Redis so that every instance shares one budget. */
const StoreLive = Layer.unwrap(AppConfig.useSync((config) =>
  Option.match(config.redisUrl, {
    onNone: () => Layer.merge(RateLimiter.layerStoreMemory, Layer.succeed(StoreReachable, { reachable: () => true, ping: Effect.succeed(true) })),
    onSome: (url) => redisStore(Redacted.value(url))
  })
))

const secondsOf = (millis: number) => Math.max(1, Math.ceil(millis / 1000))

const seconds = (duration: Duration.Duration) => secondsOf(Duration.toMillis(duration))

/** Budgets of their own (a key's, a visitor's) whose refill rates are kept at most; past it they start over. */
const maxKeptRates = 1_000

/** Fixed windows of one minute per key; the RateLimit-* headers go on every response it governs. */
export class RateLimit extends Context.Service<RateLimit>()("app/RateLimit", {
  make: Effect.gen(function*() {
    const budgets = yield* RateLimiter.RateLimiterStore
    const config = yield* AppConfig
    const defaultLimit = config.rateLimitPerMinute
    const store = yield* StoreReachable
    // RateLimiter.consume works these out again on every call, with the Durations, options and
    // result objects that go with them: about 1.8 KB of garbage on each ticket read, measured.
    // Asked of the store directly, with what consume would ask it, a request pays for its count
    // alone; the answers are consume's, worked out here. The few other budgets in use (keys with
    // their own, the widget's visitors) keep their rates too.
    const defaultRefillRate = Duration.divideUnsafe(window, Math.max(1, defaultLimit))
    const keptRates = new Map<number, Duration.Duration>()
    const refillRateOf = (limit: number) => {
      if (limit === defaultLimit) return defaultRefillRate
      let rate = keptRates.get(limit)
      if (rate === undefined) {
        if (keptRates.size >= maxKeptRates) keptRates.clear()
        rate = Duration.divideUnsafe(window, limit)
        keptRates.set(limit, rate)
      }
      return rate
    }

    /**
     * A request counted against two budgets (a widget visitor's and its key's) reports the one
     * with fewer requests left, the one it will run into first.
     */
    const headers = (limit: number, remaining: number, reset: number, retryAfter?: number) =>
      HttpEffect.appendPreResponseHandler((_request, response) => {
        const reported = response.headers["ratelimit-remaining"]
        if (reported !== undefined && Number(reported) <= remaining && retryAfter === undefined) return Effect.succeed(response)
        return Effect.succeed(HttpServerResponse.setHeaders(response, {
          "ratelimit-limit": String(limit),
          "ratelimit-remaining": String(Math.max(0, remaining)),
          "ratelimit-reset": String(reset),
          ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) })
        }))
      })

    const refused = (key: string, limit: number, retryAfter: number) =>
      // the HttpApi writes the 429 from the contract's error schema, which has no headers
      Effect.andThen(
        Effect.andThen(
          Effect.withFiber((fiber) =>
            Effect.succeed(recordRefusal(fiber.context, key.startsWith("addr:") ? "address" : "key"))
          ),
          headers(limit, 0, retryAfter, retryAfter)
        ),
        Effect.fail(new RateLimited({
          message: `rate limit of ${limit} requests a minute exceeded; retry after ${retryAfter} s`,
          retryAfterSeconds: retryAfter
        }))
      )

    // a budget below one request never lets one through (consume refuses it before counting)
    const alwaysRefused = (key: string, limit: number) => refused(key, limit, seconds(window))

    /**
     * Counts one request against the budget named `key`: `limitPerMinute` requests a minute
     * (RATE_LIMIT_PER_MINUTE when not given), which `RateLimit-Limit` reports. Fails with 429
     * past it. A budget's limit may change between calls (an operator changed a key's): the
     * requests already counted in its window stay counted against the new one.
     */
    const check = (key: string, limitPerMinute?: number) => {
      const limit = limitPerMinute ?? defaultLimit
      return limit < 1 ? alwaysRefused(key, limit) : Effect.matchEffect(
        budgets.fixedWindow({ key, tokens: 1, refillRate: refillRateOf(limit), limit }),
        {
          // the count with this request, and the milliseconds until the window has room again
          onSuccess: ([counted, ttlMillis]) =>
            counted > limit ? refused(key, limit, secondsOf(ttlMillis)) : headers(limit, limit - counted, secondsOf(ttlMillis)),
          // the limiter's store being down must not take the whole API down with it; the store
          // logs its outage, once
          onFailure: () => headers(limit, limit, 60)
        }
      )
    }

    return {
      check,
      /** False while the budget store cannot be used and requests go unlimited: the service is degraded. */
      storeReachable: store.reachable,
      /** Asks Redis (at most 500 ms), or true for the in-memory store. */
      pingStore: store.ping
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(StoreLive))
}
