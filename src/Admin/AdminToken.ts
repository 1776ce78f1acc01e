import { Context, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../Config.ts"
import { Projects } from "../Projects/Projects.ts"
import { newAdminToken } from "../Projects/Secrets.ts"

const settingName = "admin_token"

/**
 * The operator token: ADMIN_TOKEN when set. On the embedded database, where one person runs the
 * service on their own machine, one is generated and kept in the database so that a newcomer has
 * one without configuring anything. On a server database without ADMIN_TOKEN the admin API is off.
 */
export class AdminToken extends Context.Service<AdminToken, {
  readonly token: Option.Option<string>
  readonly generated: boolean
}>()("app/Admin/AdminToken") {
  static readonly layer = Layer.effect(
    this,
    Effect.gen(function*() {
      const config = yield* AppConfig
      const projects = yield* Projects
      if (Option.isSome(config.adminToken)) {
        return { token: Option.some(Redacted.value(config.adminToken.value)), generated: false }
      }
      if (Option.isSome(config.databaseUrl)) return { token: Option.none<string>(), generated: false }
      const stored = yield* projects.getSetting(settingName)
      if (stored !== undefined) return { token: Option.some(stored), generated: false }
      const token = newAdminToken()
      yield* projects.putSetting(settingName, token)
      return { token: Option.some(token), generated: true }
    })
  ).pipe(Layer.provide(Projects.layer))
}
