import type { ErrorCode } from "./Types.ts"

/** What every error of this client extends, so one `instanceof` check catches them all. */
export class SupportClientError extends Error {
  override name = "SupportClientError"
}

/**
 * The service answered, but not with success: every non-2xx answer, with the envelope's `code`
 * and `message`. An answer that carries no envelope (a proxy's error page, say) or a success
 * whose body is not JSON has the code `UNEXPECTED_RESPONSE`.
 */
export class ApiError extends SupportClientError {
  override name = "ApiError"
  /** The HTTP status. */
  readonly status: number
  /** The envelope's code, such as `VALIDATION_ERROR` or `RATE_LIMITED`. */
  readonly code: ErrorCode | "UNEXPECTED_RESPONSE" | (string & {})
  /** The service's `X-Request-Id` for this answer: quote it when asking for help. */
  readonly requestId: string | undefined
  /** How long the service asked the client to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number
  constructor(
    status: number,
    code: ErrorCode | "UNEXPECTED_RESPONSE" | (string & {}),
    message: string,
    requestId: string | undefined,
    retryAfterMs?: number
  ) {
    super(message)
    this.status = status
    this.code = code
    this.requestId = requestId
    this.retryAfterMs = retryAfterMs
  }
}

/**
 * No answer came: the connection was refused or dropped, the name did not resolve, or a
 * browser refused the request (CORS). `cause` holds what `fetch` threw.
 */
export class NetworkError extends SupportClientError {
  override name = "NetworkError"
  /** The `X-Request-Id` the client sent, to find the request in the service's logs. */
  readonly requestId: string
  constructor(message: string, requestId: string, options?: { cause?: unknown }) {
    super(message, options)
    this.requestId = requestId
  }
}

/** No complete answer came within `timeoutMs` (per attempt). */
export class TimeoutError extends SupportClientError {
  override name = "TimeoutError"
  /** The limit that ran out, in milliseconds. */
  readonly timeoutMs: number
  /** The `X-Request-Id` the client sent, to find the request in the service's logs. */
  readonly requestId: string
  constructor(timeoutMs: number, requestId: string) {
    super(`no answer within ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
    this.requestId = requestId
  }
}

/** A webhook delivery that is not provably from the service: refuse it (answer 400 or 401). */
export class WebhookVerificationError extends SupportClientError {
  override name = "WebhookVerificationError"
}
