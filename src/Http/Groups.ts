import { Context, Effect, Layer, type Scope } from "effect"

type Identifiers<Keys extends ReadonlyArray<Context.Key<any, any>>> = Context.Service.Identifier<Keys[number]>

/**
 * Builds a group of handlers from only the services it names. HttpApiBuilder merges the context
 * a group was built in into that of every request the group serves: built amid every service of
 * the process, that is all of them set again on every request; built from what it uses, a
 * handful. The type checks that the list is complete.
 *
 * Named nothing, a group's requests get nothing merged in: no copy of their context, and no
 * switch of their fiber to the copy and back. That takes handlers that use no service when they
 * run (they closed over what they need when built), and no security middleware, which
 * HttpApiBuilder looks up in that same context.
 */
export const builtFrom = <const Keys extends ReadonlyArray<Context.Key<any, any>>>(...keys: Keys) =>
<A, E>(group: Layer.Layer<A, E, Identifiers<Keys>>): Layer.Layer<A, E, Identifiers<Keys>> =>
  Layer.fromBuild((memoMap, scope) =>
    buildOf(group)(memoMap, scope).pipe(
      Effect.updateContext((context: Context.Context<Identifiers<Keys>>) => Context.pick(...keys)(context) as Context.Context<Identifiers<Keys>>)
    )
  )

/**
 * A layer's own build. Layer.buildWithMemoMap runs it in a context it adds the memo map to, after
 * any narrowing from outside: a group built that way merges the memo map into every request.
 * Every Layer is an object with this one method (Layer.fromBuild makes them so), which the type
 * does not show.
 */
const buildOf = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  (layer as unknown as {
    readonly build: (memoMap: Layer.MemoMap, scope: Scope.Scope) => Effect.Effect<Context.Context<A>, E, R>
  }).build.bind(layer)
