import { Context, Effect, Layer, type Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import type { AgentRef } from "../Domain/Events.ts"
import { TimestampFromRow } from "../Domain/Fields.ts"
import { AgentIdFromRow, type ProjectId } from "../Domain/Ids.ts"
import type { AgentSummary } from "../Domain/Project.ts"

const AgentRow = Schema.Struct({ id: AgentIdFromRow, email: Schema.String, name: Schema.String })
const SummaryRow = Schema.Struct({
  agent_id: AgentIdFromRow,
  email: Schema.String,
  name: Schema.String,
  created_at: TimestampFromRow
})

export class AgentsRepo extends Context.Service<AgentsRepo>()("app/Admin/AgentsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** None when the project already has an agent with this address. */
    const insert = (projectId: ProjectId, email: string, name: string) =>
      sql`INSERT INTO agents (project_id, email, name) VALUES (${projectId}, ${email}, ${name})
          ON CONFLICT (project_id, email) DO NOTHING
          RETURNING id, email, name`.pipe(Rows.first(AgentRow))

    const list = (projectId: ProjectId) =>
      sql`SELECT id AS agent_id, email, name, created_at FROM agents WHERE project_id = ${projectId} ORDER BY email`.pipe(
        Rows.all(SummaryRow),
        Effect.map((rows): ReadonlyArray<AgentSummary> => rows)
      )

    /** The project's agent with this address: an assignee, or the author of a reply. */
    const findByEmail = (projectId: ProjectId, email: string) =>
      sql`SELECT id, email, name FROM agents WHERE project_id = ${projectId} AND email = ${email}`.pipe(
        Rows.first(AgentRow),
        Effect.map((found): Option.Option<AgentRef> => found)
      )

    return { insert, list, findByEmail }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
