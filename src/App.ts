import * as NodeServices from "@effect/platform-node/NodeServices"
import { Layer } from "effect"
import type { HttpServer } from "effect/http"
import { AdminToken } from "./Admin/AdminToken.ts"
import { Agents } from "./Admin/Agents.ts"
import { AdminHttpLive } from "./Admin/Http.ts"
import { ArticlesHttpLive } from "./Articles/Http.ts"
import { Attachments } from "./Attachments/Attachments.ts"
import { AttachmentsAdminHttpLive, AttachmentsHttpLive } from "./Attachments/Http.ts"
import { Articles } from "./Articles/Articles.ts"
import { Audit } from "./Audit/Audit.ts"
import { AuditHttpLive } from "./Audit/Http.ts"
import { AdminAuthLive, MailAuthLive, ProjectAuthLive } from "./Auth/Http.ts"
import { TicketAccess } from "./Auth/TicketAccess.ts"
import { AutomationHttpLive } from "./Automation/Http.ts"
import { Automation } from "./Automation/Automation.ts"
import { SlaHttpLive } from "./Sla/Http.ts"
import { Sla } from "./Sla/Sla.ts"
import { CustomFields } from "./Fields/CustomFields.ts"
import { CustomFieldsHttpLive } from "./Fields/Http.ts"
import type { AppConfig } from "./Config.ts"
import * as Database from "./Database/Database.ts"
import * as Upkeep from "./Database/Upkeep.ts"
import { EventLog } from "./Events/EventLog.ts"
import { AdminEventsHttpLive, EventsHttpLive } from "./Events/Http.ts"
import { EventsRepo } from "./Events/Repo.ts"
import type { ErrorTracker } from "./ErrorTracker/ErrorTracker.ts"
import { HealthHttpLive } from "./Health/Http.ts"
import { MailAdminHttpLive, MailHttpLive } from "./Mail/Http.ts"
import { InboundMail } from "./Mail/Inbound.ts"
import { MergeHttpLive } from "./Merge/Http.ts"
import { Merge } from "./Merge/Merge.ts"
import { PrivacyHttpLive } from "./Privacy/Http.ts"
import { Privacy } from "./Privacy/Privacy.ts"
import { InboundAddresses } from "./Mail/Addresses.ts"
import { SmtpListenerLive } from "./Mail/SmtpListener.ts"
import { Readiness } from "./Health/Readiness.ts"
import { serving } from "./Http/Server.ts"
import { IdempotentLive } from "./Idempotency/Http.ts"
import { IdempotencyRepo } from "./Idempotency/Repo.ts"
import { EdgeServicesLive, pipelineLayer } from "./Jobs/Pipeline.ts"
import type { Notifier } from "./Notifier/Notifier.ts"
import { ObservabilityHttpLive } from "./Observability/Http.ts"
import { Observability } from "./Observability/Observability.ts"
import { Projects } from "./Projects/Projects.ts"
import { RateLimit } from "./RateLimit/RateLimit.ts"
import { Satisfaction } from "./Satisfaction/Satisfaction.ts"
import { SatisfactionAdminHttpLive, SatisfactionHttpLive } from "./Satisfaction/Http.ts"
import { SearchHttpLive } from "./Search/Http.ts"
import { Search } from "./Search/Search.ts"
import { SiteHttpLive } from "./Site/Http.ts"
import { StartupLive } from "./Startup.ts"
import { TicketsHttpLive } from "./Tickets/Http.ts"
import { Tickets } from "./Tickets/Tickets.ts"
import type { Triage } from "./Triage/Triage.ts"
import { WebhooksHttpLive } from "./Webhooks/Http.ts"
import { Webhooks } from "./Webhooks/Webhooks.ts"

/**
 * The app graph, written once: main.ts, the CLI and the test server all take from here. Every
 * layer gets what it needs with `Layer.provide`, so each part is built from its own dependencies
 * alone, and a layer used in several places (the database, a service) is built once: layers are
 * shared by reference.
 */

/** The database the settings name, migrated before anyone gets it. */
export const DatabaseLive = Database.layer

const withDatabase = <A, E, R>(layer: Layer.Layer<A, E, R>) => layer.pipe(Layer.provide(DatabaseLive))

