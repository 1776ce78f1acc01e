import { Context, Effect, Layer, type Scope } from "effect"
import { HttpRouter, type HttpServerResponse } from "effect/http"
import type { HttpApiGroup } from "effect/http-api"

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

/**
 * A group's endpoint answered by `answer` straight from the router. HttpApiBuilder runs every
 * request of an endpoint through a generator, error reporting, a catch and a merge of the group's
 * context into the request's, to decode its input and encode its output; an endpoint that reads
 * no input and whose answer is a ready response needs none of it, and for the liveness probe,
 * the most frequent request of all, that was about 6 % of its CPU. The endpoint stays in the
 * contract (OpenAPI, the typed client, the envelope's routes) and in the group's handlers, which
 * must answer it the same way: only its route is replaced.
 *
 * HttpApiBuilder.layer adds each group's routes, as the group's layer lists them, to the router;
 * that list is not in the types, so a build whose group holds no such route fails at start
 * rather than serving the endpoint the slow way unnoticed.
 */
export const answeredDirectly = <Name extends string>(
  group: Pick<HttpApiGroup.Top, "key" | "identifier"> & {
    readonly endpoints: Record<Name, { readonly method: string; readonly path: string }>
  },
  endpoint: Name,
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse>
) =>
<A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.fromBuild((memoMap, scope) =>
    Effect.flatMap(buildOf(layer)(memoMap, scope), (context) => {
      const { method, path } = group.endpoints[endpoint]
      const routes = (context.mapUnsafe.get(group.key) as { routes?: Array<HttpRouter.Route<any, any>> } | undefined)?.routes
      const at = routes?.findIndex((route) => route.method === method && route.path === path) ?? -1
      if (routes === undefined || at === -1) {
        return Effect.die(new Error(`the routes of HttpApiGroup "${group.identifier}" hold no route for "${endpoint}"`))
      }
      // nothing in a ready answer to interrupt; the router then skips making the fiber interruptible
      routes[at] = HttpRouter.route(routes[at]!.method, routes[at]!.path, answer, { uninterruptible: true })
      return Effect.succeed(context)
    })
  )
