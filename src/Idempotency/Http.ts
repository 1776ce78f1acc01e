import { Context, Effect, Layer } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Conflict, ValidationError } from "../Domain/Errors.ts"
import { sha256 } from "../Projects/Secrets.ts"
import { IdempotencyRepo } from "./IdempotencyRepo.ts"

/** Seconds a repeat that met its first attempt still in flight is told to wait. */
const inFlightRetryAfter = 1

const respond = (status: number, body: unknown, replayed: boolean) => {
  const response = HttpServerResponse.jsonUnsafe(body, { status })
  return replayed ? HttpServerResponse.setHeader(response, "idempotent-replayed", "true") : response
}

/**
 * `Idempotency-Key` on the POSTs that create things. The lookup, the work and the stored answer
 * share one transaction under an advisory lock on (project, key): concurrent repeats get 409,
 * later repeats get the first answer, and a failed attempt leaves nothing behind to replay.
 */
export class Idempotency extends Context.Service<Idempotency>()("app/Http/Idempotency", {
  make: Effect.gen(function*() {
    const repo = yield* IdempotencyRepo

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
        const requestHash = sha256(`${request.method} ${request.url}\n${body}`).toString("hex")
        return yield* repo.withTransaction(Effect.gen(function*() {
          if (!(yield* repo.tryLock(options.projectId, key))) {
            // Retry-After tells a client that timed out and tried again that the wait will end; the
            // HttpApi writes the 409 from the contract's error schema, so the header goes on here
            yield* HttpEffect.appendPreResponseHandler((_request, response) =>
              Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(inFlightRetryAfter)))
            )
            return yield* new Conflict({
              message: "a request with this Idempotency-Key is still in progress",
              retryAfterSeconds: inFlightRetryAfter
            })
          }
          const prior = yield* repo.find(options.projectId, key)
          if (prior._tag === "Some") {
            if (prior.value.request_hash !== requestHash) {
              return yield* new Conflict({ message: "this Idempotency-Key was already used with a different request" })
            }
            return respond(prior.value.response_status, prior.value.response_body, true)
          }
          const result = yield* options.work
          yield* repo.store(options.projectId, key, { requestHash, status: options.status, body: result })
          return respond(options.status, result, false)
        }))
      })

    return { run }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(IdempotencyRepo.layer))
}
