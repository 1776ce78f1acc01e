import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit } from "effect"
import { makeTestLayer } from "./TestLayer.ts"

class Greeter extends Context.Service<Greeter, {
  readonly greet: (name: string) => Effect.Effect<string>
  readonly farewell: (name: string) => Effect.Effect<string>
  readonly count: Effect.Effect<number>
}>()("test/Greeter") {}

const dieMessage = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? String(Cause.squash(exit.cause)) : "succeeded"

describe("makeTestLayer", () => {
  const greeter = makeTestLayer(Greeter)({ greet: (name) => Effect.succeed(`hello ${name}`) })

  it.effect("answers with the members the test gave", () =>
    Effect.gen(function*() {
      expect(yield* (yield* Greeter).greet("ana")).toBe("hello ana")
    }).pipe(Effect.provide(greeter)))

  it.effect("fails, naming the service and the member, when a method the test did not give is called", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit((yield* Greeter).farewell("ana"))
      expect(dieMessage(exit)).toContain(`test/Greeter: the test's mock has no "farewell"`)
    }).pipe(Effect.provide(greeter)))

  it.effect("fails the same way when an effect member the test did not give is run", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit((yield* Greeter).count)
      expect(dieMessage(exit)).toContain(`test/Greeter: the test's mock has no "count"`)
    }).pipe(Effect.provide(greeter)))
})
