import { ByteSize, Cause, Clock, Context, Effect, Exit, type Fiber, LogLevel, Option, References, SchemaIssue, Tracer } from "effect"
import {
  Headers,
  HttpIncomingMessage,
  HttpRouter,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  HttpTraceContext
} from "effect/http"
import { HttpApiError } from "effect/http-api"
import type { Mutable, unhandled } from "effect/Types"
import { randomUUID } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { Api } from "../Api.ts"
import { AppConfig } from "../Config.ts"
import { envelopeBody, isApiError } from "../Domain/Errors.ts"
import { recordRequest } from "../Observability/Metrics.ts"
import { RequestSampleRatio } from "../Observability/TraceContext.ts"

const maxBodyBytes = 1024 * 1024
const maxBodySize = ByteSize.bytes(maxBodyBytes)
const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/

const envelope = (status: number, code: string, message: string) =>
  HttpServerResponse.jsonUnsafe(envelopeBody(code, message), { status })

const tooLarge = () => envelope(413, "PAYLOAD_TOO_LARGE", "request body must be at most 1 MiB")

/**
 * How deep arrays and objects may nest in a JSON body. Schema decoding and JSON.stringify recurse
 * once per level, and a few thousand levels fit in 10 KB; no field of the API needs more than a
 * handful, and metadata gets the rest.
 */
export const maxJsonDepth = 64

const tooDeep = () =>
  envelope(400, "VALIDATION_ERROR", `request body must not nest arrays or objects more than ${maxJsonDepth} levels deep`)

const quote = 0x22
const backslash = 0x5c

/**
 * Whether a JSON text nests deeper than `maxJsonDepth`, in one pass over its bytes without
 * parsing it. Every byte of a multi-byte UTF-8 character is above 0x7f, so brackets, braces and
 * quotes are found in the bytes alone; a string is skipped to its closing quote. Text that is not
 * JSON can be counted wrong, and JSON.parse refuses it later anyway.
 */
const nestsTooDeep = (bytes: Uint8Array) => {
  // a body of n bytes holds at most n / 2 levels
  if (bytes.length <= 2 * maxJsonDepth) return false
  let depth = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]
    if (byte === quote) {
      let end = bytes.indexOf(quote, i + 1)
      while (end !== -1 && isEscaped(bytes, end)) end = bytes.indexOf(quote, end + 1)
      if (end === -1) return false
      i = end
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > maxJsonDepth) return true
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--
    }
  }
  return false
}

/** Whether the quote at `at` follows an odd number of backslashes. */
const isEscaped = (bytes: Uint8Array, at: number) => {
  let before = at - 1
  while (before >= 0 && bytes[before] === backslash) before--
  return (at - 1 - before) % 2 === 1
}

/**
 * A body cut off at the limit while more of it is on its way (chunked, so no length said so up
 * front): the connection cannot carry another request, and the client must hear that before it is
 * closed, as it does when a Content-Length was over the limit.
 */
const cutOffTooLarge = () => HttpServerResponse.setHeader(tooLarge(), "connection", "close")

/** Paths served by the API, to tell an unknown path (404) from a known path with another method (405). */
const knownRoutes = (() => {
  const routes: Array<{ readonly method: string; readonly template: string; readonly pattern: RegExp }> = []
  for (const group of Object.values(Api.groups)) {
    for (const endpoint of Object.values(group.endpoints)) {
      const pattern = endpoint.path.replace(/:[A-Za-z_]+/g, "[^/]+").replace(/\./g, "\\.")
      routes.push({ method: endpoint.method, template: endpoint.path, pattern: new RegExp(`^${pattern}$`) })
    }
  }
  for (const path of ["/openapi.json", "/docs"]) {
    routes.push({ method: "GET", template: path, pattern: new RegExp(`^${path.replace(".", "\\.")}$`) })
  }
  return routes
})()

/** A request's route as its template, or `unmatched`, from the path alone: for names given before routing. */
const routeTemplateOf = (method: string, path: string) =>
  (knownRoutes.find((route) => route.method === method && route.pattern.test(path)) ??
    knownRoutes.find((route) => route.pattern.test(path)))?.template ?? "unmatched"

