import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow } from "../Domain/Fields.ts"
import type { ProjectId } from "../Domain/Ids.ts"

const Lock = Schema.Struct({ acquired: Schema.Boolean })
const Prior = Schema.Struct({ request_hash: Schema.String, response_status: IntFromRow, response_body: Schema.Unknown })
export type Prior = typeof Prior.Type

/** Stored first answers of requests sent with an `Idempotency-Key`, for 24 hours. */
export class IdempotencyRepo extends Context.Service<IdempotencyRepo>()("app/Idempotency/IdempotencyRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Takes the key's lock for the rest of the transaction, unless another request holds it. */
    const tryLock = (projectId: ProjectId, key: string) =>
      sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${`${projectId}:${key}`}, 0)) AS acquired`.pipe(
        Rows.single(Lock),
        Effect.map((row) => row.acquired)
      )

    const find = (projectId: ProjectId, key: string) =>
      sql`SELECT request_hash, response_status, response_body FROM idempotency_keys
          WHERE project_id = ${projectId} AND idempotency_key = ${key}
            AND created_at > now() - interval '24 hours'`.pipe(Rows.first(Prior))

    const store = (projectId: ProjectId, key: string, entry: {
      readonly requestHash: string
      readonly status: number
      readonly body: unknown
    }) =>
      sql`INSERT INTO idempotency_keys (project_id, idempotency_key, request_hash, response_status, response_body)
          VALUES (${projectId}, ${key}, ${entry.requestHash}, ${entry.status}, ${JSON.stringify(entry.body)}::jsonb)
          ON CONFLICT (project_id, idempotency_key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
            response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body, created_at = now()`.pipe(
        Rows.run
      )

    /** The work, the lock and the stored answer commit together. */
    const withTransaction = Rows.transaction(sql)

    return { tryLock, find, store, withTransaction }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
