import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { cp, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { testSettings } from "./Settings.ts"

export type DatabaseKind = "pglite" | "postgres"

/** PGlite always; PostgreSQL as well when DATABASE_URL names a server. */
export const databaseKinds: ReadonlyArray<DatabaseKind> = process.env.DATABASE_URL ? ["pglite", "postgres"] : ["pglite"]

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
  const name = `test_${crypto.randomUUID().replaceAll("-", "")}`
  yield* Effect.acquireRelease(
    onServer(`CREATE DATABASE ${name}`),
    () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  )
  const url = new URL(process.env.DATABASE_URL!)
  url.pathname = `/${name}`
  return url.toString()
})

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
