import { Context, Effect, FileSystem, Latch, Layer, Path, type Scope, Stdio, Terminal, Tracer } from "effect"
import { Etag, HttpPlatform, HttpRouter, HttpServer, HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiSwagger } from "effect/http-api"
import { ChildProcessSpawner } from "effect/process"
import { Agents } from "../Admin/Agents.ts"
import { AdminHttpLive } from "../Admin/Http.ts"
import { Api } from "../Api.ts"
import { Articles } from "../Articles/Articles.ts"
import { AppConfig } from "../Config.ts"
import * as Database from "../Database/Database.ts"
import { ArticlesHttpLive } from "../Articles/Http.ts"
import { Automation } from "../Automation/Automation.ts"
import { AutomationHttpLive } from "../Automation/Http.ts"
import { HealthHttpLive } from "../Health/Http.ts"
import { ObservabilityHttpLive } from "../Observability/Http.ts"
import { Observability } from "../Observability/Observability.ts"
import { untracedRequests } from "../Observability/TraceContext.ts"
import { Readiness } from "../Health/Readiness.ts"
import { Projects } from "../Projects/Projects.ts"
import { serviceKeys } from "../Services.ts"
import { SearchHttpLive } from "../Search/Http.ts"
import { Search } from "../Search/Search.ts"
import { SiteHttpLive } from "../Site/Http.ts"
import { TicketsHttpLive } from "../Tickets/Http.ts"
import { Tickets } from "../Tickets/Tickets.ts"
import { WebhooksHttpLive } from "../Webhooks/Http.ts"
import { Webhooks } from "../Webhooks/Webhooks.ts"
import { AdminAuthLive, ProjectAuthLive } from "./Authentication.ts"
import { EnvelopeLive } from "./Envelope.ts"
import { builtFrom } from "./Groups.ts"
import { Idempotency } from "./Idempotency.ts"
import { RateLimit } from "./RateLimit.ts"
import { AdminAuth, ProjectAuth } from "./Security.ts"

const ApiRoutes = HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([
    HealthHttpLive.pipe(builtFrom(RateLimit, Readiness)),
    TicketsHttpLive.pipe(builtFrom(Tickets, Idempotency, ProjectAuth)),
    ArticlesHttpLive.pipe(builtFrom(Articles, ProjectAuth)),
    SearchHttpLive.pipe(builtFrom(Search, ProjectAuth)),
    AdminHttpLive.pipe(builtFrom(Projects, Articles, Tickets, Agents, AdminAuth)),
    WebhooksHttpLive.pipe(builtFrom(Webhooks, AdminAuth)),
    AutomationHttpLive.pipe(builtFrom(Automation, AdminAuth)),
    ObservabilityHttpLive.pipe(builtFrom(Observability, AdminAuth)),
    SiteHttpLive.pipe(builtFrom(Database.DatabaseInfo, Projects))
  ]),
  Layer.provide([ProjectAuthLive, AdminAuthLive])
)

/** Every route and middleware of the service. */
export const RoutesLive = Layer.mergeAll(ApiRoutes, HttpApiSwagger.layer(Api, { path: "/docs" }), EnvelopeLive)

/**
 * A request's fiber starts from the context the server is built in, which HttpApiBuilder copies
 * on every request to merge in its group's. Handlers reach the services through their groups and
 * nothing answers with files, so requests go without the services, ours and the platform's: what
 * is left to copy is the runtime's settings (log level, tracing, clock) and the request itself.
 */
const withoutServices = Context.omit(
  // a request's span is the root of its trace (or its caller's child), never a child of whatever
  // span the server was started in
  Tracer.ParentSpan,
  AppConfig,
  ...Database.serviceKeys,
  ...serviceKeys,
  HttpServer.HttpServer,
  HttpPlatform.HttpPlatform,
  Etag.Generator,
  FileSystem.FileSystem,
  Path.Path,
  Stdio.Stdio,
  Terminal.Terminal,
  ChildProcessSpawner.ChildProcessSpawner,
  Layer.CurrentMemoMap
)

/**
 * The service on `server`. Every route is built before the server layer is, so the socket
 * opens only when it can answer: a socket open before that would accept requests that nothing
 * ever answers.
 */
const serveOn = <E, R>(server: Layer.Layer<HttpServer.HttpServer, E, R>) =>
  Layer.unwrap(Effect.map(HttpRouter.toHttpEffect(RoutesLive), (app) =>
    Layer.effectDiscard(
      Effect.flatMap(HttpServer.HttpServer, (http) =>
        http.serve(app).pipe(
          Effect.updateContext((context: Context.Context<Scope.Scope>) => untracedRequests(withoutServices(context)))
        ))
    ).pipe(Layer.provideMerge(server))))

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
export const serveOnceStarted = <E, R, E2, R2>(
  server: Layer.Layer<HttpServer.HttpServer, E, R>,
  startup: Layer.Layer<never, E2, R2>
) =>
  Layer.unwrap(Effect.sync(() => {
    const started = Latch.makeUnsafe(false)
    const ready = Layer.effectDiscard(Effect.gen(function*() {
      const readiness = yield* Readiness
      const { shutdownDrain } = yield* AppConfig
      yield* started.open
      yield* readiness.started
      // registered last, so run first when the process stops; a balancer learns of it only at
      // its next probe, and meanwhile the instance keeps taking what it is sent
      yield* Effect.addFinalizer(() => Effect.andThen(readiness.stopping, Effect.sleep(shutdownDrain)))
    }))
    return ready.pipe(
      Layer.provide(startup),
      Layer.provideMerge(serveOn(answeringWhen(started).pipe(Layer.provide(server))))
    )
  }))
