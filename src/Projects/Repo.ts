import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { KeyScope } from "../Domain/Project.ts"
import { isoTimestamp } from "../Domain/Fields.ts"

const KeyRow = Schema.Struct({
  key_id: Schema.String,
  project_id: Schema.String,
  scope: Schema.Literal("full", "widget")
})

export class ProjectsRepo extends Effect.Service<ProjectsRepo>()("app/Projects/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findKeyByHash = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: KeyRow,
      execute: (hash) =>
        sql`SELECT id AS key_id, project_id, scope FROM api_keys
            WHERE key_hash = ${hash} AND revoked_at IS NULL`
    })

    const insertProject = (name: string) =>
      sql<{ id: string; name: string; created_at: Date }>`
        INSERT INTO projects (name) VALUES (${name}) RETURNING id, name, created_at`.pipe(Effect.map((rows) => rows[0]!))

    const insertKey = (input: {
      readonly projectId: string
      readonly name: string | null
      readonly scope: KeyScope
      readonly hash: Uint8Array
      readonly prefix: string
    }) =>
      sql<{ id: string }>`
        INSERT INTO api_keys (project_id, name, scope, key_hash, key_prefix)
        VALUES (${input.projectId}, ${input.name}, ${input.scope}, ${input.hash}, ${input.prefix})
        RETURNING id`.pipe(Effect.map((rows) => rows[0]!.id))

    const listProjects = sql<{ id: string; name: string; created_at: Date }>`
      SELECT id, name, created_at FROM projects ORDER BY created_at, id`.pipe(
      Effect.map((rows) => rows.map((row) => ({ project_id: row.id, name: row.name, created_at: isoTimestamp(row.created_at) })))
    )

    const projectExists = (projectId: string) =>
      sql`SELECT 1 FROM projects WHERE id = ${projectId}`.pipe(Effect.map((rows) => rows.length > 0))

    const revokeKey = (projectId: string, keyId: string) =>
      sql`UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
          WHERE id = ${keyId} AND project_id = ${projectId}
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))

    const countProjects = sql<{ n: number }>`SELECT count(*)::int AS n FROM projects`.pipe(
      Effect.map((rows) => rows[0]!.n)
    )

    const getSetting = (name: string) =>
      sql<{ value: string }>`SELECT value FROM service_settings WHERE name = ${name}`.pipe(
        Effect.map((rows) => rows[0]?.value)
      )

    const putSetting = (name: string, value: string) =>
      sql`INSERT INTO service_settings (name, value) VALUES (${name}, ${value})
          ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`.pipe(Effect.asVoid)

    return {
      findKeyByHash: (hash: Uint8Array) => Effect.orDie(findKeyByHash(hash)),
      insertProject: (name: string) => Effect.orDie(insertProject(name)),
      insertKey: (input: Parameters<typeof insertKey>[0]) => Effect.orDie(insertKey(input)),
      listProjects: Effect.orDie(listProjects),
      projectExists: (projectId: string) => Effect.orDie(projectExists(projectId)),
      revokeKey: (projectId: string, keyId: string) => Effect.orDie(revokeKey(projectId, keyId)),
      countProjects: Effect.orDie(countProjects),
      getSetting: (name: string) => Effect.orDie(getSetting(name)),
      putSetting: (name: string, value: string) => Effect.orDie(putSetting(name, value)),
      withTransaction: sql.withTransaction
    } as const
  })
}) {}
