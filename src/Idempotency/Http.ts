import { Effect, Layer, Schema } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { CurrentKey } from "../Auth/Api.ts"
import { Conflict, ValidationError } from "../Domain/Errors.ts"
import { sha256 } from "../Projects/Secrets.ts"
import { Idempotent } from "./Api.ts"
import { IdempotencyRepo } from "./Repo.ts"

/** Seconds a repeat that met its first attempt still in flight is told to wait. */
const inFlightRetryAfter = 1

const badKey = new ValidationError({ message: "Idempotency-Key must be 1 to 255 characters" })
const otherRequest = new Conflict({ message: "this Idempotency-Key was already used with a different request" })

const inFlight = Effect.andThen(
  // the HttpApi writes the 409 from the contract's error schema, so the header goes on here
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(inFlightRetryAfter)))
  ),
  Effect.fail(
    new Conflict({
      message: "a request with this Idempotency-Key is still in progress",
      retryAfterSeconds: inFlightRetryAfter
    })
  )
)

const textDecoder = new TextDecoder()

/** The JSON an answer carries, as the endpoint's success schema encoded it. */
const bodyOf = (response: HttpServerResponse.HttpServerResponse): unknown =>
  response.body._tag === "Uint8Array" && response.body.body.length > 0
    ? JSON.parse(textDecoder.decode(response.body.body))
    : null

/**
 * A stored answer sent again through the endpoint's success schema, as the builder sends a
 * handler's value: the contract guards a replay as it guarded the first answer (a stored answer
 * that no longer fits it is a defect, not a wrong body on the wire), and the schema's field order
 * is restored where the database kept the JSON by its own.
 */
const replay = (endpoint: HttpApiEndpoint.Top, status: number, body: unknown) =>
  Effect.gen(function*() {
    // the schemas of this service's endpoints need no services to decode or encode
    const [success] = endpoint.success as ReadonlySet<Schema.Codec<unknown, unknown>>
    const encoded = success === undefined
      ? body
      : yield* Schema.encodeUnknownEffect(success)(yield* Schema.decodeUnknownEffect(success)(body))
    return HttpServerResponse.setHeader(
      HttpServerResponse.jsonUnsafe(encoded, { status }),
      "idempotent-replayed",
      "true"
    )
  }).pipe(Effect.orDie)

/**
 * The lookup, the work and the stored answer share one transaction under an advisory lock on
 * (API key, Idempotency-Key), so a key is its API key's alone, never shared with the project's
 * other keys: concurrent repeats get 409, later repeats get the first answer, and a failed attempt
 * (any failure, or an answer outside 2xx) leaves nothing behind to replay. A request without the
 * header passes straight through.
 */
export const IdempotentLive = Layer.effect(
  Idempotent,
  Effect.gen(function*() {
    const repo = yield* IdempotencyRepo
    return (httpEffect, { endpoint }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.headers["idempotency-key"]
        if (key === undefined) return yield* httpEffect
        if (key.length < 1 || key.length > 255) return yield* badKey
        const { projectId, keyId } = yield* CurrentKey
        const owner = { projectId, keyId }
        const body = yield* Effect.orDie(request.text)
        const requestHash = sha256(`${request.method} ${request.url}\n${body}`).toString("hex")
        return yield* repo.withTransaction(Effect.gen(function*() {
          if (!(yield* repo.tryLock(owner, key))) return yield* inFlight
          const prior = yield* repo.find(owner, key)
          if (prior._tag === "Some") {
            if (prior.value.request_hash !== requestHash) return yield* otherRequest
            return yield* replay(endpoint, prior.value.response_status, prior.value.response_body)
          }
          const response = yield* httpEffect
          if (response.status >= 200 && response.status < 300) {
            yield* repo.store(owner, key, { requestHash, status: response.status, body: bodyOf(response) })
          }
          return response
        }))
      })
  })
)
