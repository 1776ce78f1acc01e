import { ConfigProvider, Effect } from "effect"
import { settings } from "../../src/Config.ts"

/**
 * The settings of a test instance: the service's own parser over a map, never the environment.
 * Request logs are off unless a test turns them on: a line per request of every suite says nothing.
 * Every suite's widget requests come from one address, so a visitor's budget is as large as a
 * key's unless a test sets it (test/Auth/VisitorLimits.test.ts does).
 */
export const testSettings = (overrides: Record<string, string>) =>
  settings.parse(ConfigProvider.fromUnknown({
    REQUEST_LOG: "false",
    WIDGET_VISITOR_RATE_LIMIT_PER_MINUTE: "100",
    ...overrides
  })).pipe(Effect.orDie)
