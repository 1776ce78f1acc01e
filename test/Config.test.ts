import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Exit, Option } from "effect"
import { settings } from "../src/Config.ts"

const read = (env: Record<string, string>) => settings.parse(ConfigProvider.fromUnknown(env))

describe("settings", () => {
  it.effect("default to CONTRACT's values", () =>
    Effect.gen(function*() {
      const config = yield* read({})
      expect(config.port).toBe(3000)
      expect(config.host).toBe("0.0.0.0")
      expect(config.dataDir).toBe("./data")
      expect(config.rateLimitPerMinute).toBe(100)
      expect(config.webhookRetrySchedule.map(Duration.toMinutes)).toEqual([1, 5, 30])
      expect(Duration.toSeconds(config.webhookTimeout)).toBe(10)
      expect([config.triageProvider, config.errorTracker, config.trustProxy]).toEqual(["local", "none", false])
      expect(config.logLevel).toBe("Info")
      expect(Option.isNone(config.databaseUrl)).toBe(true)
      expect([config.requestLog, config.logFormat]).toEqual([true, "text"])
    }))

  it.effect("read the request log switch and the log format", () =>
    Effect.gen(function*() {
      const config = yield* read({ REQUEST_LOG: "false", LOG_FORMAT: "json" })
      expect([config.requestLog, config.logFormat]).toEqual([false, "json"])
    }))

  it.effect("read durations, log levels, and treat an empty secret as unset", () =>
    Effect.gen(function*() {
      const config = yield* read({
        WEBHOOK_RETRY_SCHEDULE: "500ms, 2s,1m",
        WEBHOOK_TIMEOUT: "3s",
        LOG_LEVEL: "warning",
        DATABASE_URL: " ",
        ADMIN_TOKEN: ""
      })
      expect(config.webhookRetrySchedule.map(Duration.toMillis)).toEqual([500, 2000, 60000])
      expect(Duration.toMillis(config.webhookTimeout)).toBe(3000)
      expect(config.logLevel).toBe("Warn")
      expect(Option.isNone(config.databaseUrl)).toBe(true)
      expect(Option.isNone(config.adminToken)).toBe(true)
    }))

  it.effect("refuse values that are not what they should be", () =>
    Effect.gen(function*() {
      const invalid: ReadonlyArray<Record<string, string>> = [
        { LOG_LEVEL: "loud" },
        { WEBHOOK_RETRY_SCHEDULE: "1m,soon" },
        { TRIAGE_PROVIDER: "magic" },
        { PORT: "x" },
        { REQUEST_LOG: "sometimes" },
        { LOG_FORMAT: "xml" },
        { SHUTDOWN_DRAIN: "a while" }
      ]
      for (const env of invalid) {
        const exit = yield* Effect.exit(read(env))
        expect(Exit.isFailure(exit)).toBe(true)
      }
    }))
})
