import { HttpApi, OpenApi } from "effect/http-api"
import { AdminApi } from "./Admin/Api.ts"
import { ArticlesApi } from "./Articles/Api.ts"
import { AutomationApi } from "./Automation/Api.ts"
import { HealthApi } from "./Health/Api.ts"
import { ObservabilityApi } from "./Observability/Api.ts"
import { serviceVersion } from "./Health/Version.ts"
import { SearchApi } from "./Search/Api.ts"
import { SiteApi } from "./Site/Api.ts"
import { TicketsApi } from "./Tickets/Api.ts"
import { WebhooksApi } from "./Webhooks/Api.ts"

/** The whole HTTP contract; the OpenAPI document, the typed client and the envelope are derived from it. */
export class Api extends HttpApi.make("support")
  .add(HealthApi, TicketsApi, ArticlesApi, SearchApi, AdminApi, WebhooksApi, AutomationApi, ObservabilityApi, SiteApi)
  .annotate(OpenApi.Title, "Support ticketing service")
  .annotate(OpenApi.Version, serviceVersion) {}
