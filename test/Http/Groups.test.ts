/**
 * `answeredDirectly`: an endpoint served from its own route, past HttpApiBuilder's per-request
 * steps, while the rest of its group is still served by the builder; and a start that fails,
 * rather than serving it the slow way, when the builder's routes are not where it looks.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schema } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { answeredDirectly } from "../../src/Http/Groups.ts"

class Probes extends HttpApiGroup.make("probes").add(
  HttpApiEndpoint.get("live", "/live", { success: Schema.Struct({ from: Schema.String }) }),
  HttpApiEndpoint.get("other", "/other", { success: Schema.Struct({ from: Schema.String }) })
) {}

class ProbesApi extends HttpApi.make("probes").add(Probes) {}

const direct = HttpServerResponse.jsonUnsafe({ from: "direct" })

const probes = HttpApiBuilder.group(ProbesApi, "probes", (handlers) =>
  handlers
    .handleRaw("live", () => Effect.succeed(HttpServerResponse.jsonUnsafe({ from: "builder" })))
    .handle("other", () => Effect.succeed({ from: "builder" })))

const served = (group: typeof probes) =>
  HttpRouter.toWebHandler(
    HttpApiBuilder.layer(ProbesApi).pipe(Layer.provide([group, HttpServer.layerServices])),
    { disableLogger: true }
  )

const answer = (handler: (request: Request) => Promise<Response>, path: string) =>
  Effect.promise(async () => {
    const response = await handler(new Request(`http://localhost${path}`))
    return { status: response.status, body: await response.json() }
  })

describe("answeredDirectly", () => {
  it.effect("serves the endpoint from the direct answer and the rest of the group from the builder", () =>
    Effect.gen(function*() {
      const web = served(probes.pipe(answeredDirectly(Probes, "live", Effect.succeed(direct))))
      yield* Effect.addFinalizer(() => Effect.promise(web.dispose))
      expect(yield* answer(web.handler, "/live")).toEqual({ status: 200, body: { from: "direct" } })
      expect(yield* answer(web.handler, "/other")).toEqual({ status: 200, body: { from: "builder" } })
      // without it, the builder's handler answers: the test above would see it if nothing were replaced
      const plain = served(probes)
      yield* Effect.addFinalizer(() => Effect.promise(plain.dispose))
      expect(yield* answer(plain.handler, "/live")).toEqual({ status: 200, body: { from: "builder" } })
    }).pipe(Effect.scoped))

  it.effect("fails the build when the layer holds no route for the endpoint", () =>
    Effect.gen(function*() {
      const built = yield* Layer.build(Layer.empty.pipe(answeredDirectly(Probes, "live", Effect.succeed(direct)))).pipe(
        Effect.scoped,
        Effect.exit
      )
      expect(Exit.isFailure(built)).toBe(true)
      expect(String(Exit.isFailure(built) ? built.cause : "")).toContain(`HttpApiGroup "probes" hold no route for "live"`)
    }))
})
