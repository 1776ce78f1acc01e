import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export class AgentsRepo extends Effect.Service<AgentsRepo>()("app/Admin/AgentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (projectId: string, email: string, name: string) =>
      sql<{ id: string; email: string; name: string }>`
        INSERT INTO agents (project_id, email, name) VALUES (${projectId}, ${email}, ${name})
        ON CONFLICT (project_id, email) DO NOTHING
        RETURNING id, email, name`.pipe(Effect.map((rows) => rows[0]))

    return { insert: (projectId: string, email: string, name: string) => Effect.orDie(insert(projectId, email, name)) }
  })
}) {}
