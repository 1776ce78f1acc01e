import { Cause, Context, Duration, Effect, Layer, type LogLevel, Schedule } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { ServiceUnavailable } from "../Domain/Errors.ts"

/**
 * SQLSTATEs of a server that is going away or not yet back (admin or crash shutdown, still
 * starting, out of connections): the driver files them as unknown, but they say the same as a
 * refused connection does.
 */
const unavailableStates = new Set(["57P01", "57P02", "57P03", "53300"])

/** The SQLSTATE a server's error carries, found on the cause the driver keeps. */
export const sqlStateOf = (cause: unknown) =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : undefined

/** Whether `error` says the database cannot be reached now, rather than that a statement is wrong. */
export const isDatabaseUnavailable = (error: unknown): boolean =>
  SqlError.isSqlError(error) &&
  (error.reason._tag === "ConnectionError" || unavailableStates.has(sqlStateOf(error.reason.cause) ?? ""))

/** The first failure or defect of `cause` that says the database is away, if any. */
const unavailabilityIn = (cause: Cause.Cause<unknown>) => {
  for (const reason of cause.reasons) {
    const error = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    if (isDatabaseUnavailable(error)) return error as SqlError.SqlError
  }
  return undefined
}

/** How long a client is told to wait: about as long as the watch below takes to see the database back. */
export const retryAfterSeconds = 2

const probeEvery = Duration.seconds(1)
const probeTimeout = Duration.seconds(2)

/** What a failure that an outage explains is counted as, in the line that ends it. */
export type Turned = "request" | "background"

/**
 * The database being away, as one event rather than a failure per query: the first failure that
 * says so logs the outage once, every later one is only counted, and a watch that asks the
 * database every second logs its end with those counts. Requests meanwhile answer 503 with
 * `Retry-After` (see Http/Failures), and the pipeline's steps wait for their next turn.
 */
export class DatabaseOutage extends Context.Service<DatabaseOutage, {
  /** Whether `cause` is the database being away; if it is, it is counted against the outage, not logged. */
  readonly absorbs: (cause: Cause.Cause<unknown>, turned: Turned) => Effect.Effect<boolean>
  /** Logs `message` with `cause` (an error unless told), unless the outage explains the cause. */
  readonly logUnlessAway: (
    message: string,
    level?: LogLevel.Severity
  ) => (cause: Cause.Cause<unknown>) => Effect.Effect<void>
}>()("app/Database/DatabaseOutage") {
  static readonly layer = Layer.effect(
    DatabaseOutage,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const scope = yield* Effect.scope
      let since: number | undefined
      const counts: Record<Turned, number> = { request: 0, background: 0 }

      const ping = sql`SELECT 1`.pipe(Effect.timeout(probeTimeout), Effect.withTracerEnabled(false))
      const ended = Effect.suspend(() => {
        const seconds = ((performance.now() - (since ?? performance.now())) / 1000).toFixed(1)
        const line = `database available again after ${seconds} s; ${counts.request} requests answered 503, ` +
          `${counts.background} background steps deferred`
        since = undefined
        counts.request = 0
        counts.background = 0
        return Effect.logInfo(line)
      })
      const watch = Effect.retry(ping, Schedule.spaced(probeEvery)).pipe(
        Effect.delay(probeEvery),
        Effect.andThen(ended)
      )

      const absorbs = (cause: Cause.Cause<unknown>, turned: Turned) =>
        Effect.suspend(() => {
          const error = unavailabilityIn(cause)
          if (error === undefined) return Effect.succeed(false)
          counts[turned]++
          if (since !== undefined) return Effect.succeed(true)
          since = performance.now()
          return Effect.logWarning(
            `database unavailable (${error.message}); answering ${ServiceUnavailable.status} ${ServiceUnavailable.code} until it is back`
          ).pipe(Effect.andThen(Effect.forkIn(watch, scope)), Effect.as(true))
        })

      const logUnlessAway = (message: string, level: LogLevel.Severity = "Error") => (cause: Cause.Cause<unknown>) =>
        Effect.flatMap(
          absorbs(cause, "background"),
          (away) => away ? Effect.void : Effect.logWithLevel(level)(message, cause)
        )

      return { absorbs, logUnlessAway }
    })
  )
}
