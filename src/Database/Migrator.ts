import { Effect, FileSystem, Layer } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { join } from "node:path"
import { projectPath } from "../Paths.ts"

const migrationsFolder = projectPath("migrations")

/**
 * The statements of a SQL script, split at the semicolons that end them: not those inside
 * quotes, dollar-quoted bodies or comments. The driver speaks the extended protocol, which
 * takes one statement at a time.
 */
export const statementsOf = (script: string): Array<string> => {
  const statements: Array<string> = []
  let start = 0
  let i = 0
  const push = (end: number) => {
    const text = script.slice(start, end).trim()
    if (text.replace(/--[^\n]*/g, "").trim() !== "") statements.push(text)
    start = end + 1
  }
  while (i < script.length) {
    const char = script[i]!
    if (char === "-" && script[i + 1] === "-") {
      const end = script.indexOf("\n", i)
      i = end === -1 ? script.length : end + 1
    } else if (char === "/" && script[i + 1] === "*") {
      const end = script.indexOf("*/", i + 2)
      i = end === -1 ? script.length : end + 2
    } else if (char === "'" || char === "\"") {
      let j = i + 1
      while (j < script.length && !(script[j] === char && script[j + 1] !== char)) j += script[j] === char ? 2 : 1
      i = j + 1
    } else if (char === "$") {
      const tag = /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.exec(script.slice(i))?.[0]
      if (tag === undefined) i++
      else {
        const end = script.indexOf(tag, i + tag.length)
        i = end === -1 ? script.length : end + tag.length
      }
    } else if (char === ";") {
      push(i)
      i++
    } else i++
  }
  push(script.length)
  return statements
}

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
        (text) =>
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            Effect.forEach(statementsOf(text), (statement) => sql.unsafe(statement), { discard: true }))
      )
      return [[Number(match[1]), match[2]!, load]]
    })
    .sort((a, b) => a[0] - b[0])
}).pipe(
  Effect.mapError((cause) => new Migrator.MigrationError({ kind: "BadState", message: String(cause), cause }))
)

/** The migrations this build carries, as `0007_contact_notifications`, by id. */
export const carried = Effect.map(
  sqlFolderLoader,
  (migrations) => new Map(migrations.map(([id, name]) => [id, `${String(id).padStart(4, "0")}_${name}`]))
)

/**
 * Brings the schema up to date. Instances starting together on one server take turns: the
 * Migrator holds an exclusive lock on its table for the whole run.
 */
export const run = Migrator.make({})({ loader: sqlFolderLoader })

/**
 * Brings the schema up to date before anything else touches the database; traced as one span,
 * not a trace for each of its statements.
 */
export const layer = Layer.effectDiscard(run.pipe(Effect.withSpan("migrate schema"), Effect.orDie))
