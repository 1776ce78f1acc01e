import { Clock, Context, Effect, Layer } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { AppConfig } from "../Config.ts"
import { DatabaseInfo } from "../Database/Database.ts"
import { JobsRepo } from "../Jobs/Repo.ts"
import { recordPool, recordQueue, registerKnownSeries } from "./Metrics.ts"
import { ObservabilityRepo } from "./Repo.ts"

/**
 * The figures operators scrape. Counters and histograms are kept as things happen; what the
 * database holds (the queue, the connections) is read at the scrape, so nothing polls for it
 * while nobody looks.
 */
export class Observability extends Context.Service<Observability>()("app/Observability", {
  make: Effect.gen(function*() {
    const jobs = yield* JobsRepo
    const repo = yield* ObservabilityRepo
    const database = yield* DatabaseInfo
    const config = yield* AppConfig
    const poolSize = database.kind === "embedded" ? 1 : config.databasePoolSize
    registerKnownSeries(yield* Effect.context<never>())
    // the session keeps a running total of its busy time; the counter takes what was added since
    let sessionBusyCounted = 0
    const sessionFigures = () => {
      const session = database.sessionFigures?.()
      if (session === undefined) return undefined
      const busySecondsAdded = Math.max(0, session.busySeconds - sessionBusyCounted)
      sessionBusyCounted += busySecondsAdded
      return { busySecondsAdded, waiting: session.waiting }
    }

    const prometheusText = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const [queue, states] = yield* Effect.all([
        jobs.queueFigures(now),
        database.kind === "server" ? repo.connectionStates : Effect.succeed(undefined)
      ], { concurrency: "unbounded" })
      const context = yield* Effect.context<never>()
      recordQueue(context, queue)
      recordPool(context, { max: poolSize, byState: states, session: sessionFigures() })
      return yield* PrometheusMetrics.format()
    })

    return { prometheusText }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([JobsRepo.layer, ObservabilityRepo.layer])
  )
}
