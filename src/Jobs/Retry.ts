import { Duration, Effect, Option, Schedule, ScheduleDecision } from "effect"

/**
 * The delay before the next attempt of a job that has failed `failures` times, or none when the
 * policy gives up. The attempt count lives in the database, not in a fiber, so the schedule is
 * stepped from its start on every failure: a restart or another instance continues the same
 * schedule instead of starting it over.
 */
export const delayAfter = <Out>(policy: Schedule.Schedule<Out, unknown>, failures: number) =>
  Effect.gen(function*() {
    const delays = Schedule.delays(policy)
    let state = delays.initial
    let delay = Duration.zero
    for (let step = 0; step < failures; step++) {
      const [next, out, decision] = yield* delays.step(0, undefined, state)
      if (ScheduleDecision.isDone(decision)) return Option.none<Duration.Duration>()
      state = next
      delay = out
    }
    return Option.some(delay)
  })

/** The webhook schedule of CONTRACT: the configured delays, each with up to 10% added, never subtracted. */
export const webhookPolicy = (delays: ReadonlyArray<Duration.Duration>) =>
  Schedule.fromDelays(delays[0] ?? Duration.zero, ...delays.slice(1)).pipe(Schedule.jitteredWith({ min: 1, max: 1.1 }))

/** Everything else that can fail for a while (a model, a tracker, a mail server): 1s, 4s, 16s, 64s, 256s. */
export const backoffPolicy = Schedule.exponential("1 second", 4).pipe(Schedule.intersect(Schedule.recurs(5)))

/** An attempt asked for by a person (redeliver): one try, no retries. */
export const oncePolicy = Schedule.stop
