import {
  HttpApiBuilder,
  HttpBody,
  type HttpApiError,
  HttpServerRequest,
  HttpServerResponse,
  HttpIncomingMessage
} from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { Api } from "../Api.ts"
import { isApiError } from "../Domain/Errors.ts"

const maxBodyBytes = 1024 * 1024
const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/

const envelope = (status: number, code: string, message: string) =>
  HttpServerResponse.unsafeJson({ error: { code, message } }, { status })

/** Paths served by the API, to tell an unknown path (404) from a known path with another method (405). */
const knownRoutes = (() => {
  const routes: Array<{ readonly method: string; readonly pattern: RegExp }> = []
  for (const group of Object.values(Api.groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      const pattern = endpoint.path.replace(/:[A-Za-z_]+/g, "[^/]+")
      routes.push({ method: endpoint.method, pattern: new RegExp(`^${pattern}$`) })
    }
  }
  for (const path of ["/openapi.json", "/docs"]) {
    routes.push({ method: "GET", pattern: new RegExp(`^${path.replace(".", "\\.")}$`) })
  }
  return routes
})()

const allowedMethods = (path: string) =>
  knownRoutes.filter((route) => route.pattern.test(path)).map((route) => route.method)

/** The first issue, as a sentence a person can act on. */
const decodeMessage = (error: HttpApiError.HttpApiDecodeError) => {
  const issue = error.issues[0]
  if (issue === undefined) return "the request is invalid"
  const field = issue.path.join(".")
  if (issue._tag === "Missing") return field === "" ? "request body is required" : `${field} is required`
  if (field === "" && issue.message.startsWith("Expected")) return "request body must be a JSON object"
  if (issue.message.startsWith("Expected") && field !== "") return `${field} has the wrong type`
  return issue.message
}

// /health too: it needs no key, and a browser can only read it (the client's health()) with CORS
const isPublicPath = (path: string) =>
  path === "/widget.js" || path === "/health" || (path.startsWith("/v1/") && !path.startsWith("/v1/admin"))

const corsHeaders = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Idempotency-Key, X-Request-Id",
  "access-control-expose-headers":
    "X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed",
  "access-control-max-age": "86400"
}

const toResponse = (cause: Cause.Cause<unknown>, path: string, method: string, requestId: string) => {
  // the client went away mid-request: nobody reads this answer, and nothing went wrong here
  if (Cause.isInterruptedOnly(cause)) return Effect.succeed(HttpServerResponse.empty({ status: 499 }))
  const failure = Cause.squash(cause)
  if (isApiError(failure)) {
    const response = envelope(failure.status, failure.code, failure.message)
    const retryAfter = "retryAfterSeconds" in failure ? failure.retryAfterSeconds : undefined
    return Effect.succeed(
      retryAfter === undefined ? response : HttpServerResponse.setHeader(response, "retry-after", String(retryAfter))
    )
  }
  const tag = (failure as { _tag?: string } | null)?._tag
  if (tag === "HttpApiDecodeError") {
    return Effect.succeed(envelope(400, "VALIDATION_ERROR", decodeMessage(failure as HttpApiError.HttpApiDecodeError)))
  }
  if (tag === "RouteNotFound") {
    const allowed = allowedMethods(path)
    return Effect.succeed(
      allowed.length === 0
        ? envelope(404, "NOT_FOUND", `no route for ${path}`)
        : HttpServerResponse.setHeader(
          envelope(405, "METHOD_NOT_ALLOWED", `${method} is not allowed on ${path}; use ${allowed.join(", ")}`),
          "allow",
          allowed.join(", ")
        )
    )
  }
  if (tag === "RequestError") {
    const reason = String((failure as { cause?: unknown }).cause)
    return Effect.succeed(
      reason.includes("maxBytes exceeded")
        ? envelope(413, "PAYLOAD_TOO_LARGE", "request body must be at most 1 MiB")
        : envelope(400, "VALIDATION_ERROR", "request body is not valid JSON")
    )
  }
  return Effect.logError("unexpected failure", cause).pipe(
    Effect.annotateLogs({ request_id: requestId, path, method }),
    Effect.as(envelope(500, "INTERNAL_ERROR", `something went wrong on our side; quote request id ${requestId}`))
  )
}

/** The content type lives on the body, which re-applies it to the headers: replace the body's. */
const withCharset = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Uint8Array" && response.body.contentType === "application/json"
    ? HttpServerResponse.setBody(response, HttpBody.uint8Array(response.body.body, "application/json; charset=utf-8"))
    : response

const hasBody = (method: string) => method === "POST" || method === "PATCH" || method === "PUT"

const jsonContentType = (contentType: string | undefined) =>
  contentType === undefined || /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType.trim())

/**
 * The outermost layer of every request: request id, CORS, body limits, and the one place where
 * any failure from any layer becomes the error envelope.
 */
export const EnvelopeLive = HttpApiBuilder.middleware(
  Api,
  (app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const incomingId = request.headers["x-request-id"]
      const requestId = incomingId !== undefined && saneRequestId.test(incomingId) ? incomingId : crypto.randomUUID()
      const path = request.url.split("?", 1)[0]!
      const cors = isPublicPath(path)

      let response: HttpServerResponse.HttpServerResponse
      if (request.method === "OPTIONS" && cors) {
        response = HttpServerResponse.empty({ status: 204 })
      } else if (hasBody(request.method) && Number(request.headers["content-length"] ?? 0) > maxBodyBytes) {
        response = envelope(413, "PAYLOAD_TOO_LARGE", "request body must be at most 1 MiB")
      } else if (hasBody(request.method) && !jsonContentType(request.headers["content-type"])) {
        response = envelope(400, "VALIDATION_ERROR", "Content-Type must be application/json")
      } else {
        response = yield* app.pipe(
          HttpIncomingMessage.withMaxBodySize(Option.some(maxBodyBytes)),
          Effect.catchAllCause((cause) => toResponse(cause, path, request.method, requestId)),
          Effect.annotateLogs("request_id", requestId)
        )
      }

      const headers = { "x-request-id": requestId }
      return HttpServerResponse.setHeaders(withCharset(response), cors ? { ...headers, ...corsHeaders } : headers)
    })
)
