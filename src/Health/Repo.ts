import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow } from "../Domain/Fields.ts"

const One = Schema.Struct({ one: IntFromRow })
const Applied = Schema.Struct({ migration_id: IntFromRow })

/** What readiness asks the database: whether it answers, and which migrations it holds. */
export class HealthRepo extends Context.Service<HealthRepo>()("app/Health/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** A round trip on the pool, so a probe costs the database nothing else. */
    const ping = sql`SELECT 1 AS one`.pipe(Rows.all(One), Effect.asVoid)

    /** The ids the Migrator recorded (its own table, which it creates before the first step). */
    const appliedMigrations = sql`SELECT migration_id FROM effect_sql_migrations`.pipe(
      Rows.all(Applied),
      Effect.map((rows) => new Set(rows.map((row) => row.migration_id)))
    )

    return { ping, appliedMigrations }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
