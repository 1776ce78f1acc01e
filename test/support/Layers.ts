import { Layer } from "effect"
import { AppConfig } from "../../src/Config.ts"
import { testSettings } from "./Settings.ts"

/** AppConfig from the service's defaults plus the given settings, as environment names. */
export const configLayer = (overrides: Record<string, string> = {}) =>
  Layer.effect(AppConfig, testSettings({ DATA_DIR: "memory://", ...overrides }))
