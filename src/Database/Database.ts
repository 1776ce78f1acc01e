import { NodeFileSystem } from "@effect/platform-node"
import type { PGlite } from "@electric-sql/pglite"
import { Context, Effect, Layer, Option } from "effect"
import { AppConfig } from "../Config.ts"
import * as Migrator from "./Migrator.ts"
import * as Pg from "./Pg.ts"
import * as Pglite from "./Pglite.ts"

/** Which database this process runs on, for the few things that differ (demo seeding, wake-ups). */
export class DatabaseInfo extends Context.Tag("app/Database/DatabaseInfo")<DatabaseInfo, {
  readonly kind: "embedded" | "server"
  readonly pglite: Option.Option<PGlite>
}>() {}

const embedded = (dataDir: string) =>
  Layer.effectContext(
    Effect.map(Pglite.EmbeddedPglite, (db) =>
      Context.make(DatabaseInfo, { kind: "embedded" as const, pglite: Option.some(db) }))
  ).pipe(Layer.provideMerge(Pglite.layer(dataDir)))

const server = Pg.layer

/**
 * The one SqlClient of the service: PostgreSQL when DATABASE_URL is set, else embedded PGlite
 * under DATA_DIR. The schema is brought up to date before the layer is handed to anyone.
 */
export const layer = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  Option.match(config.databaseUrl, {
    onNone: () => embedded(config.dataDir),
    onSome: (url) =>
      Layer.merge(server(url, config.databasePoolSize), Layer.succeed(DatabaseInfo, { kind: "server", pglite: Option.none() }))
  })
)).pipe(
  (database) => Migrator.layer.pipe(Layer.provideMerge(database)),
  Layer.provide(NodeFileSystem.layer)
)
