import { Context, Effect, Layer } from "effect"

type Identifiers<Keys extends ReadonlyArray<Context.Key<any, any>>> = Context.Service.Identifier<Keys[number]>

/**
 * Builds a group of handlers from only the services it names. HttpApiBuilder merges the context
 * a group was built in into that of every request the group serves: built amid every service of
 * the process, that is all of them set again on every request; built from what it uses, a
 * handful. The type checks that the list is complete.
 *
 * Named nothing, a group's requests get nothing merged in, and skip the copy of their context
 * that any merge makes (5 % of the CPU of a /health request). That takes handlers that use no
 * service when they run (they closed over what they need when built), and no security
 * middleware, which HttpApiBuilder looks up in that same context.
 */
export const builtFrom = <const Keys extends ReadonlyArray<Context.Key<any, any>>>(...keys: Keys) =>
<A, E>(group: Layer.Layer<A, E, Identifiers<Keys>>): Layer.Layer<A, E, Identifiers<Keys>> =>
  Layer.fromBuild((memoMap, scope) =>
    Layer.buildWithMemoMap(group, memoMap, scope).pipe(
      Effect.updateContext((context: Context.Context<Identifiers<Keys>>) => Context.pick(...keys)(context) as Context.Context<Identifiers<Keys>>)
    )
  )
