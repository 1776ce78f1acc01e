import { SqlClient } from "effect/sql"
import { Duration, Effect, Layer, Schedule, Schema } from "effect"
import { DatabaseInfo } from "./Database.ts"
import * as Rows from "./Rows.ts"

const Setting = Schema.Struct({ autovacuum: Schema.String })
const Stale = Schema.Struct({ schema: Schema.String, table: Schema.String })

/**
 * The planner's statistics kept current where the server does not: with autovacuum off, a table
 * analyzed while it was nearly empty keeps its "empty" statistics however much it grows, and the
 * statements each connection has prepared on it keep the plans made for an empty table (a whole-
 * table scan for a ticket read by id). Measured: reads at half their speed, and the database
 * at a full core, once the tickets of one create burst were in. So, with autovacuum's own rule (rows changed since the last ANALYZE
 * over 50 + 10 % of the table), every changed table of ours is analyzed, which also makes every
 * session plan its statements again, and the pending entries of its GIN indexes are merged, as
 * autoanalyze does. Nothing runs where autovacuum is on.
 */
export const layer = (every: Duration.Input) => Layer.effectDiscard(Effect.gen(function*() {
  const database = yield* DatabaseInfo
  // PGlite has no autovacuum either, but whether its single-user backend keeps the row counts read
  // here is untried: only article imports analyze there
  if (database.kind !== "server") return
  const sql = yield* SqlClient.SqlClient
  const { autovacuum } = yield* sql`SELECT current_setting('autovacuum') AS autovacuum`.pipe(Rows.single(Setting))
  if (autovacuum === "on") return

  // autoanalyze also merges the pending lists of a table's GIN indexes, which every search of
  // them reads whole until then: up to 4 MB (gin_pending_list_limit) after a burst of tickets
  const mergePendingEntries = (schema: string, table: string) =>
    sql`
      SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i
      JOIN pg_class index_class ON index_class.oid = i.indexrelid
      JOIN pg_am am ON am.oid = index_class.relam
      JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE am.amname = 'gin' AND n.nspname = ${schema} AND t.relname = ${table}`.pipe(Rows.run)

  const analyzeChanged = sql`
    SELECT s.schemaname AS schema, s.relname AS table FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
    WHERE s.schemaname = current_schema() AND s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)`.pipe(
    Rows.all(Stale),
    Effect.flatMap(Effect.forEach(({ schema, table }) =>
      Effect.andThen(
        mergePendingEntries(schema, table),
        sql`ANALYZE ${sql(schema)}.${sql(table)}`.pipe(Rows.run)
      ), { discard: true }))
  )
  yield* analyzeChanged.pipe(
    Effect.catchCause((cause) => Effect.logWarning("refreshing table statistics failed", cause)),
    Effect.repeat(Schedule.spaced(every)),
    Effect.forkScoped
  )
}))
