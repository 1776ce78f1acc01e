import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Conflict, ValidationError } from "../Domain/Errors.ts"
import { sha256 } from "../Projects/Secrets.ts"

/**
 * `Idempotency-Key` on the POSTs that create things. The lookup, the work and the stored answer
 * share one transaction under an advisory lock on (project, key): concurrent repeats get 409,
 * later repeats get the first answer, and a failed attempt leaves nothing behind to replay.
 */
export class Idempotency extends Effect.Service<Idempotency>()("app/Http/Idempotency", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const respond = (status: number, body: unknown, replayed: boolean) => {
      const response = HttpServerResponse.unsafeJson(body, { status })
      return replayed ? HttpServerResponse.setHeader(response, "idempotent-replayed", "true") : response
    }

    const run = <A, E>(options: {
      readonly projectId: string
      readonly key: string | undefined
      readonly status: number
      readonly work: Effect.Effect<A, E>
    }) =>
      Effect.gen(function*() {
        if (options.key === undefined) return respond(options.status, yield* options.work, false)
        const key = options.key
        if (key.length < 1 || key.length > 255) {
          return yield* new ValidationError({ message: "Idempotency-Key must be 1 to 255 characters" })
        }
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = yield* Effect.orDie(request.text)
        const fingerprint = sha256(`${request.method} ${request.url}\n${body}`).toString("hex")
        return yield* sql.withTransaction(Effect.gen(function*() {
          const [lock] = yield* sql<{ acquired: boolean }>`
            SELECT pg_try_advisory_xact_lock(hashtextextended(${`${options.projectId}:${key}`}, 0)) AS acquired`
          if (!lock!.acquired) {
            // Retry-After tells a client that timed out and tried again that the wait will end
            return yield* new Conflict({
              message: "a request with this Idempotency-Key is still in progress",
              retryAfterSeconds: 1
            })
          }
          const [prior] = yield* sql<{ request_hash: string; response_status: number; response_body: unknown }>`
            SELECT request_hash, response_status, response_body FROM idempotency_keys
            WHERE project_id = ${options.projectId} AND idempotency_key = ${key}
              AND created_at > now() - interval '24 hours'`
          if (prior !== undefined) {
            if (prior.request_hash !== fingerprint) {
              return yield* new Conflict({ message: "this Idempotency-Key was already used with a different request" })
            }
            return respond(prior.response_status, prior.response_body, true)
          }
          const result = yield* options.work
          yield* sql`
            INSERT INTO idempotency_keys (project_id, idempotency_key, request_hash, response_status, response_body)
            VALUES (${options.projectId}, ${key}, ${fingerprint}, ${options.status}, ${JSON.stringify(result)}::jsonb)
            ON CONFLICT (project_id, idempotency_key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
              response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body, created_at = now()`
          return respond(options.status, result, false)
        })).pipe(Effect.catchTag("SqlError", Effect.die))
      })

    return { run } as const
  })
}) {}
