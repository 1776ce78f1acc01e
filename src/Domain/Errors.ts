import { Schema, SchemaTransformation } from "effect"
import { HttpApiSchema } from "effect/http-api"

/**
 * Every failure a caller can see. Each knows its wire code and HTTP status, so the one place
 * that writes error bodies (Http/Envelope.ts) needs no table of its own.
 */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  message: Schema.String
}) {
  readonly code = "VALIDATION_ERROR"
  readonly status = 400
}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { message: Schema.String }) {
  readonly code = "UNAUTHORIZED"
  readonly status = 401
}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { message: Schema.String }) {
  readonly code = "FORBIDDEN"
  readonly status = 403
}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {
  readonly code = "NOT_FOUND"
  readonly status = 404
}
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  message: Schema.String
}) {
  readonly code = "METHOD_NOT_ALLOWED"
  readonly status = 405
}
/** With `retryAfterSeconds` when the conflict is passing (a repeat still in flight): worth a retry then. */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  message: Schema.String,
  retryAfterSeconds: Schema.optionalKey(Schema.Number)
}) {
  readonly code = "CONFLICT"
  readonly status = 409
}
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  message: Schema.String
}) {
  readonly code = "PAYLOAD_TOO_LARGE"
  readonly status = 413
}
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfterSeconds: Schema.Number
}) {
  readonly code = "RATE_LIMITED"
  readonly status = 429
}
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", { message: Schema.String }) {
  readonly code = "INTERNAL_ERROR"
  readonly status = 500
}

/** The service cannot take traffic now (starting, stopping, or what it depends on does not answer). */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  message: Schema.String
}) {
  readonly code = "SERVICE_UNAVAILABLE"
  readonly status = 503
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
  | ServiceUnavailable

const apiErrorTags = new Set<string>([
  "ValidationError",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "MethodNotAllowed",
  "Conflict",
  "PayloadTooLarge",
  "RateLimited",
  "InternalError",
  "ServiceUnavailable"
])

export const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && apiErrorTags.has((u as { _tag?: string })._tag ?? "")

/** The body of every error response. */
export const envelopeBody = (code: string, message: string) => ({ error: { code, message } })

/**
 * The wire form of an error class: the envelope `{error: {code, message}}` with its status, so
 * the OpenAPI document shows exactly what a client receives and a typed client gets the class back.
 */
const wire = <Self extends ApiError, Fields>(
  errorClass: new(fields: Fields) => Self,
  code: Self["code"],
  status: number,
  fromWire: (message: string) => Fields
) =>
  Schema.Struct({ error: Schema.Struct({ code: Schema.Literal(code), message: Schema.String }) }).annotate({
    identifier: code,
    description: `Error envelope, code ${code}`
  }).pipe(
    Schema.decodeTo(
      Schema.declare((u: unknown): u is Self => u instanceof errorClass),
      SchemaTransformation.transform<Self, { readonly error: { readonly code: typeof code; readonly message: string } }>({
        decode: (body) => new errorClass(fromWire(body.error.message)),
        encode: (error) => ({ error: { code, message: error.message } })
      })
    ),
    Schema.annotate({ description: `Error envelope, code ${code}` }),
    HttpApiSchema.status(status)
  )

export const ValidationErrorWire = wire(ValidationError, "VALIDATION_ERROR", 400, (message) => ({ message }))
export const UnauthorizedWire = wire(Unauthorized, "UNAUTHORIZED", 401, (message) => ({ message }))
export const ForbiddenWire = wire(Forbidden, "FORBIDDEN", 403, (message) => ({ message }))
export const NotFoundWire = wire(NotFound, "NOT_FOUND", 404, (message) => ({ message }))
export const ConflictWire = wire(Conflict, "CONFLICT", 409, (message) => ({ message }))
export const PayloadTooLargeWire = wire(PayloadTooLarge, "PAYLOAD_TOO_LARGE", 413, (message) => ({ message }))
// the wait is in the Retry-After header, not in the body
export const RateLimitedWire = wire(RateLimited, "RATE_LIMITED", 429, (message) => ({ message, retryAfterSeconds: 60 }))
export const InternalErrorWire = wire(InternalError, "INTERNAL_ERROR", 500, (message) => ({ message }))
export const ServiceUnavailableWire = wire(ServiceUnavailable, "SERVICE_UNAVAILABLE", 503, (message) => ({ message }))
