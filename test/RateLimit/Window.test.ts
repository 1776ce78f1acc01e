/**
 * The rate limiter alone, with no server: its window is one minute. In memory it reads the time
 * from Effect's Clock, so the TestClock walks the window to the millisecond; Redis keeps its own
 * time (the key's PTTL), so there the refusal is asked how long it says to wait.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { TestClock } from "effect/testing"
import { AppConfig } from "../../src/Config.ts"
import { RateLimit } from "../../src/RateLimit/RateLimit.ts"
import { describeNeeding, redisMissing } from "../support/Requires.ts"
import { testSettings } from "../support/Settings.ts"

const limit = 5

/** The limiter over the store the settings choose (Redis when REDIS_URL is given, else memory). */
const limiter = (overrides: Record<string, string>) =>
  RateLimit.layer.pipe(
    Layer.provide(Layer.effect(AppConfig, testSettings({ RATE_LIMIT_PER_MINUTE: String(limit), ...overrides })))
  )

// check answers with headers for the request it runs in; outside a server it only needs one to exist
const aRequest = HttpServerRequest.fromWeb(new Request("http://127.0.0.1/v1/articles/search?q=x"))

/** "allowed", or the seconds the refusal says to wait; within `limitPerMinute` when given, else the setting's. */
const outcome = (key: string, limitPerMinute?: number) =>
  Effect.flatMap(Effect.service(RateLimit), (rateLimit) => rateLimit.check(key, limitPerMinute)).pipe(
    Effect.as("allowed" as const),
    Effect.catchTag("RateLimited", (refused) => Effect.succeed(refused.retryAfterSeconds)),
    Effect.provideService(HttpServerRequest.HttpServerRequest, aRequest)
  )

const useTheBudget = (key: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < limit; i++) expect(yield* outcome(key)).toBe("allowed")
  })

/** The outcomes of `count` requests in a row against `key`, within `limitPerMinute`. */
const outcomes = (key: string, count: number, limitPerMinute?: number) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.map(outcome(key, limitPerMinute), (o) => o === "allowed" ? o : "refused"))

/** Budgets with limits of their own beside the setting's, and a limit that changes between requests. */
const ownLimits = (prefix: string) =>
  Effect.gen(function*() {
    expect(yield* outcomes(`${prefix}own`, 4, 3)).toEqual(["allowed", "allowed", "allowed", "refused"])
    expect(yield* outcomes(`${prefix}larger`, 9, 8)).toEqual([...Array(8).fill("allowed"), "refused"])
    // no limit given: the setting's, whatever other budgets were given
    expect(yield* outcomes(`${prefix}setting`, limit + 1)).toEqual([...Array(limit).fill("allowed"), "refused"])
    // raised: what was counted stays counted, and the new limit has room beyond it
    expect(yield* outcomes(`${prefix}changed`, 3, 2)).toEqual(["allowed", "allowed", "refused"])
    expect(yield* outcomes(`${prefix}changed`, 3, 4)).toEqual(["allowed", "allowed", "refused"])
    // lowered below what was counted: refused at once
    expect(yield* outcomes(`${prefix}lowered`, 3)).toEqual(["allowed", "allowed", "allowed"])
    expect(yield* outcomes(`${prefix}lowered`, 1, 2)).toEqual(["refused"])
  })

describe("the rate limit's window in memory, on the TestClock", () => {
  it.effect("refuses a used-up budget until one minute has passed since the first request, then allows it again", () =>
    Effect.gen(function*() {
      yield* useTheBudget("key:a")
      expect(yield* outcome("key:a")).toBe(60)
      // another key has a budget of its own
      expect(yield* outcome("key:b")).toBe("allowed")

      yield* TestClock.adjust("59 seconds")
      expect(yield* outcome("key:a")).toBe(1)
      yield* TestClock.adjust("999 millis")
      expect(yield* outcome("key:a")).toBe(1)
      yield* TestClock.adjust("1 millis")
      expect(yield* outcome("key:a")).toBe("allowed")
      // a fresh window: the whole budget again, less the request just counted
      for (let i = 1; i < limit; i++) expect(yield* outcome("key:a")).toBe("allowed")
      expect(yield* outcome("key:a")).toBe(60)
    }).pipe(Effect.provide(limiter({}))))

  it.effect("counts a budget used up over time from its first request: the minute does not start again with each one", () =>
    Effect.gen(function*() {
      expect(yield* outcome("key:c")).toBe("allowed")
      expect(yield* outcome("key:c")).toBe("allowed")
      yield* TestClock.adjust("23 seconds")
      for (let i = 2; i < limit; i++) expect(yield* outcome("key:c")).toBe("allowed")
      expect(yield* outcome("key:c")).toBe(37)
      yield* TestClock.adjust("36999 millis")
      expect(yield* outcome("key:c")).toBe(1)
      yield* TestClock.adjust("1 millis")
      expect(yield* outcome("key:c")).toBe("allowed")
    }).pipe(Effect.provide(limiter({}))))

  it.effect("counts a budget within the limit a call gives, the setting's when it gives none", () =>
    Effect.gen(function*() {
      yield* ownLimits("key:")
      // a window of one minute whatever the limit: refused for the rest of it, then the whole budget again
      expect(yield* outcome("key:own", 3)).toBe(60)
      yield* TestClock.adjust("1 minute")
      expect(yield* outcomes("key:own", 4, 3)).toEqual(["allowed", "allowed", "allowed", "refused"])
    }).pipe(Effect.provide(limiter({}))))
})

describeNeeding(redisMissing, "the rate limit's window in Redis", () => {
  it.live("tells a used-up budget to wait out the rest of one minute", () =>
    Effect.gen(function*() {
      // a key of its own: the Redis of REDIS_URL is shared with every other suite
      const key = `key:window-test-${crypto.randomUUID()}`
      yield* useTheBudget(key)
      const retryAfter = yield* outcome(key)
      // Redis counts down from 60 s as the test runs: a few seconds lost to a slow machine are allowed for
      expect(retryAfter).toBeGreaterThan(50)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(yield* outcome(key)).toBeTypeOf("number")
    }).pipe(Effect.provide(limiter({ REDIS_URL: process.env.REDIS_URL ?? "" }))))

  it.live("counts a budget within the limit a call gives, the setting's when it gives none", () =>
    ownLimits(`key:own-limits-${crypto.randomUUID()}:`).pipe(
      Effect.provide(limiter({ REDIS_URL: process.env.REDIS_URL ?? "" }))
    ))
})