const allowedMethods = (path: string) =>
  knownRoutes.filter((route) => route.pattern.test(path)).map((route) => route.method)

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * A schema names the items of a list `tags[]`; the issue's path knows which one, so the caller
 * reads `tags[2] must be at most 50 characters`.
 */
const withIndexes = (message: string, path: ReadonlyArray<unknown>) => {
  const indexes = path.filter((key) => typeof key === "number")
  let next = 0
  return message.replace(/^\S+/, (field) => field.replace(/\[\]/g, (slot) => next < indexes.length ? `[${indexes[next++]}]` : slot))
}

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
  return withIndexes(issue.message, issue.path ?? [])
}

type Cors = "none" | "origin" | "api"

/**
 * The public API answers browsers on any site; the operator API does not. /health and the widget
 * script need no key and carry no headers worth reading, so they get the origin alone (the
 * client's health() reads /health from a browser).
 */
const corsOf = (path: string): Cors =>
  path.startsWith("/v1/")
    ? path.startsWith("/v1/admin") ? "none" : "api"
    : path === "/health" || path === "/widget.js"
    ? "origin"
    : "none"

const exposedHeaders =
  "X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed, Api-Key-Scope"

// the methods, headers and max age matter only to a preflight
const preflightHeaders = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": exposedHeaders,
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Idempotency-Key, X-Request-Id",
  "access-control-max-age": "86400"
}

const jsonWithCharset = "application/json; charset=utf-8"

const headersPrototype = Object.getPrototypeOf(Headers.empty)
const responsePrototype = Object.getPrototypeOf(HttpServerResponse.empty())

/**
 * What every answer gets on its way out. The JSON type is set as a header, which wins over the
 * body's own: replacing the body would turn the text that Node writes in one go with the head
 * into bytes written after it. Each header costs on every answer, so only what is needed.
 *
 * The map is built once here. HttpServerResponse.setHeaders copies it three times (spread,
 * normalise, assign), and on a server whose answers carry header maps of many shapes those
 * copies go megamorphic: building the map in one pass made /health 11-15 % cheaper in CPU per
 * request. The answer is put together the way HttpServerResponse's own setBodyKeepHeaders does
 * (not exported); every test that reads a header would fail if that shape changed.
 */
const withFinalHeaders = (
  response: HttpServerResponse.HttpServerResponse,
  requestId: string,
  cors: Cors
): HttpServerResponse.HttpServerResponse => {
  const headers: Record<string, string> = Object.create(headersPrototype)
  const own = response.headers
  for (const name in own) headers[name] = own[name]!
  headers["x-request-id"] = requestId
  if (response.body._tag === "Uint8Array" && response.body.contentType === "application/json") {
    headers["content-type"] = jsonWithCharset
  }
  if (cors !== "none") headers["access-control-allow-origin"] = "*"
  if (cors === "api") headers["access-control-expose-headers"] = exposedHeaders
  const answer: Mutable<HttpServerResponse.HttpServerResponse> = Object.create(responsePrototype)
  answer.status = response.status
  answer.statusText = response.statusText
  answer.cookies = response.cookies
  answer.body = response.body
  answer.headers = headers as Headers.Headers
  return answer
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
  if (HttpApiError.HttpApiPayloadTooLarge.is(failure)) return Effect.succeed(cutOffTooLarge())
  if (HttpServerError.isHttpServerError(failure)) {
    const reason = failure.reason
    if (reason._tag === "RouteNotFound") {
      const allowed = allowedMethods(path)
      // the router also misses a known path whose id it cannot take (too long, or not decodable
      // percent-escapes): with the method served there, that is no 405
      return Effect.succeed(
        allowed.length === 0 || allowed.includes(method)
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
          ? cutOffTooLarge()
          : envelope(400, "VALIDATION_ERROR", "request body could not be read")
      )
    }
  }
  return Effect.logError("unexpected failure", cause).pipe(
    Effect.annotateLogs({ request_id: requestId, path, method }),
    Effect.as(envelope(500, "INTERNAL_ERROR", `something went wrong on our side; quote request id ${requestId}`))
  )
}

