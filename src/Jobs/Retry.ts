import { Cause, Duration, Effect, Exit, Option, Random, Schedule } from "effect"

/**
 * The delay before the next attempt of a job that has failed `failures` times, or none when the
 * policy gives up. The attempt count lives in the database, not in a fiber, so the schedule is
 * stepped from its start on every failure: a restart or another instance continues the same
 * schedule instead of starting it over.
 */
export const delayAfter = <Out>(policy: Schedule.Schedule<Out, unknown>, failures: number) =>
  Effect.gen(function*() {
    const step = yield* Schedule.toStep(policy)
    let delay = Duration.zero
    for (let attempt = 0; attempt < failures; attempt++) {
      const next = yield* Effect.exit(step(0, undefined))
      if (Exit.isFailure(next)) return Option.none<Duration.Duration>()
      delay = next.value[1]
    }
    return Option.some(delay)
  })

/** The given delays, one after the other, and then no more. */
const fromDelays = (delays: ReadonlyArray<Duration.Duration>): Schedule.Schedule<Duration.Duration> =>
  Schedule.fromStep(Effect.sync(() => {
    let index = 0
    return (_now: number, _input: unknown) => {
      const delay = delays[index++]
      return delay === undefined ? Cause.done(Duration.zero) : Effect.succeed([delay, delay] as [Duration.Duration, Duration.Duration])
    }
  }))

/** The webhook schedule of CONTRACT: the configured delays, each with up to 10% added, never subtracted. */
export const webhookPolicy = (delays: ReadonlyArray<Duration.Duration>) =>
  fromDelays(delays).pipe(
    Schedule.modifyDelay(({ duration }) => Effect.map(Random.next, (r) => Duration.times(duration, 1 + 0.1 * r)))
  )

/** Everything else that can fail for a while (a model, a tracker, a mail server): 1s, 4s, 16s, 64s, 256s. */
export const backoffPolicy = Schedule.exponential("1 second", 4).pipe(Schedule.upTo({ times: 5 }))

/** An attempt asked for by a person (redeliver): one try, no retries. */
export const oncePolicy = fromDelays([])
