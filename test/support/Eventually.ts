import { Effect } from "effect"

const pollEvery = 25
const defaultPatience = 15_000

/**
 * Runs `probe` every 25 ms until it says it is done, for at most 15 s (or `patience` ms); then
 * fails naming what it waited for and the last thing it saw. For outcomes of the background
 * pipeline and of other processes: wall-clock time on purpose, whatever clock the test runs on.
 */
export const eventually = <A, E, R>(
  what: string,
  probe: Effect.Effect<{ readonly done: boolean; readonly value: A }, E, R>,
  patience = defaultPatience
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const deadline = performance.now() + patience
    for (;;) {
      const seen = yield* probe
      if (seen.done) return seen.value
      if (performance.now() > deadline) {
        return yield* Effect.die(
          new Error(`gave up after ${patience} ms waiting for ${what}; last seen: ${JSON.stringify(seen.value)}`)
        )
      }
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, pollEvery)))
    }
  })

/** `eventually` for a probe that gives a value once it has one, and undefined until then. */
export const eventuallyDefined = <A, E, R>(
  what: string,
  probe: Effect.Effect<A | undefined, E, R>,
  patience = defaultPatience
): Effect.Effect<A, E, R> =>
  Effect.map(
    eventually(what, Effect.map(probe, (value) => ({ done: value !== undefined, value })), patience),
    (value) => value as A
  )