const hasBody = (method: string) => method === "POST" || method === "PATCH" || method === "PUT"

const jsonContentType = (contentType: string | undefined) =>
  contentType === undefined || /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType.trim())

type Answer = Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>

/** A request served, from what the envelope reads of it before anything runs. */
type Served = (
  fiber: Fiber.Fiber<unknown, unknown>,
  request: HttpServerRequest.HttpServerRequest,
  requestId: string,
  path: string,
  app: Answer,
  untracedUnder: Tracer.AnySpan | undefined
) => Answer

/**
 * The outermost layer of every request: request id, CORS, body limits, and the one place where
 * any failure from any layer becomes the error envelope.
 */
const enveloped = (
  fiber: Fiber.Fiber<unknown, unknown>,
  request: HttpServerRequest.HttpServerRequest,
  requestId: string,
  path: string,
  app: Answer,
  untracedUnder: Tracer.AnySpan | undefined,
  answered: (response: HttpServerResponse.HttpServerResponse) => Answer
): Answer => {
  const cors = corsOf(path)
  const finish = (response: HttpServerResponse.HttpServerResponse) => withFinalHeaders(response, requestId, cors)

  if (request.method === "OPTIONS" && cors !== "none") {
    return answered(HttpServerResponse.empty({ status: 204, headers: { "x-request-id": requestId, ...preflightHeaders } }))
  }
  // The request's own fiber ends with this answer, so what is added to its context here needs
  // no restoring (the router sets its route the same way)
  let context = Context.add(fiber.context, References.CurrentLogAnnotations, {
    ...fiber.getRef(References.CurrentLogAnnotations),
    request_id: requestId
  })
  // a request its trace does not keep builds no span (tracing is off in its fiber): each would
  // be made, filled and dropped; the jobs it writes still carry its caller's decision
  if (untracedUnder !== undefined) context = Context.add(context, Tracer.ParentSpan, untracedUnder)
  if (hasBody(request.method)) {
    if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) return answered(finish(tooLarge()))
    if (!jsonContentType(request.headers["content-type"])) {
      return answered(finish(envelope(400, "VALIDATION_ERROR", "Content-Type must be application/json")))
    }
    context = Context.add(context, HttpIncomingMessage.MaxBodySize, maxBodySize)
  }
  fiber.setContext(context)
  // read here, where every JSON body of every route passes before anything decodes it; the
  // body is kept, so the decoder reads these same bytes again
  const answer = hasBody(request.method)
    ? Effect.flatMap(request.arrayBuffer, (body) => nestsTooDeep(new Uint8Array(body)) ? Effect.succeed(tooDeep()) : app)
    : app
  return Effect.matchCauseEffect(answer, {
    onSuccess: (response) => answered(finish(response)),
    onFailure: (cause) => Effect.flatMap(toResponse(cause, path, request.method, requestId), (response) => answered(finish(response)))
  })
}

/**
 * The route a request took, as its template (`/v1/tickets/:id`), never the path with its ids:
 * the router's, or the contract's for an answer given before routing (a body too large, a
 * preflight) or instead of it (405).
 */
const routeOf = (fiber: Fiber.Fiber<unknown, unknown>, method: string, path: string) =>
  Context.getOrUndefined(fiber.context, HttpRouter.RouteContext)?.route.path ??
    // a preflight asks about the route of another method, and a 405 names a route of other methods
    routeTemplateOf(method, path)

/**
 * Every answered request counts in the metrics, by route template, method and status, with the
 * time it took; with `log`, it also leaves its one line in the log.
 */
const observed = (log: boolean): Served => (fiber, request, requestId, path, app, untracedUnder) => {
  // the monotonic clock in milliseconds, a float: Effect's Clock gives nanoseconds as a BigInt,
  // and the arithmetic on two of them was 1 % of the CPU of a /health request
  const start = performance.now()
  // counted where the answer is made, not in a step of its own after it
  return enveloped(fiber, request, requestId, path, app, untracedUnder, (response) => {
    const millis = performance.now() - start
    const route = routeOf(fiber, request.method, path)
    recordRequest(fiber.context, route, request.method, response.status, millis / 1000)
    if (!log) return Effect.succeed(response)
    return Effect.logInfo("request").pipe(Effect.as(response), Effect.annotateLogs({
      request_id: requestId,
      method: request.method,
      route,
      status: response.status,
      duration_ms: Math.round(millis * 100) / 100
    }))
  })
}

