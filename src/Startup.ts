import { Cause, Console, Data, Effect, Layer, Option, Runtime } from "effect"
import { AdminToken } from "./Admin/AdminToken.ts"
import { AppConfig } from "./Config.ts"
import { DatabaseInfo } from "./Database/Database.ts"
import { DataDirInUse } from "./Database/DataDirLock.ts"
import { seedDemo } from "./Demo/Demo.ts"
import { Projects } from "./Projects/Projects.ts"

/**
 * On an empty embedded database: a demo project with keys and a help centre, printed once with
 * a line to paste, so a newcomer can call the API a minute after `npm start`.
 */
export const StartupLive = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  const database = yield* DatabaseInfo
  const admin = yield* AdminToken
  const projects = yield* Projects
  const base = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${config.port}`
  const lines: Array<string> = []
  if (database.kind === "embedded" && (yield* projects.count) === 0) {
    const demo = yield* Effect.orDie(seedDemo())
    lines.push(
      "A demo project was created on this new embedded database. The keys are shown only this once:",
      `  project id:  ${demo.projectId}`,
      `  full key:    ${demo.fullKey}`,
      `  widget key:  ${demo.widgetKey}   (for the website widget; it can only file and read tickets)`,
      `  ${demo.articles} help-centre articles are published.`,
      "",
      "Try it:",
      `  curl -s -X POST ${base}/v1/tickets -H 'Authorization: Bearer ${demo.fullKey}' -H 'Content-Type: application/json' -d '{"subject":"Cannot log in","body":"The login page says my password is wrong.","sender_email":"jane@example.com"}'`,
      `  curl -s '${base}/v1/articles/search?q=reset+password' -H 'Authorization: Bearer ${demo.fullKey}'`,
      ""
    )
  }
  if (database.kind === "embedded" && Option.isNone(config.adminToken) && Option.isSome(admin.token)) {
    lines.push(`Admin token (kept in the embedded database; set ADMIN_TOKEN to choose your own): ${admin.token.value}`)
  }
  if (Option.isNone(admin.token)) {
    lines.push("The admin API is off: set ADMIN_TOKEN to enable /v1/admin.")
  }
  if (database.kind === "embedded") lines.push(`The support widget on a demo page: ${base}/`)
  lines.push(`API reference: ${base}/docs   OpenAPI: ${base}/openapi.json`)
  yield* Console.log(lines.join("\n"))
}))

/**
 * Why the service cannot start, in one line for whoever started it, when it is something they
 * can change: another process on DATA_DIR. Undefined for anything else.
 */
export const refusalOf = (cause: Cause.Cause<unknown>): string | undefined => {
  for (const reason of cause.reasons) {
    const error = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    if (error instanceof DataDirInUse) return error.message
  }
  return undefined
}

/** Reported by `reportingRefusals` already: runMain only sets the exit code. */
export class Refused extends Data.TaggedError("Refused") {
  override readonly [Runtime.errorReported] = false
}

/**
 * A refusal (see `refusalOf`) goes to stderr as its one line and the process exits 1, instead
 * of a stack trace; every other failure is left to runMain.
 */
export const reportingRefusals = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Refused, R> =>
  Effect.catchCause(effect, (cause): Effect.Effect<never, E | Refused> => {
    const refusal = refusalOf(cause)
    return refusal === undefined ? Effect.failCause(cause) : Effect.andThen(Console.error(refusal), Effect.fail(new Refused()))
  })
