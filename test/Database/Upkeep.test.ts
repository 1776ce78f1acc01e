import { layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { expect } from "vitest"
import * as Upkeep from "../../src/Database/Upkeep.ts"
import { databaseLayer } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { describeNeeding, postgresMissing } from "../support/Requires.ts"

/** The keeper, looking every 100 ms, on a fresh PostgreSQL database: it runs only on a server. */
const keeperOnPostgres = (restFactor?: number) =>
  layer(Upkeep.layer("100 millis", restFactor).pipe(Layer.provideMerge(databaseLayer("postgres"))), {
    excludeTestServices: true,
    timeout: 60_000
  })

describeNeeding(postgresMissing, "table upkeep on postgres: vacuum and statistics", () => {
  keeperOnPostgres()((it) => {
    it.effect("refreshes statistics, where autovacuum is off, once a table has changed by more than 50 rows + 10 %, and merges its GIN indexes' pending entries", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [setting] = yield* sql<{ autovacuum: string }>`SELECT current_setting('autovacuum') AS autovacuum`
        yield* sql`CREATE TABLE grown (id int PRIMARY KEY, words tsvector)`
        // fastupdate (the default) gathers new entries in a list that every search reads whole
        yield* sql`CREATE INDEX grown_words ON grown USING gin (words) WITH (fastupdate = on)`
        yield* sql`CREATE TABLE barely (id int PRIMARY KEY)`
        // both analyzed while empty: a plan made now would scan them whole
        yield* sql`ANALYZE grown, barely`
        yield* sql`INSERT INTO grown SELECT g, to_tsvector('simple', 'word' || g) FROM generate_series(1, 1000) g`
        yield* sql`INSERT INTO barely SELECT generate_series(1, 40)`
        const estimates = sql<{ relname: string; reltuples: number }>`
          SELECT relname, reltuples::int AS reltuples FROM pg_class WHERE relname IN ('barely', 'grown') ORDER BY relname`
        if (setting!.autovacuum === "off") {
          // the server publishes a session's row counts up to 10 s after its commit
          yield* eventually(
            "the grown table analyzed",
            Effect.map(estimates, (rows) => ({ done: rows[1]?.reltuples === 1000, value: rows }))
          )
        } else {
          yield* Effect.sleep("1 second")
        }
        // under the threshold, and everything where autovacuum is on, is left to autovacuum
        expect(yield* estimates).toEqual([
          { relname: "barely", reltuples: 0 },
          { relname: "grown", reltuples: setting!.autovacuum === "off" ? 1000 : 0 }
        ])
        if (setting!.autovacuum === "off") {
          // merged before the table was analyzed: nothing was left for this call to merge
          const [merged] = yield* sql<{ pages: number }>`SELECT gin_clean_pending_list('grown_words')::int AS pages`
          expect(merged!.pages).toBe(0)
        }
      }), 30_000)

    it.effect("leaves no table, where autovacuum is off, with dead rows over 50 + 20 % of it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [setting] = yield* sql<{ autovacuum: string }>`SELECT current_setting('autovacuum') AS autovacuum`
        yield* sql`CREATE TABLE churned (id int PRIMARY KEY, status text)`
        yield* sql`INSERT INTO churned SELECT g, 'pending' FROM generate_series(1, 1000) g`
        // as the job queue does: every row updated, so each leaves a dead version behind
        yield* sql`UPDATE churned SET status = 'running'`
        yield* sql`UPDATE churned SET status = 'done'`
        const vacuumed = sql<{ vacuumed: boolean }>`
          SELECT last_vacuum IS NOT NULL AS vacuumed FROM pg_stat_user_tables WHERE relname = 'churned'`
        if (setting!.autovacuum === "off") {
          yield* eventually(
            "the churned table vacuumed",
            Effect.map(vacuumed, (rows) => ({ done: rows[0]?.vacuumed === true, value: rows }))
          )
        }
        // and the rows still read as written
        expect(yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM churned WHERE status = 'done'`).toEqual([{ n: 1000 }])
      }), 30_000)
  })
})

describeNeeding(postgresMissing, "table upkeep on postgres: pacing", () => {
  // a rest so long that a table, once kept, is not kept again while the test runs
  keeperOnPostgres(1e6)((it) => {
    it.effect("leaves a table it has just kept alone for its rest, and keeps the others meanwhile", (ctx) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [setting] = yield* sql<{ autovacuum: string }>`SELECT current_setting('autovacuum') AS autovacuum`
        // the keeper leaves every table to autovacuum where it runs: nothing of its pacing to see
        if (setting!.autovacuum !== "off") {
          return ctx.skip(`autovacuum is ${setting!.autovacuum} on this server: the keeper's pacing shows only where it is off`)
        }
        const estimates = sql<{ relname: string; reltuples: number }>`
          SELECT relname, reltuples::int AS reltuples FROM pg_class WHERE relname IN ('rested', 'other') ORDER BY relname`
        yield* sql`CREATE TABLE rested (id int PRIMARY KEY)`
        yield* sql`CREATE TABLE other (id int PRIMARY KEY)`
        yield* sql`ANALYZE rested, other`
        yield* sql`INSERT INTO rested SELECT generate_series(1, 1000)`
        yield* eventually(
          "the first table analyzed",
          Effect.map(estimates, (rows) => ({ done: rows[1]?.reltuples === 1000, value: rows }))
        )
        // both over their thresholds in one transaction, so the server publishes both counts at once
        yield* sql.withTransaction(Effect.andThen(
          sql`INSERT INTO rested SELECT generate_series(1001, 3000)`,
          sql`INSERT INTO other SELECT generate_series(1, 1000)`
        ))
        yield* eventually(
          "the other table analyzed",
          Effect.map(estimates, (rows) => ({ done: rows[0]?.reltuples === 1000, value: rows }))
        )
        // a few rounds more, each of which found the first table over its threshold too
        yield* Effect.sleep("500 millis")
        expect(yield* estimates).toEqual([
          { relname: "other", reltuples: 1000 },
          { relname: "rested", reltuples: 1000 }
        ])
      }), 30_000)
  })
})