/**
 * A request's span (kind server, named by its route template), as the root of a trace or the
 * child of its caller's span, over everything the service does for it; an answer of 5xx fails it,
 * as OpenTelemetry's conventions want.
 */
const withServerSpan = (
  fiber: Fiber.Fiber<unknown, unknown>,
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  caller: Tracer.ExternalSpan | undefined,
  run: Answer
): Answer => {
  const route = routeTemplateOf(request.method, path)
  const userAgent = incomingHeader(request, "user-agent")
  // the request's fiber starts untraced (Observability/TraceContext): a kept request turns it on
  return Effect.withTracerEnabled(Effect.flatMap(
    Effect.makeSpan(`${request.method} ${route}`, {
      ...(caller === undefined ? { root: true } : { parent: caller }),
      kind: "server",
      attributes: {
        "http.request.method": request.method,
        "http.route": route,
        "url.path": path,
        ...(userAgent === undefined ? {} : { "user_agent.original": userAgent })
      }
    }),
    (span) =>
      Effect.onExit(Effect.provideService(run, Tracer.ParentSpan, span), (exit) => {
        const end = fiber.getRef(Clock.Clock).currentTimeNanosUnsafe()
        if (exit._tag === "Failure") return Effect.sync(() => span.end(end, exit))
        const status = exit.value.status
        span.attribute("http.response.status_code", status)
        span.end(end, status >= 500 ? Exit.fail(`answered ${status}`) : exit)
        return Effect.void
      })
  ), true)
}

/**
 * A request header as Node's parser left it. `request.headers` copies every header into a
 * map of Effect's on first use; a request that reads no other header (a health probe) would make
 * that copy for this one alone.
 */
const incomingHeader = (request: HttpServerRequest.HttpServerRequest, name: string): string | undefined => {
  const source = request.source as Partial<Pick<IncomingMessage, "httpVersionMajor" | "headers">> | undefined
  if (typeof source?.httpVersionMajor !== "number" || source.headers === undefined) return request.headers[name]
  const value = source.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

/** Whether the caller sent a trace context, in any of the headers HttpTraceContext reads. */
const carriesTrace = (request: HttpServerRequest.HttpServerRequest) =>
  incomingHeader(request, "traceparent") !== undefined || incomingHeader(request, "b3") !== undefined ||
  incomingHeader(request, "x-b3-traceid") !== undefined

const envelopeMiddleware = (answer: Served) => (app: Answer): Answer =>
  Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const incomingId = incomingHeader(request, "x-request-id")
    const requestId = incomingId !== undefined && saneRequestId.test(incomingId) ? incomingId : randomUUID()
    const url = request.url
    const query = url.indexOf("?")
    const path = query === -1 ? url : url.slice(0, query)
    const ratio = fiber.getRef(RequestSampleRatio)
    if (ratio === undefined) return answer(fiber, request, requestId, path, app, undefined)
    // a request carrying its caller's trace follows the caller's decision; any other begins a
    // trace here, kept at the sampling ratio. The request's fiber starts with tracing off, under
    // a trace not kept (Observability/TraceContext): one not kept is served as it is, or under
    // its caller's span
    const caller = carriesTrace(request) ? Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)) : undefined
    const sampled = caller === undefined ? Math.random() < ratio : caller.sampled
    return sampled
      ? withServerSpan(fiber, request, path, caller, answer(fiber, request, requestId, path, app, undefined))
      : answer(fiber, request, requestId, path, app, caller)
  })

/**
 * Request logs are decided here, once: off (REQUEST_LOG=false, or LOG_LEVEL above info), a
 * request pays for no log line and no test of the level.
 */
export const EnvelopeLive = HttpRouter.middleware(
  AppConfig.useSync((config) =>
    envelopeMiddleware(observed(config.requestLog && LogLevel.isLessThanOrEqualTo(config.logLevel, "Info")))),
  { global: true }
)
