import { HttpServerResponse } from "effect/http"

/** Which CORS headers a path's answers carry. */
export type Cors = "none" | "origin" | "api"

/**
 * The public API answers browsers on any site; the operator API does not. /health and the widget
 * script need no key and carry no headers worth reading, so they get the origin alone (the
 * client's health() reads /health from a browser).
 */
export const corsOf = (path: string): Cors =>
  path.startsWith("/v1/")
    ? path.startsWith("/v1/admin") ? "none" : "api"
    : path === "/health" || path === "/widget.js"
    ? "origin"
    : "none"

export const exposedHeaders =
  "X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed, Api-Key-Scope, Content-Disposition"

/** Whether the request is a browser's preflight for a path that answers browsers. */
export const isPreflight = (method: string, cors: Cors) => method === "OPTIONS" && cors !== "none"

/** The answer to a preflight: the methods, headers and max age matter only to it. */
export const preflight = (requestId: string) =>
  HttpServerResponse.empty({
    status: 204,
    headers: {
      "x-request-id": requestId,
      "access-control-allow-origin": "*",
      "access-control-expose-headers": exposedHeaders,
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers":
        "Authorization, Content-Type, Idempotency-Key, X-Request-Id, X-Ticket-Token, X-Visitor-Token, Last-Event-ID",
      "access-control-max-age": "86400"
    }
  })
