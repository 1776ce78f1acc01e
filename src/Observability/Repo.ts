import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { applicationName } from "../Database/Pg.ts"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow } from "../Domain/Fields.ts"

const StateRow = Schema.Struct({ state: Schema.NullOr(Schema.String), connections: IntFromRow })

/** What the metrics scrape asks the database about the database itself. */
export class ObservabilityRepo extends Context.Service<ObservabilityRepo>()("app/Observability/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * This instance's connections to a PostgreSQL server, by state, as the server lists them
     * (the client's pool does not say); the one asking is counted as active.
     */
    const connectionStates = sql`
      SELECT state, count(*) AS connections FROM pg_stat_activity
      WHERE application_name = ${applicationName}
      GROUP BY state`.pipe(
      Rows.all(StateRow),
      Effect.map((rows) => {
        const count = (state: string) => rows.find((row) => row.state === state)?.connections ?? 0
        return { active: count("active"), idle: count("idle"), idle_in_transaction: count("idle in transaction") }
      })
    )

    return { connectionStates }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
