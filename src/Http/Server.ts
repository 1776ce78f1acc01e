import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApiBuilder, HttpApiSwagger } from "effect/http-api"
import { AdminHttpLive } from "../Admin/Http.ts"
import { Api } from "../Api.ts"
import { ArticlesHttpLive } from "../Articles/Http.ts"
import { AutomationHttpLive } from "../Automation/Http.ts"
import { HealthHttpLive } from "../Health/Http.ts"
import { SearchHttpLive } from "../Search/Http.ts"
import { SiteHttpLive } from "../Site/Http.ts"
import { TicketsHttpLive } from "../Tickets/Http.ts"
import { WebhooksHttpLive } from "../Webhooks/Http.ts"
import { AdminAuthLive, ProjectAuthLive } from "./Authentication.ts"
import { EnvelopeLive } from "./Envelope.ts"

const ApiRoutes = HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([
    HealthHttpLive,
    TicketsHttpLive,
    ArticlesHttpLive,
    SearchHttpLive,
    AdminHttpLive,
    WebhooksHttpLive,
    AutomationHttpLive,
    SiteHttpLive
  ]),
  Layer.provide([ProjectAuthLive, AdminAuthLive])
)

/** Every route and middleware of the service. */
export const RoutesLive = Layer.mergeAll(ApiRoutes, HttpApiSwagger.layer(Api, { path: "/docs" }), EnvelopeLive)

/**
 * The service on `server`. Every route is built before the server layer is, so the socket
 * opens only when it can answer: a socket open before that would accept requests that nothing
 * ever answers.
 */
export const serveOn = <E, R>(server: Layer.Layer<HttpServer.HttpServer, E, R>) =>
  Layer.unwrap(Effect.map(HttpRouter.toHttpEffect(RoutesLive), (app) => HttpServer.serve(app).pipe(Layer.provideMerge(server))))
