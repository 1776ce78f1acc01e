import { SqlClient } from "effect/sql"
import { Clock, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { DatabaseInfo } from "./Database.ts"
import { DatabaseOutage } from "./Outage.ts"
import * as Rows from "./Rows.ts"

/**
 * Whether upkeep runs on this database: on a server whose autovacuum is off. PGlite has no
 * autovacuum either, but its single-user backend does not keep the row counts read here (tried:
 * n_mod_since_analyze stays 0): only article imports analyze there.
 */
export const runsHere = Effect.map(Effect.service(DatabaseInfo), (database) => database.kind === "server" && !database.autovacuum)

/** How often upkeep looks for tables due: autovacuum's default minute is late for a table that grows by thousands a second. */
export const interval = Duration.seconds(2)
const Stale = Schema.Struct({ schema: Schema.String, table: Schema.String, vacuum: Schema.Boolean })

/**
 * What autovacuum does, done where it is off. With autovacuum off, a table analyzed while nearly
 * empty keeps its "empty" statistics however much it grows, so prepared statements keep plans
 * made for an empty table, and nothing removes the dead rows that every job update leaves in the
 * queue's indexes. So, by autovacuum's own rules, a table with dead rows over 50 + 20 % of it is
 * vacuumed and analyzed, and one with rows changed since its last ANALYZE over 50 + 10 % of it is
 * analyzed, its GIN indexes' pending entries merged first as autoanalyze does. Nothing runs where
 * autovacuum is on.
 *
 * The work runs on a connection of its own, held for the round: statements are pipelined on the
 * shared ones, and a request queued behind a VACUUM there would wait for all of it.
 *
 * A table's upkeep costs more as the table grows (an ANALYZE samples up to 30,000 rows) while its
 * threshold is reached as fast as it changes, so a table rests `restFactor` times its last
 * upkeep's duration before it is looked at again, which bounds upkeep's share of the database.
 */
export const layer = (every: Duration.Input = interval, restFactor = 9) => Layer.effectDiscard(Effect.gen(function*() {
  if (!(yield* runsHere)) return
  const sql = yield* SqlClient.SqlClient
  const outage = yield* DatabaseOutage

  const stale = sql`
    SELECT schema, "table", vacuum FROM (
      SELECT s.schemaname AS schema, s.relname AS "table",
        s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0) AS vacuum,
        s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) AS reanalyze
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname = current_schema()
    ) due WHERE vacuum OR reanalyze`.pipe(Rows.all(Stale))

  const mergePendingEntries = (schema: string, table: string) =>
    sql`
      SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i
      JOIN pg_class index_class ON index_class.oid = i.indexrelid
      JOIN pg_am am ON am.oid = index_class.relam
      JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE am.amname = 'gin' AND n.nspname = ${schema} AND t.relname = ${table}`

  // VACUUM merges the pending entries itself
  const upkeep = ({ schema, table, vacuum }: typeof Stale.Type) =>
    vacuum
      ? [sql`VACUUM (ANALYZE) ${sql(schema)}.${sql(table)}`]
      : [mergePendingEntries(schema, table), sql`ANALYZE ${sql(schema)}.${sql(table)}`]

  // by table: the time before which it is left alone
  const resting = new Map<string, number>()
  const round = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const tables = (yield* stale).filter(({ schema, table }) => (resting.get(`${schema}.${table}`) ?? 0) <= now)
    if (tables.length === 0) return
    const connection = yield* sql.reserve
    for (const table of tables) {
      const started = yield* Clock.currentTimeMillis
      for (const statement of upkeep(table)) {
        const [text, params] = statement.compile()
        yield* connection.executeRaw(text, params)
      }
      const ended = yield* Clock.currentTimeMillis
      resting.set(`${table.schema}.${table.table}`, ended + restFactor * (ended - started))
    }
  }).pipe(Effect.scoped)

  yield* round.pipe(
    Effect.catchCause(outage.logUnlessAway("table upkeep (vacuum, statistics) failed", "Warn")),
    Effect.repeat(Schedule.spaced(every)),
    Effect.withTracerEnabled(false),
    Effect.forkScoped
  )
}))
