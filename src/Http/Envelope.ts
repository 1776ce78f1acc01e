import { ByteSize, Cause, Effect, SchemaIssue } from "effect"
import { HttpBody, HttpIncomingMessage, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import type { unhandled } from "effect/Types"
import { Api } from "../Api.ts"
import { envelopeBody, isApiError } from "../Domain/Errors.ts"

const maxBodyBytes = 1024 * 1024
const maxBodySize = ByteSize.bytes(maxBodyBytes)
const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/

const envelope = (status: number, code: string, message: string) =>
  HttpServerResponse.jsonUnsafe(envelopeBody(code, message), { status })

const tooLarge = () => envelope(413, "PAYLOAD_TOO_LARGE", "request body must be at most 1 MiB")

/** Paths served by the API, to tell an unknown path (404) from a known path with another method (405). */
const knownRoutes = (() => {
  const routes: Array<{ readonly method: string; readonly pattern: RegExp }> = []
  for (const group of Object.values(Api.groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      const pattern = endpoint.path.replace(/:[A-Za-z_]+/g, "[^/]+").replace(/\./g, "\\.")
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

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/** The first issue, as a sentence a person can act on. */
const decodeMessage = (error: HttpApiError.HttpApiSchemaError) => {
  const issue = formatIssue(error.cause.issue).issues[0]
  if (issue === undefined) return "the request is invalid"
  const field = (issue.path ?? []).map(String).join(".")
  if (issue.message === "Expected a valid JSON body") return "request body is not valid JSON"
  if (issue.message === "Missing key") return field === "" ? "request body is required" : `${field} is required`
  if (issue.message.startsWith("Expected")) {
    if (field === "") return error.kind === "Payload" ? "request body must be a JSON object" : "the request is invalid"
    return `${field} has the wrong type`
  }
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

/** What a failure looks like on the wire: an expected one as its envelope, anything else as a logged 500. */
const toResponse = (cause: Cause.Cause<unknown>, path: string, method: string, requestId: string) => {
  // the client went away mid-request: nobody reads this answer, and nothing went wrong here
  if (Cause.hasInterruptsOnly(cause)) return Effect.succeed(HttpServerResponse.empty({ status: 499 }))
  const failure = Cause.squash(cause)
  if (isApiError(failure)) {
    const response = envelope(failure.status, failure.code, failure.message)
    const retryAfter = "retryAfterSeconds" in failure ? failure.retryAfterSeconds : undefined
    return Effect.succeed(
      retryAfter === undefined ? response : HttpServerResponse.setHeader(response, "retry-after", String(retryAfter))
    )
  }
  if (HttpApiError.HttpApiSchemaError.is(failure) && failure.kind !== "Body" && failure.kind !== "ResponseHeaders") {
    return Effect.succeed(envelope(400, "VALIDATION_ERROR", decodeMessage(failure)))
  }
  if (HttpApiError.HttpApiPayloadTooLarge.is(failure)) return Effect.succeed(tooLarge())
  if (HttpServerError.isHttpServerError(failure)) {
    const reason = failure.reason
    if (reason._tag === "RouteNotFound") {
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
    if (reason._tag === "RequestParseError") {
      return Effect.succeed(
        reason.reason === "BodyTooLarge"
          ? tooLarge()
          : envelope(400, "VALIDATION_ERROR", "request body could not be read")
      )
    }
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
const envelopeMiddleware = (
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>
): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) => {
    const incomingId = request.headers["x-request-id"]
    const requestId = incomingId !== undefined && saneRequestId.test(incomingId) ? incomingId : crypto.randomUUID()
    const path = request.url.split("?", 1)[0]!
    const cors = isPublicPath(path)
    const finish = (response: HttpServerResponse.HttpServerResponse) =>
      HttpServerResponse.setHeaders(
        withCharset(response),
        cors ? { "x-request-id": requestId, ...corsHeaders } : { "x-request-id": requestId }
      )

    if (request.method === "OPTIONS" && cors) return Effect.succeed(finish(HttpServerResponse.empty({ status: 204 })))
    if (hasBody(request.method)) {
      if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) return Effect.succeed(finish(tooLarge()))
      if (!jsonContentType(request.headers["content-type"])) {
        return Effect.succeed(finish(envelope(400, "VALIDATION_ERROR", "Content-Type must be application/json")))
      }
    }
    return app.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, maxBodySize),
      Effect.catchCause((cause) => toResponse(cause, path, request.method, requestId)),
      Effect.map(finish),
      Effect.annotateLogs("request_id", requestId)
    )
  })

export const EnvelopeLive = HttpRouter.middleware(envelopeMiddleware, { global: true })
