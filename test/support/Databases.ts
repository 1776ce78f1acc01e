import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { cp, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { onCi, postgresMissing } from "./Requires.ts"
import { testSettings } from "./Settings.ts"

export type DatabaseKind = "pglite" | "postgres"

/**
 * PGlite always; PostgreSQL as well when DATABASE_URL names a server, and under CI=1 whether it
 * does or not: there the PostgreSQL half fails, naming what is missing, rather than not exist.
 */
export const databaseKinds: ReadonlyArray<DatabaseKind> = process.env.DATABASE_URL || onCi
  ? ["pglite", "postgres"]
  : ["pglite"]

/** Made once per run by test/support/globalSetup.ts: a migrated PGlite data directory to copy. */
export const pgliteTemplate = () => inject("pgliteTemplateDir")

/** A fresh embedded database: a copy of the migrated template, removed afterwards. */
const freshPglite = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = await mkdtemp(join(tmpdir(), "support-test-"))
    await cp(pgliteTemplate(), dir, { recursive: true })
    return dir
  }),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** Runs one statement on the server of DATABASE_URL, outside any test database. */
const onServer = (statement: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql.unsafe(statement)).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(process.env.DATABASE_URL!), maxConnections: 1 })),
    Effect.orDie
  )

/** A fresh database on the PostgreSQL server of DATABASE_URL, dropped afterwards. */
const freshPostgres = Effect.gen(function*() {
  if (postgresMissing !== undefined) return yield* Effect.die(new Error(`the PostgreSQL half cannot run: ${postgresMissing}`))
  const name = `test_${crypto.randomUUID().replaceAll("-", "")}`
  yield* Effect.acquireRelease(
    onServer(`CREATE DATABASE ${name}`),
    () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  )
  const url = new URL(process.env.DATABASE_URL!)
  url.pathname = `/${name}`
  return url.toString()
})

/**
 * What every session of a database on the DATABASE_URL server is doing, one line each: for a test
 * that stalls, to show whether the service waits on a lock, sits idle in a transaction, or has
 * nothing in flight at all (then the stall is on the JavaScript side). Read on a connection of its
 * own, so a wedged pool of the service does not hide it.
 */
export const sessionsOf = (database: string): Promise<string> =>
  Effect.runPromise(
    Effect.map(
      onServer(`SELECT pid, application_name, state, wait_event_type, wait_event,
          round(extract(epoch FROM now() - state_change)::numeric, 1) AS for_seconds, left(query, 160) AS query
        FROM pg_stat_activity WHERE datname = '${database.replaceAll("'", "''")}' ORDER BY state_change`),
      (rows) => rows.map((row) => JSON.stringify(row)).join("\n") || "(no sessions)"
    )
  )

export { testSettings }

/** Environment entries that point a service at a fresh database of the given kind. */
export const freshDatabase = (kind: DatabaseKind): Effect.Effect<Record<string, string>, never, Scope.Scope> =>
  kind === "pglite"
    ? Effect.map(freshPglite, (dir) => ({ DATA_DIR: dir }))
    : Effect.map(freshPostgres, (url) => ({ DATABASE_URL: url, DATABASE_POOL_SIZE: "10" }))

export const freshPgliteDir = freshPglite

/** AppConfig and the real database layer (migrated) of a fresh database. */
export const databaseLayer = (kind: DatabaseKind, overrides: Record<string, string> = {}) =>
  Layer.unwrap(Effect.gen(function*() {
    const env = yield* freshDatabase(kind)
    const config = yield* testSettings({ ...env, ...overrides })
    return Database.layer.pipe(Layer.provideMerge(Layer.succeed(AppConfig, config)))
  }))
