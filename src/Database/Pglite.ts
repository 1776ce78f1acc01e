import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { createPgConfig } from "@electric-sql/pglite/node-postgres"
import { Reactivity } from "@effect/experimental"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer } from "effect"
import { mkdir } from "node:fs/promises"
import Pg from "pg"

/** The embedded PostgreSQL instance, for what only it can do (its own LISTEN). */
export class EmbeddedPglite extends Context.Tag("app/Database/EmbeddedPglite")<EmbeddedPglite, PGlite>() {}

const open = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const inMemory = dataDir === "memory://"
      if (!inMemory) await mkdir(dataDir, { recursive: true })
      return PGlite.create(inMemory ? undefined : dataDir, { extensions: { pg_trgm } })
    }),
    (db) => Effect.promise(() => db.close())
  )

/**
 * PGlite is a single session, so the node-postgres shim gets a pool of one connection: every
 * statement and every transaction holds it exclusively, which keeps transactions isolated.
 */
export const layer = (dataDir: string) =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const db = yield* open(dataDir)
      const client = yield* PgClient.fromPool({
        acquire: Effect.acquireRelease(
          Effect.sync(() => new Pg.Pool({ ...createPgConfig(db), max: 1 })),
          (pool) => Effect.promise(() => pool.end())
        )
      })
      return Context.make(EmbeddedPglite, db).pipe(
        Context.add(PgClient.PgClient, client),
        Context.add(SqlClient.SqlClient, client)
      )
    })
  ).pipe(Layer.provide(Reactivity.layer), Layer.orDie)
