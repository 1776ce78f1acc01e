import { HttpApiSchema } from "@effect/platform"
import { Data, Schema } from "effect"

/**
 * Every failure a caller can see. Each knows its wire code and HTTP status, so the one place
 * that writes error bodies (Http/Envelope.ts) needs no table of its own.
 */
export class ValidationError extends Data.TaggedError("ValidationError")<{ readonly message: string }> {
  readonly code = "VALIDATION_ERROR"
  readonly status = 400
}
export class Unauthorized extends Data.TaggedError("Unauthorized")<{ readonly message: string }> {
  readonly code = "UNAUTHORIZED"
  readonly status = 401
}
export class Forbidden extends Data.TaggedError("Forbidden")<{ readonly message: string }> {
  readonly code = "FORBIDDEN"
  readonly status = 403
}
export class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {
  readonly code = "NOT_FOUND"
  readonly status = 404
}
export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{ readonly message: string }> {
  readonly code = "METHOD_NOT_ALLOWED"
  readonly status = 405
}
/** With `retryAfterSeconds` when the conflict is passing (a repeat still in flight): worth a retry then. */
export class Conflict extends Data.TaggedError("Conflict")<{
  readonly message: string
  readonly retryAfterSeconds?: number
}> {
  readonly code = "CONFLICT"
  readonly status = 409
}
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly message: string }> {
  readonly code = "PAYLOAD_TOO_LARGE"
  readonly status = 413
}
export class RateLimited extends Data.TaggedError("RateLimited")<{
  readonly message: string
  readonly retryAfterSeconds: number
}> {
  readonly code = "RATE_LIMITED"
  readonly status = 429
}
export class InternalError extends Data.TaggedError("InternalError")<{ readonly message: string }> {
  readonly code = "INTERNAL_ERROR"
  readonly status = 500
}

export type ApiError =
  | ValidationError
  | Unauthorized
  | Forbidden
  | NotFound
  | MethodNotAllowed
  | Conflict
  | PayloadTooLarge
  | RateLimited
  | InternalError

const apiErrorTags = new Set([
  "ValidationError",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "MethodNotAllowed",
  "Conflict",
  "PayloadTooLarge",
  "RateLimited",
  "InternalError"
])

export const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && apiErrorTags.has((u as { _tag?: string })._tag ?? "")

/**
 * The wire form of an error class: the envelope `{error: {code, message}}`, with its status,
 * so the OpenAPI document shows exactly what a client receives.
 */
const envelope = <E extends ApiError>(
  fromWire: (message: string) => E,
  tag: E["_tag"],
  code: E["code"],
  status: number
) =>
  Schema.transform(
    Schema.Struct({ error: Schema.Struct({ code: Schema.Literal(code), message: Schema.String }) }),
    Schema.declare((u: unknown): u is E => isApiError(u) && u._tag === tag),
    {
      strict: true,
      decode: (wire) => fromWire(wire.error.message),
      encode: (error) => ({ error: { code, message: error.message } })
    }
  ).annotations(HttpApiSchema.annotations({ status, identifier: code, description: `Error envelope, code ${code}` }))

export const ValidationErrorWire = envelope((message) => new ValidationError({ message }), "ValidationError", "VALIDATION_ERROR", 400)
export const UnauthorizedWire = envelope((message) => new Unauthorized({ message }), "Unauthorized", "UNAUTHORIZED", 401)
export const ForbiddenWire = envelope((message) => new Forbidden({ message }), "Forbidden", "FORBIDDEN", 403)
export const NotFoundWire = envelope((message) => new NotFound({ message }), "NotFound", "NOT_FOUND", 404)
export const ConflictWire = envelope((message) => new Conflict({ message }), "Conflict", "CONFLICT", 409)
export const PayloadTooLargeWire = envelope(
  (message) => new PayloadTooLarge({ message }),
  "PayloadTooLarge",
  "PAYLOAD_TOO_LARGE",
  413
)
// the wait is in the Retry-After header, not in the body
export const RateLimitedWire = envelope(
  (message) => new RateLimited({ message, retryAfterSeconds: 60 }),
  "RateLimited",
  "RATE_LIMITED",
  429
)
export const InternalErrorWire = envelope((message) => new InternalError({ message }), "InternalError", "INTERNAL_ERROR", 500)
