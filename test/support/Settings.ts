import { ConfigProvider, Effect } from "effect"
import { settings } from "../../src/Config.ts"

/**
 * The settings of a test instance: the service's own parser over a map, never the environment.
 * Request logs are off unless a test turns them on: a line per request of every suite says nothing.
 */
export const testSettings = (overrides: Record<string, string>) =>
  settings.parse(ConfigProvider.fromUnknown({ REQUEST_LOG: "false", ...overrides })).pipe(Effect.orDie)
