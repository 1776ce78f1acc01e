import { ByteSize, Duration, Effect, Latch, Layer } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServer, HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { AppConfig } from "../Config.ts"
import type { DatabaseOutage } from "../Database/Outage.ts"
import { Readiness } from "../Health/Readiness.ts"
import { DocsLive } from "../Site/Docs.ts"
import { EnvelopeLive } from "./Envelope.ts"
import { maxBodyBytes } from "./Failures.ts"

/**
 * Every route and the envelope around them, which answers for the database's outages. Nothing of
 * the service answers with files, so the builder gets the platform's plain services rather than the
 * process's file system. The OpenAPI document and its reference come compressed from DocsLive.
 */
const routes = <A, E, R, E2, R2>(handlers: Layer.Layer<A, E, R>, outage: Layer.Layer<DatabaseOutage, E2, R2>) =>
  Layer.mergeAll(
    HttpApiBuilder.layer(Api).pipe(
      Layer.provide(HttpServer.layerServices),
      Layer.provide(handlers)
    ),
    DocsLive,
    EnvelopeLive.pipe(Layer.provide(outage))
  )

/**
 * The service on `server`. Every route is built before the server layer is, so the socket opens
 * only when it can answer: a socket open before that would accept requests that nothing ever
 * answers. A body is read up to 1 MiB, on every route.
 */
const serveOn = <A, E, R, E2, R2, E3, R3>(
  handlers: Layer.Layer<A, E2, R2>,
  outage: Layer.Layer<DatabaseOutage, E3, R3>,
  server: Layer.Layer<HttpServer.HttpServer, E, R>
) =>
  Layer.unwrap(Effect.map(HttpRouter.toHttpEffect(routes(handlers, outage)), (app) =>
    Layer.effectDiscard(Effect.flatMap(HttpServer.HttpServer, (http) => http.serve(app))).pipe(
      Layer.provideMerge(server),
      Layer.provide(Layer.succeed(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes)))
    )))

const isReadinessProbe = (url: string) => url === "/ready" || url.startsWith("/ready?")

/**
 * The server, answering only once `started` opens: a request that arrives before waits for it
 * rather than being lost, since the socket opens before start-up is done. A readiness probe is
 * answered at once instead (503, starting): a load balancer must not wait on it.
 */
const answeringWhen = (started: Latch.Latch) =>
  Layer.effect(
    HttpServer.HttpServer,
    Effect.map(HttpServer.HttpServer, (server) =>
      HttpServer.make({
        address: server.address,
        serve: (app, middleware) => {
          const gated = Effect.suspend(() =>
            started.isOpen() ? app : Effect.flatMap(
              HttpServerRequest.HttpServerRequest,
              (request) => isReadinessProbe(request.url) ? app : started.whenOpen(app)
            )
          )
          return middleware === undefined ? server.serve(gated) : server.serve(gated, middleware)
        }
      }))
  )

/**
 * The service on `server` as a process runs it: `startup` runs once the port is bound, requests
 * wait for it, and only then is the instance ready. On shutdown it turns not ready first and
 * keeps accepting for SHUTDOWN_DRAIN, so a load balancer stops sending before the port closes,
 * then requests in flight finish.
 */
export const serving = <A, E, R, E2, R2, E3, R3, E4, R4, E5, R5>(parts: {
  readonly server: Layer.Layer<HttpServer.HttpServer, E, R>
  readonly startup: Layer.Layer<never, E2, R2>
  readonly handlers: Layer.Layer<A, E3, R3>
  readonly readiness: Layer.Layer<Readiness, E4, R4>
  readonly outage: Layer.Layer<DatabaseOutage, E5, R5>
}) =>
  Layer.unwrap(Effect.map(Latch.make(false), (started) => {
    const ready = Layer.effectDiscard(Effect.gen(function*() {
      const readiness = yield* Readiness
      const { shutdownDrain } = yield* AppConfig
      yield* started.open
      yield* readiness.started
      // registered last, so run first when the process stops; a balancer learns of it only at
      // its next probe, and meanwhile the instance keeps taking what it is sent
      yield* Effect.addFinalizer(() =>
        Effect.logInfo(
          Duration.isZero(shutdownDrain)
            ? "shutting down: finishing what is in flight"
            : `shutting down: answering not ready for ${Duration.format(shutdownDrain)} (SHUTDOWN_DRAIN), then finishing what is in flight`
        ).pipe(Effect.andThen(readiness.stopping), Effect.andThen(Effect.sleep(shutdownDrain)))
      )
    }))
    return ready.pipe(
      Layer.provide(parts.startup),
      Layer.provide(parts.readiness),
      Layer.provideMerge(serveOn(parts.handlers, parts.outage, answeringWhen(started).pipe(Layer.provide(parts.server))))
    )
  }))
