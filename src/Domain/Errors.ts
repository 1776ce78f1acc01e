import { Schema, SchemaTransformation } from "effect"
import { HttpApiSchema } from "effect/http-api"

/** `NotFound` → `NOT_FOUND`: an error's wire code is its tag, so the two cannot drift apart. */
const codeOf = (tag: string) => tag.replace(/(?<=[a-z])(?=[A-Z])/g, "_").toUpperCase()

/** The body of every error response. */
export const envelopeBody = (code: string, message: string) => ({ error: { code, message } })

/**
 * Declares a failure a caller can see, once: its tag and HTTP status. Its wire code is derived from
 * the tag, and its wire form (`wire`) is the envelope `{error: {code, message}}` with that status,
 * so the OpenAPI document shows exactly what a client receives and a typed client gets the class
 * back. `retryAfterSeconds`, when set, is sent as `Retry-After`, never in the body.
 */
const apiError = <const Tag extends string>(tag: Tag, status: number) => {
  const code = codeOf(tag)
  class ApiError extends Schema.TaggedError<ApiError>()(tag, {
    message: Schema.String,
    retryAfterSeconds: Schema.optionalKey(Schema.Number)
  }) {
    static readonly code = code
    static readonly status = status
    readonly code = code
    readonly status = status
    static readonly wire = Schema.Struct({
      error: Schema.Struct({ code: Schema.Literal(code), message: Schema.String })
    }).annotate({ identifier: code, description: `Error envelope, code ${code}` }).pipe(
      Schema.decodeTo(
        Schema.declare((u: unknown): u is ApiError => u instanceof ApiError),
        SchemaTransformation.transform<ApiError, { readonly error: { readonly code: string; readonly message: string } }>({
          decode: (body) => new ApiError({ message: body.error.message }),
          encode: (error) => envelopeBody(code, error.message) as { readonly error: { readonly code: typeof code; readonly message: string } }
        })
      ),
      Schema.annotate({ description: `Error envelope, code ${code}` }),
      HttpApiSchema.status(status)
    )
  }
  return ApiError
}

export const ValidationError = apiError("ValidationError", 400)
export type ValidationError = InstanceType<typeof ValidationError>
export const Unauthorized = apiError("Unauthorized", 401)
export type Unauthorized = InstanceType<typeof Unauthorized>
export const Forbidden = apiError("Forbidden", 403)
export type Forbidden = InstanceType<typeof Forbidden>
export const NotFound = apiError("NotFound", 404)
export type NotFound = InstanceType<typeof NotFound>
export const MethodNotAllowed = apiError("MethodNotAllowed", 405)
export type MethodNotAllowed = InstanceType<typeof MethodNotAllowed>
/** The request did not arrive in time: its headers, or all of it. */
export const RequestTimeout = apiError("RequestTimeout", 408)
export type RequestTimeout = InstanceType<typeof RequestTimeout>
/** With `retryAfterSeconds` when the conflict is passing (a repeat still in flight): worth a retry then. */
export const Conflict = apiError("Conflict", 409)
export type Conflict = InstanceType<typeof Conflict>
export const PayloadTooLarge = apiError("PayloadTooLarge", 413)
export type PayloadTooLarge = InstanceType<typeof PayloadTooLarge>
/** A body in a media type the API does not read: only `application/json`. */
export const UnsupportedMediaType = apiError("UnsupportedMediaType", 415)
export type UnsupportedMediaType = InstanceType<typeof UnsupportedMediaType>
export const RateLimited = apiError("RateLimited", 429)
export type RateLimited = InstanceType<typeof RateLimited>
export const RequestHeadersTooLarge = apiError("RequestHeadersTooLarge", 431)
export type RequestHeadersTooLarge = InstanceType<typeof RequestHeadersTooLarge>
export const InternalError = apiError("InternalError", 500)
export type InternalError = InstanceType<typeof InternalError>
/** The service cannot take traffic now (starting, stopping, or what it depends on does not answer). */
export const ServiceUnavailable = apiError("ServiceUnavailable", 503)
export type ServiceUnavailable = InstanceType<typeof ServiceUnavailable>

const apiErrors = [
  ValidationError,
  Unauthorized,
  Forbidden,
  NotFound,
  MethodNotAllowed,
  RequestTimeout,
  Conflict,
  PayloadTooLarge,
  UnsupportedMediaType,
  RateLimited,
  RequestHeadersTooLarge,
  InternalError,
  ServiceUnavailable
] as const

export type ApiError = InstanceType<(typeof apiErrors)[number]>

export const isApiError = (u: unknown): u is ApiError => apiErrors.some((errorClass) => u instanceof errorClass)
