import { HttpApiBuilder, HttpApiSwagger, HttpMiddleware } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Layer } from "effect"
import { createServer } from "node:http"
import { AdminToken } from "../Admin/AdminToken.ts"
import { AdminHttpLive } from "../Admin/Http.ts"
import { AgentsRepo } from "../Admin/Repo.ts"
import { Api } from "../Api.ts"
import { Articles } from "../Articles/Articles.ts"
import { Automation } from "../Automation/Automation.ts"
import { AutomationHttpLive } from "../Automation/Http.ts"
import { ArticlesHttpLive } from "../Articles/Http.ts"
import { HealthHttpLive } from "../Health/Http.ts"
import { Projects } from "../Projects/Projects.ts"
import { SearchHttpLive } from "../Search/Http.ts"
import { SiteHttpLive } from "../Site/Http.ts"
import { Search } from "../Search/Search.ts"
import { TicketsHttpLive } from "../Tickets/Http.ts"
import { Tickets } from "../Tickets/Tickets.ts"
import { WebhooksHttpLive } from "../Webhooks/Http.ts"
import { Webhooks } from "../Webhooks/Webhooks.ts"
import { AdminAuthLive, ProjectAuthLive } from "./Authentication.ts"
import { EnvelopeLive } from "./Envelope.ts"
import { Idempotency } from "./Idempotency.ts"
import { RateLimit } from "./RateLimit.ts"

/** Every service the handlers call; needs AppConfig and the database. */
export const ServicesLive = Layer.mergeAll(
  Projects.Default,
  Tickets.Default,
  Articles.Default,
  Search.Default,
  AgentsRepo.Default,
  AdminToken.Default,
  Idempotency.Default,
  RateLimit.Default,
  Webhooks.Default,
  Automation.Default
)

const ApiLive = HttpApiBuilder.api(Api).pipe(
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

const served = HttpApiBuilder.serve().pipe(
  // no trace exporter is configured: a span per request would be built and thrown away
  HttpMiddleware.withTracerDisabledWhen(() => true)
)

const routesAndMiddleware = <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  layer.pipe(
    Layer.provide(EnvelopeLive),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
    Layer.provide(ApiLive)
  )

/** The routes and middleware of the service, on whatever HttpServer is provided. */
export const HttpLive = routesAndMiddleware(served)

export const listen = (port: number, host: string) => NodeHttpServer.layer(createServer, { port, host })

/**
 * The service on `server`, which starts listening only once every route is built: a socket
 * open before that accepts requests that nothing would ever answer.
 */
export const serveOn = (server: ReturnType<typeof listen>) =>
  routesAndMiddleware(served.pipe(Layer.provide(server)))

