import { Effect } from "effect"

const pollEvery = 50
const patience = 15_000

/**
 * Runs `probe` every 50 ms until it says it is done, for at most 15 s; then fails naming what it
 * waited for and the last thing it saw. For outcomes of the background pipeline.
 */
export const eventually = <A, E, R>(
  what: string,
  probe: Effect.Effect<{ readonly done: boolean; readonly value: A }, E, R>
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const deadline = Date.now() + patience
    for (;;) {
      const seen = yield* probe
      if (seen.done) return seen.value
      if (Date.now() > deadline) {
        return yield* Effect.dieMessage(
          `gave up after ${patience} ms waiting for ${what}; last seen: ${JSON.stringify(seen.value)}`
        )
      }
      yield* Effect.sleep(pollEvery)
    }
  })
