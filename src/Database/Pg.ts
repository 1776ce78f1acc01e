import { PgClient } from "@effect/sql-pg"
import { Layer, type Redacted } from "effect"

/**
 * How this process's connections name themselves to PostgreSQL: the service, and an id of its
 * own, so that each instance can find its own connections among those of the others.
 */
export const applicationName = `support-ticketing ${crypto.randomUUID().slice(0, 8)}`

/** A PostgreSQL server, shared by every instance of the service. */
export const layer = (url: Redacted.Redacted, maxConnections: number) =>
  PgClient.layer({ url, maxConnections, applicationName, multiplex: true }).pipe(Layer.orDie)
