import { Layer } from "effect"
import { AdminToken } from "./Admin/AdminToken.ts"
import { Agents } from "./Admin/Agents.ts"
import { Articles } from "./Articles/Articles.ts"
import { Automation } from "./Automation/Automation.ts"
import { Readiness } from "./Health/Readiness.ts"
import { Idempotency } from "./Http/Idempotency.ts"
import { Observability } from "./Observability/Observability.ts"
import { RateLimit } from "./Http/RateLimit.ts"
import { Projects } from "./Projects/Projects.ts"
import { Search } from "./Search/Search.ts"
import { Tickets } from "./Tickets/Tickets.ts"
import { Webhooks } from "./Webhooks/Webhooks.ts"

/** What ServicesLive provides, by key. */
export const serviceKeys = [
  Projects,
  Tickets,
  Articles,
  Search,
  Agents,
  AdminToken,
  Idempotency,
  RateLimit,
  Webhooks,
  Automation,
  Readiness,
  Observability
] as const

/**
 * The composition root: every service of the HTTP API and of the background pipeline, each
 * with the repositories it needs. It needs the settings and the database; the server, the
 * pipeline, the CLI and the tests all take their services from here.
 */
export const ServicesLive = Layer.mergeAll(
  Projects.layer,
  Tickets.layer,
  Articles.layer,
  Search.layer,
  Agents.layer,
  AdminToken.layer,
  Idempotency.layer,
  RateLimit.layer,
  Webhooks.layer,
  Automation.layer,
  Observability.layer,
  // the same RateLimit as above: layers are shared by reference
  Readiness.layer.pipe(Layer.provide(RateLimit.layer))
)
