import { HttpApi, OpenApi } from "effect/http-api"
import { AdminApi } from "./Admin/Api.ts"
import { ArticlesApi } from "./Articles/Api.ts"
import { AttachmentsAdminApi, AttachmentsApi } from "./Attachments/Api.ts"
import { AuditApi } from "./Audit/Api.ts"
import { AutomationApi } from "./Automation/Api.ts"
import { SlaApi } from "./Sla/Api.ts"
import { AdminEventsApi, EventsApi } from "./Events/Api.ts"
import { CustomFieldsApi } from "./Fields/Api.ts"
import { HealthApi } from "./Health/Api.ts"
import { MailAdminApi, MailApi } from "./Mail/Api.ts"
import { MergeApi } from "./Merge/Api.ts"
import { ObservabilityApi } from "./Observability/Api.ts"
import { PrivacyApi } from "./Privacy/Api.ts"
import { serviceVersion } from "./Health/Version.ts"
import { SatisfactionAdminApi, SatisfactionApi } from "./Satisfaction/Api.ts"
import { SearchApi } from "./Search/Api.ts"
import { SiteApi } from "./Site/Api.ts"
import { TicketsApi } from "./Tickets/Api.ts"
import { WebhooksApi } from "./Webhooks/Api.ts"

const description = `Tickets, a knowledge base and search for a project's customers, and an operator API for whoever runs the service.

Calls under \`/v1\` and \`/metrics\` send one of three credentials as \`Authorization: Bearer …\`:

- a project's **full key** (\`tf_…\`), kept on the project's own servers: every call under \`/v1\` but the operator API;
- a project's **widget key** (\`tf_…\`), public in a web page: it files tickets (marked \`sender_verified: false\`), searches and reads published articles, and reads and answers a ticket given its sender's email;
- the **admin token** (the \`ADMIN_TOKEN\` setting): the operator API under \`/v1/admin\` and \`/metrics\`.

A refusal or failure is \`{"error": {"code", "message"}}\` with its status, and every answer carries an \`X-Request-Id\`.`

/**
 * The whole HTTP contract; the OpenAPI document, the typed client and the envelope are derived from it.
 * Its description and its one server (relative, as OpenAPI's default is) fill the reference's
 * header and the box of its Authorize button: which credential to give, and where calls go.
 */
export class Api extends HttpApi.make("support")
  .add(HealthApi, TicketsApi, AttachmentsApi, ArticlesApi, SearchApi, EventsApi, AdminApi, WebhooksApi, AutomationApi, SlaApi, CustomFieldsApi, MergeApi, AdminEventsApi, MailApi, MailAdminApi, AttachmentsAdminApi, ObservabilityApi, SatisfactionApi, SatisfactionAdminApi, SiteApi)
  .add(AuditApi)
  .add(PrivacyApi)
  .annotate(OpenApi.Title, "Support ticketing service")
  .annotate(OpenApi.Version, serviceVersion)
  .annotate(OpenApi.Description, description)
  .annotate(OpenApi.Servers, [{ url: "/", description: "this service" }]) {}
