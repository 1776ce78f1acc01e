import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow } from "../Domain/Fields.ts"
import type { ProjectId } from "../Domain/Ids.ts"

/** Whose an Idempotency-Key is: the API key that sent it, in its project. */
export interface KeyOwner {
  readonly projectId: ProjectId
  readonly keyId: string
}

/** The advisory lock's name for an Idempotency-Key, hashed to the lock's number in SQL. */
export const lockName = (owner: Pick<KeyOwner, "keyId">, key: string) => `${owner.keyId}:${key}`

const Lock = Schema.Struct({ acquired: Schema.Boolean })
const Prior = Schema.Struct({ request_hash: Schema.String, response_status: IntFromRow, response_body: Schema.Unknown })
export type Prior = typeof Prior.Type

/** Stored first answers of requests sent with an `Idempotency-Key`, for 24 hours, by the API key that sent them. */
export class IdempotencyRepo extends Context.Service<IdempotencyRepo>()("app/Idempotency/IdempotencyRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Takes the key's lock for the rest of the transaction, unless another request holds it. */
    const tryLock = (owner: KeyOwner, key: string) =>
      sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${lockName(owner, key)}, 0)) AS acquired`.pipe(
        Rows.single(Lock),
        Effect.map((row) => row.acquired)
      )

    // an entry stored before keys owned theirs (no api_key_id) answers any key of its project
    const find = (owner: KeyOwner, key: string) =>
      sql`SELECT request_hash, response_status, response_body FROM idempotency_keys
          WHERE project_id = ${owner.projectId} AND idempotency_key = ${key}
            AND (api_key_id = ${owner.keyId} OR api_key_id IS NULL)
            AND created_at > now() - interval '24 hours'
          ORDER BY api_key_id NULLS LAST LIMIT 1`.pipe(Rows.first(Prior))

    const store = (owner: KeyOwner, key: string, entry: {
      readonly requestHash: string
      readonly status: number
      readonly body: unknown
    }) =>
      sql`INSERT INTO idempotency_keys (project_id, api_key_id, idempotency_key, request_hash, response_status, response_body)
          VALUES (${owner.projectId}, ${owner.keyId}, ${key}, ${entry.requestHash}, ${entry.status}, ${JSON.stringify(entry.body)}::jsonb)
          ON CONFLICT (project_id, api_key_id, idempotency_key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
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
