import { Layer } from "effect"
import { AppConfig, type Settings } from "../../src/Config.ts"
import { Effect } from "effect"
import { testSettings } from "./Settings.ts"

/** AppConfig from the service's defaults plus the given settings, as environment names. */
export const configLayer = (overrides: Record<string, string> = {}) =>
  Layer.effect(AppConfig, testSettings({ DATA_DIR: "memory://", ...overrides }) as Effect.Effect<Settings>)
