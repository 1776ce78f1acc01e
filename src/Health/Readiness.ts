import { NodeServices } from "@effect/platform-node"
import { Context, Deferred, Duration, Effect, Exit, Layer, Option } from "effect"
import { AppConfig } from "../Config.ts"
import * as Migrator from "../Database/Migrator.ts"
import { ServiceUnavailable } from "../Domain/Errors.ts"
import { RateLimit } from "../RateLimit/RateLimit.ts"
import { HealthRepo } from "./Repo.ts"

/** A hung database or Redis must give a 503, never a probe that hangs with it. */
const checkTimeout = Duration.seconds(2)

const answers = <A, E>(check: Effect.Effect<A, E>) =>
  check.pipe(
    Effect.exit,
    Effect.map(Exit.isSuccess),
    Effect.timeoutOrElse({ duration: checkTimeout, orElse: () => Effect.succeed(false) })
  )

type Phase = "starting" | "serving" | "stopping"

/**
 * Whether this instance should get traffic, for a load balancer: not while it starts or stops,
 * nor while the database, its schema or the configured Redis fail it. Liveness (/health) is
 * another question and stays 200 through all of that.
 */
export class Readiness extends Context.Service<Readiness>()("app/Health/Readiness", {
  make: Effect.gen(function*() {
    const repo = yield* HealthRepo
    const rateLimit = yield* RateLimit
    const config = yield* AppConfig
    const carried = yield* Effect.orDie(Migrator.carried)
    const redisConfigured = Option.isSome(config.redisUrl)
    let phase: Phase = "starting"
    const stopped = yield* Deferred.make<void>()

    const migrationsMissing = Effect.map(
      repo.appliedMigrations,
      (applied) => [...carried].filter(([id]) => !applied.has(id)).map(([, name]) => name)
    )

    const check = Effect.fn("Readiness.check")(function*() {
      if (phase === "starting") return yield* new ServiceUnavailable({ message: "not ready: the service is starting" })
      if (phase === "stopping") {
        return yield* new ServiceUnavailable({ message: "not ready: the service is shutting down" })
      }
      const [database, missing, redis] = yield* Effect.all([
        answers(repo.ping),
        migrationsMissing.pipe(
          Effect.map(Option.some),
          Effect.timeoutOrElse({ duration: checkTimeout, orElse: () => Effect.succeedNone }),
          Effect.catchCause(() => Effect.succeedNone)
        ),
        redisConfigured ? rateLimit.pingStore : Effect.succeed(true)
      ], { concurrency: "unbounded" })
      const failing: Array<string> = []
      if (!database) failing.push("the database does not answer")
      // with the database down the migrations cannot be read, and that is the database's failure
      else if (Option.isNone(missing)) failing.push("the migrations cannot be read")
      else if (missing.value.length > 0) failing.push(`migrations not applied: ${missing.value.join(", ")}`)
      if (!redis) failing.push("Redis does not answer")
      if (failing.length > 0) return yield* new ServiceUnavailable({ message: `not ready: ${failing.join("; ")}` })
      return {
        status: "ready",
        checks: { database: "ok", migrations: "ok", redis: redisConfigured ? "ok" : "not_configured" }
      } as const
    })

    return {
      check,
      /** Start-up is done: traffic is welcome once the checks hold. */
      started: Effect.sync(() => {
        if (phase === "starting") phase = "serving"
      }),
      /** Shutdown has begun: a load balancer should stop sending while requests in flight finish. */
      stopping: Effect.andThen(
        Effect.sync(() => {
          phase = "stopping"
        }),
        Deferred.succeed(stopped, undefined)
      ),
      /** Waits until shutdown begins: what never finishes by itself (an event stream) ends then. */
      whenStopping: Deferred.await(stopped)
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([HealthRepo.layer, NodeServices.layer]))
}
