/**
 * Grouped statements on their own, with writers that record what they are asked to write (the
 * tickets suite checks the real statement on both databases).
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import * as Grouped from "../../src/Database/Grouped.ts"

const recorder = (options: { readonly failBatchesWith?: number } = {}) => {
  const calls: Array<{ readonly kind: "one" | "batch"; readonly items: ReadonlyArray<number> }> = []
  return {
    calls,
    one: (item: number) => {
      calls.push({ kind: "one", items: [item] })
      return item === options.failBatchesWith ? Effect.die(new Error(`cannot write ${item}`)) : Effect.succeed(item * 10)
    },
    many: (items: ReadonlyArray<number>) => {
      calls.push({ kind: "batch", items })
      return items.includes(options.failBatchesWith ?? NaN)
        ? Effect.die(new Error("the statement failed"))
        : Effect.succeed(items.map((item) => item * 10))
    }
  }
}

/** One lane whose write of `held` waits until `release`, so the callers that come meanwhile queue behind it. */
const laneHolding = (held: number, options: { readonly maxBatch: number; readonly failBatchesWith?: number }) =>
  Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    const written = recorder(options)
    const write = yield* Grouped.statements({
      inFlight: 1,
      maxBatch: options.maxBatch,
      one: (item) => Effect.andThen(item === held ? Deferred.await(gate) : Effect.void, written.one(item)),
      many: written.many
    })
    return { written, write, release: Deferred.succeed(gate, undefined) }
  })

describe("Grouped statements", () => {
  it.effect("a caller alone is written by itself; those who come while a write is on its way go together", () =>
    Effect.gen(function*() {
      // the first write waits until the test lets it go, so the others find it on its way
      const { release, write, written } = yield* laneHolding(1, { maxBatch: 3 })
      const alone = yield* Effect.forkChild(write(1))
      yield* Effect.yieldNow
      const queued = yield* Effect.forkChild(Effect.all([2, 3, 4, 5].map(write), { concurrency: "unbounded" }))
      yield* Effect.yieldNow
      yield* release
      expect(yield* Fiber.join(alone)).toBe(10)
      expect(yield* Fiber.join(queued)).toEqual([20, 30, 40, 50])
      expect(written.calls).toEqual([
        { kind: "one", items: [1] },
        { kind: "batch", items: [2, 3, 4] },
        { kind: "one", items: [5] }
      ])
    }).pipe(Effect.scoped))

  it.effect("a batch that fails is written item by item: only the item that cannot be written fails", () =>
    Effect.gen(function*() {
      const { release, write, written } = yield* laneHolding(0, { maxBatch: 10, failBatchesWith: 3 })
      const opener = yield* Effect.forkChild(write(0))
      yield* Effect.yieldNow
      const results = yield* Effect.forkChild(
        Effect.all([1, 2, 3, 4].map((item) => Effect.exit(write(item))), { concurrency: "unbounded" })
      )
      yield* Effect.yieldNow
      yield* release
      yield* Fiber.join(opener)
      const exits = yield* Fiber.join(results)
      expect(exits.map((exit) => Exit.isSuccess(exit) ? exit.value : "failed")).toEqual([10, 20, "failed", 40])
      expect(written.calls.slice(1).map((call) => call.kind)).toEqual(["batch", "one", "one", "one", "one"])
    }).pipe(Effect.scoped))

  it.effect("what is still queued when the scope closes is written before it ends", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { release, write, written } = yield* laneHolding(0, { maxBatch: 10 }).pipe(Scope.provide(scope))
      const held = yield* Effect.forkChild(write(0))
      yield* Effect.yieldNow
      const queued = yield* Effect.forkChild(Effect.all([1, 2].map(write), { concurrency: "unbounded" }))
      yield* Effect.yieldNow
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* Effect.yieldNow
      yield* release
      yield* Fiber.join(closing)
      expect(yield* Fiber.join(held)).toBe(0)
      expect(yield* Fiber.join(queued)).toEqual([10, 20])
      // the writer held 0 while the scope closed; 1 and 2 waited in the queue and were written after
      expect(written.calls).toEqual([{ kind: "one", items: [0] }, { kind: "one", items: [1] }, { kind: "one", items: [2] }])
    }))
})
