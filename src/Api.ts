import { HttpApi, OpenApi } from "@effect/platform"
import { AdminApi } from "./Admin/Api.ts"
import { ArticlesApi } from "./Articles/Api.ts"
import { AutomationApi } from "./Automation/Api.ts"
import { InternalErrorWire, PayloadTooLargeWire, ValidationErrorWire } from "./Domain/Errors.ts"
import { HealthApi } from "./Health/Api.ts"
import { withoutDecodeError } from "./OpenApiDocument.ts"
import { SearchApi } from "./Search/Api.ts"
import { SiteApi } from "./Site/Api.ts"
import { TicketsApi } from "./Tickets/Api.ts"
import { WebhooksApi } from "./Webhooks/Api.ts"

/** The whole HTTP contract; the OpenAPI document and the envelope are derived from it. */
export class Api extends HttpApi.make("support")
  .add(HealthApi)
  .add(TicketsApi)
  .add(ArticlesApi)
  .add(SearchApi)
  .add(AdminApi)
  .add(WebhooksApi)
  .add(AutomationApi)
  .add(SiteApi)
  .addError(ValidationErrorWire)
  .addError(PayloadTooLargeWire)
  .addError(InternalErrorWire)
  .annotate(OpenApi.Title, "Support ticketing service")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(OpenApi.Transform, withoutDecodeError) {}
