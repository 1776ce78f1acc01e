import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { cp, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
import { AppConfig } from "../../src/Config.ts"
import { testSettings } from "./Settings.ts"
import * as Database from "../../src/Database/Database.ts"

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

/** A fresh database on the PostgreSQL server of DATABASE_URL, dropped afterwards. */
const freshPostgres = Effect.gen(function*() {
  const serverUrl = new URL(process.env.DATABASE_URL!)
  const name = `test_${crypto.randomUUID().replaceAll("-", "")}`
  const admin = yield* Effect.acquireRelease(
    Effect.succeed(serverUrl.toString()),
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl.toString()) })), Effect.orDie)
  )
  yield* Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(`CREATE DATABASE ${name}`)
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(admin) })), Effect.orDie)
  const url = new URL(serverUrl)
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
  Layer.unwrapScoped(Effect.gen(function*() {
    const env = yield* freshDatabase(kind)
    const config = yield* testSettings({ ...env, ...overrides })
    return Database.layer.pipe(Layer.provideMerge(Layer.succeed(AppConfig, config)))
  }))