export const ProjectsLive = withDatabase(Projects.layer)
export const TicketsLive = withDatabase(Tickets.layer)
export const ArticlesLive = withDatabase(Articles.layer)
export const AdminTokenLive = withDatabase(AdminToken.layer)
const RateLimitLive = RateLimit.layer
const ReadinessLive = withDatabase(Readiness.layer).pipe(Layer.provide(RateLimitLive))

/**
 * The services the API is built on, each with its repositories, by name: the graph takes them
 * from here, so a test can run the whole server with any of them swapped (`httpLayer`).
 */
export const liveServices = {
  projects: ProjectsLive,
  tickets: TicketsLive,
  articles: ArticlesLive,
  adminToken: AdminTokenLive,
  search: withDatabase(Search.layer),
  agents: withDatabase(Agents.layer),
  webhooks: withDatabase(Webhooks.layer),
  automation: withDatabase(Automation.layer),
  sla: withDatabase(Sla.layer),
  merge: withDatabase(Merge.layer),
  privacy: withDatabase(Privacy.layer),
  customFields: withDatabase(CustomFields.layer),
  observability: withDatabase(Observability.layer),
  satisfaction: withDatabase(Satisfaction.layer),
  rateLimit: RateLimitLive,
  readiness: ReadinessLive,
  idempotent: withDatabase(IdempotentLive.pipe(Layer.provide(IdempotencyRepo.layer))),
  events: withDatabase(EventLog.layer.pipe(Layer.provide([EventsRepo.layer, ReadinessLive]))),
  ticketAccess: withDatabase(TicketAccess.layer),
  attachments: withDatabase(Attachments.layer),
  inboundMail: withDatabase(InboundMail.layer),
  inboundAddresses: withDatabase(InboundAddresses.layer).pipe(Layer.provide(ProjectsLive)),
  audit: withDatabase(Audit.layer)
}

type LiveServices = typeof liveServices

/** The same services, any of them replaced by a layer of the same service (a mock, say). */
export type ServiceLayers = {
  readonly [K in keyof LiveServices]: Layer.Layer<Layer.Success<LiveServices[K]>, unknown, AppConfig>
}

/** Every service of the API and the pipeline, each with its repositories. */
export const ServicesLive = Layer.mergeAll(
  liveServices.projects,
  liveServices.tickets,
  liveServices.articles,
  liveServices.adminToken,
  liveServices.search,
  liveServices.agents,
  liveServices.webhooks,
  liveServices.automation,
  liveServices.sla,
  liveServices.observability,
  liveServices.rateLimit,
  liveServices.readiness,
  liveServices.idempotent
)

/**
 * Each group of the contract with its handlers and the middleware and services they use: what a
 * group is built with is merged into every request it serves, so it is given no more.
 */
const handlersOf = (services: ServiceLayers) => {
  const projectAuth = ProjectAuthLive.pipe(Layer.provide([services.projects, services.rateLimit]))
  const adminAuth = AdminAuthLive.pipe(Layer.provide([services.adminToken, services.audit, services.agents]))
  return Layer.mergeAll(
    HealthHttpLive.pipe(Layer.provide([services.rateLimit, services.readiness])),
    TicketsHttpLive.pipe(
      Layer.provide([services.tickets, services.ticketAccess, services.events, projectAuth, services.idempotent])
    ),
    AttachmentsHttpLive.pipe(Layer.provide([services.attachments, services.ticketAccess, projectAuth])),
    ArticlesHttpLive.pipe(Layer.provide([services.articles, projectAuth])),
    SearchHttpLive.pipe(Layer.provide([services.search, projectAuth])),
    AdminHttpLive.pipe(
      Layer.provide([services.projects, services.articles, services.tickets, services.agents, adminAuth])
    ),
    WebhooksHttpLive.pipe(Layer.provide([services.webhooks, adminAuth])),
    AutomationHttpLive.pipe(Layer.provide([services.automation, adminAuth])),
    SlaHttpLive.pipe(Layer.provide([services.sla, adminAuth])),
    MergeHttpLive.pipe(Layer.provide([services.merge, adminAuth])),
    PrivacyHttpLive.pipe(Layer.provide([services.privacy, adminAuth])),
    CustomFieldsHttpLive.pipe(Layer.provide([services.customFields, adminAuth])),
    ObservabilityHttpLive.pipe(Layer.provide([services.observability, adminAuth])),
    SatisfactionHttpLive.pipe(
      Layer.provide([services.satisfaction, services.ticketAccess, services.rateLimit, projectAuth])
    ),
    SatisfactionAdminHttpLive.pipe(Layer.provide([services.satisfaction, adminAuth])),
    EventsHttpLive.pipe(Layer.provide([services.events, projectAuth])),
    AdminEventsHttpLive.pipe(Layer.provide([services.events, services.projects, adminAuth])),
    SiteHttpLive.pipe(Layer.provide([DatabaseLive, services.projects])),
    MailHttpLive.pipe(Layer.provide([
      services.inboundMail,
      MailAuthLive.pipe(Layer.provide([services.projects, services.rateLimit]))
    ])),
    MailAdminHttpLive.pipe(Layer.provide([services.inboundAddresses, adminAuth])),
    AttachmentsAdminHttpLive.pipe(Layer.provide([services.attachments, services.projects, adminAuth])),
    AuditHttpLive.pipe(Layer.provide([services.audit, adminAuth]))
  )
}

