import { FileSystem } from "@effect/platform"
import { Migrator, SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { join } from "node:path"
import { projectPath } from "../Paths.ts"

const migrationsFolder = projectPath("migrations")

/**
 * Reads `migrations/NNNN_name.sql`. The Migrator's own file loader only knows .js/.ts modules,
 * and plain SQL files keep the schema readable by anyone who knows PostgreSQL.
 */
const sqlFolderLoader: Migrator.Loader<FileSystem.FileSystem> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const names = yield* fs.readDirectory(migrationsFolder)
  return names
    .flatMap((name): Array<Migrator.ResolvedMigration> => {
      const match = /^(\d{4})_(.+)\.sql$/.exec(name)
      if (match === null) return []
      const load = Effect.map(
        fs.readFileString(join(migrationsFolder, name)),
        (text) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text))
      )
      return [[Number(match[1]), match[2]!, load]]
    })
    .sort((a, b) => a[0] - b[0])
}).pipe(
  Effect.mapError((cause) => new Migrator.MigrationError({ reason: "bad-state", message: String(cause) }))
)

const migrate = Migrator.make({})({ loader: sqlFolderLoader })

/**
 * Instances starting together on one server take turns: the advisory lock is held for the whole
 * run, and the Migrator's bookkeeping table exists before it looks for it (its own probe fails
 * inside a transaction and would abort it).
 */
export const run = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(727274001)`
    yield* sql`CREATE TABLE IF NOT EXISTS effect_sql_migrations (
      migration_id integer PRIMARY KEY,
      created_at timestamptz NOT NULL DEFAULT now(),
      name text NOT NULL
    )`
    return yield* migrate
  })))

/** Brings the schema up to date before anything else touches the database. */
export const layer = Layer.effectDiscard(run.pipe(Effect.orDie))
