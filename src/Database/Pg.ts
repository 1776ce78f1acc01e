import { PgClient } from "@effect/sql-pg"
import { Layer, type Redacted } from "effect"

/** A PostgreSQL server, shared by every instance of the service. */
export const layer = (url: Redacted.Redacted, maxConnections: number) =>
  PgClient.layer({ url, maxConnections, applicationName: "support-ticketing", multiplex: true }).pipe(Layer.orDie)
