import { NodeFileSystem } from "@effect/platform-node"
import type { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, type Redacted, Schedule, Stream } from "effect"
import { AppConfig } from "../Config.ts"
import * as Migrator from "./Migrator.ts"
import * as Pg from "./Pg.ts"
import * as Pglite from "./Pglite.ts"

/** Which database this process runs on, for the few things that differ (demo seeding, wake-ups). */
export class DatabaseInfo extends Context.Tag("app/Database/DatabaseInfo")<DatabaseInfo, {
  readonly kind: "embedded" | "server"
  readonly pglite: Option.Option<PGlite>
  /** One element per NOTIFY on the channel, from any session or instance. Never fails. */
  readonly listen: (channel: string) => Stream.Stream<void>
}>() {}

const embedded = (dataDir: string) =>
  Layer.effectContext(
    Effect.map(Pglite.EmbeddedPglite, (db) =>
      Context.make(DatabaseInfo, {
        kind: "embedded" as const,
        pglite: Option.some(db),
        // the node-postgres shim cannot LISTEN (it takes the process down); PGlite can itself
        listen: (channel) =>
          Stream.asyncScoped<void>((emit) =>
            Effect.acquireRelease(
              Effect.promise(() => db.listen(channel, () => void emit.single(undefined))),
              (unlisten) => Effect.promise(() => unlisten())
            )
          )
      }))
  ).pipe(Layer.provideMerge(Pglite.layer(dataDir)))

/** A listening connection that drops is opened again; meanwhile the workers' slow poll covers. */
const serverInfo = Layer.effect(
  DatabaseInfo,
  Effect.map(PgClient.PgClient, (client) => ({
    kind: "server" as const,
    pglite: Option.none(),
    listen: (channel: string) =>
      client.listen(channel).pipe(
        Stream.as(undefined),
        Stream.tapErrorCause((cause) => Effect.logWarning("LISTEN connection lost; reconnecting", cause)),
        Stream.retry(Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("10 seconds")))),
        // the schedule never gives up, so no error comes out of the retry
        Stream.orDie
      )
  }))
)

const server = (url: Redacted.Redacted, maxConnections: number) =>
  serverInfo.pipe(Layer.provideMerge(Pg.layer(url, maxConnections)))

/**
 * The one SqlClient of the service: PostgreSQL when DATABASE_URL is set, else embedded PGlite
 * under DATA_DIR. The schema is brought up to date before the layer is handed to anyone.
 */
export const layer = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  Option.match(config.databaseUrl, {
    onNone: () => embedded(config.dataDir),
    onSome: (url) =>
      server(url, config.databasePoolSize)
  })
)).pipe(
  (database) => Migrator.layer.pipe(Layer.provideMerge(database)),
  Layer.provide(NodeFileSystem.layer)
)
