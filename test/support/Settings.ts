import { ConfigProvider, Effect } from "effect"
import { settings } from "../../src/Config.ts"

/** The settings of a test instance: the service's own parser over a map, never the environment. */
export const testSettings = (overrides: Record<string, string>) =>
  settings.parse(ConfigProvider.fromUnknown(overrides)).pipe(Effect.orDie)