/** The background pipeline with the services at the edge it is given: the real ones, or mocks in a test. */
export const pipeline = <E, R>(edge: Layer.Layer<Triage | ErrorTracker | Notifier, E, R>) =>
  pipelineLayer(edge).pipe(
    Layer.provide([liveServices.webhooks, liveServices.automation, DatabaseLive, NodeServices.layer])
  )

export const PipelineLive = pipeline(EdgeServicesLive)

/** The SMTP door for mail, when SMTP_LISTEN_PORT is set; nothing otherwise. */
export const MailListenerLive = SmtpListenerLive.pipe(Layer.provide([liveServices.inboundMail, DatabaseLive]))

/**
 * What runs once the port is bound and before the instance is ready: the start-up banner, and on
 * a new embedded database the demo project.
 */
export const StartupDefault = StartupLive.pipe(
  Layer.provide([DatabaseLive, ProjectsLive, AdminTokenLive, ArticlesLive, NodeServices.layer])
)

/**
 * Builds `layer` once `shared` has been built, without handing it `shared`'s services. HttpRouter
 * builds the routes with a fork of the memo map that shares layers, in which only a layer built
 * before is found: built first here, the database and the services the routes use are the same
 * ones the pipeline and the start-up get, and a group's context still holds only what it was given.
 */
const after = <A, E, R, A2, E2, R2>(shared: Layer.Layer<A, E, R>, layer: Layer.Layer<A2, E2, R2>) =>
  Layer.flatMap(shared, () => layer)

/** All of `services` at once, to build them before the routes (`after`). */
const servicesOf = (services: ServiceLayers) =>
  Layer.mergeAll(...Object.values(services) as [Layer.Layer<unknown, unknown, AppConfig>])

/**
 * The service on `server`: the API with its envelope, ready once `startup` has run, answering
 * not ready while it stops (see Http/Server); on the live services unless told otherwise.
 */
export const httpLayer = <E, R, E2, R2>(
  server: Layer.Layer<HttpServer.HttpServer, E, R>,
  startup: Layer.Layer<never, E2, R2>,
  services: ServiceLayers = liveServices
) =>
  after(
    Layer.merge(servicesOf(services), DatabaseLive),
    serving({ server, startup, handlers: handlersOf(services), readiness: services.readiness, outage: DatabaseLive })
  )

/**
 * The whole process on `server`: the API, the pipeline, and table upkeep where the database's own
 * autovacuum is off. Needs the settings (AppConfig).
 */
export const appLayer = <E, R>(server: Layer.Layer<HttpServer.HttpServer, E, R>) =>
  Layer.mergeAll(
    httpLayer(server, StartupDefault),
    PipelineLive,
    MailListenerLive,
    Attachments.pruning.pipe(Layer.provide([liveServices.attachments, DatabaseLive])),
    withDatabase(Upkeep.layer())
  )
