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
export class Conflict extends Data.TaggedError("Conflict")<{ readonly message: string }> {
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
  ErrorClass: new(args: { readonly message: string }) => E,
  tag: E["_tag"],
  code: E["code"],
  status: number
) =>
  Schema.transform(
    Schema.Struct({ error: Schema.Struct({ code: Schema.Literal(code), message: Schema.String }) }),
    Schema.declare((u: unknown): u is E => isApiError(u) && u._tag === tag),
    {
      strict: true,
      decode: (wire) => new ErrorClass({ message: wire.error.message }),
      encode: (error) => ({ error: { code, message: error.message } })
    }
  ).annotations(HttpApiSchema.annotations({ status, identifier: code, description: `Error envelope, code ${code}` }))

export const ValidationErrorWire = envelope(ValidationError, "ValidationError", "VALIDATION_ERROR", 400)
export const UnauthorizedWire = envelope(Unauthorized, "Unauthorized", "UNAUTHORIZED", 401)
export const ForbiddenWire = envelope(Forbidden, "Forbidden", "FORBIDDEN", 403)
export const NotFoundWire = envelope(NotFound, "NotFound", "NOT_FOUND", 404)
export const ConflictWire = envelope(Conflict, "Conflict", "CONFLICT", 409)
export const PayloadTooLargeWire = envelope(PayloadTooLarge, "PayloadTooLarge", "PAYLOAD_TOO_LARGE", 413)
export const RateLimitedWire = Schema.transform(
  Schema.Struct({ error: Schema.Struct({ code: Schema.Literal("RATE_LIMITED"), message: Schema.String }) }),
  Schema.declare((u: unknown): u is RateLimited => isApiError(u) && u._tag === "RateLimited"),
  {
    strict: true,
    decode: (wire) => new RateLimited({ message: wire.error.message, retryAfterSeconds: 60 }),
    encode: (error) => ({ error: { code: "RATE_LIMITED" as const, message: error.message } })
  }
).annotations(HttpApiSchema.annotations({ status: 429, identifier: "RATE_LIMITED" }))
export const InternalErrorWire = envelope(InternalError, "InternalError", "INTERNAL_ERROR", 500)
