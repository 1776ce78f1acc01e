import { type Context, Effect, Layer } from "effect"

/**
 * What a test gets for a member of a mock it did not fill in: something that fails loudly, naming
 * the service and the member, whether it is called (a method) or run as it is (an effect member
 * such as `Projects.list`).
 */
const unimplemented = (service: string, member: PropertyKey) => {
  const message = `${service}: the test's mock has no "${String(member)}"`
  const dies = Effect.die(new Error(message))
  return new Proxy(() => dies, {
    // run as an effect, it is the dying effect itself
    get: (_target, property) => Reflect.get(dies, property, dies),
    has: (_target, property) => Reflect.has(dies, property)
  })
}

/**
 * A layer of `service` from only the members a test uses (after Effect-TS/examples' `lib/Layer.ts`):
 * the rest fail the test with the member's name the moment something reaches them, so a mock never
 * answers for what its test did not decide.
 *
 *     makeTestLayer(TicketsRepo)({ findPublic: () => Effect.succeedNone })
 */
export const makeTestLayer = <I, S extends object>(service: Context.Key<I, S>) => (members: Partial<S>): Layer.Layer<I> =>
  Layer.succeed(
    service,
    new Proxy(members as S, {
      get: (target, property) =>
        // what runtimes ask of any object (a promise's then, a symbol) is no member of the service
        property in target || typeof property === "symbol" || property === "then" || property === "toJSON"
          ? Reflect.get(target, property)
          : unimplemented(service.key, property)
    })
  )
