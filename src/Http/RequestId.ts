import type { HttpServerRequest } from "effect/http"
import { randomUUID } from "node:crypto"

const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * The caller's own `X-Request-Id` when it is sane, so the two sides can match logs; a new UUID
 * otherwise. It goes back on the answer and into every log line of the request.
 */
export const requestIdOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const incoming = request.headers["x-request-id"]
  // node:crypto's, which draws from a pool of random bytes, not WebCrypto's, which asks for them each time
  return incoming !== undefined && saneRequestId.test(incoming) ? incoming : randomUUID()
}
