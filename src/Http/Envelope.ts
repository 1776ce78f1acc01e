import { Context, Effect, LogLevel } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"
import { AppConfig } from "../Config.ts"
import { DatabaseOutage } from "../Database/Outage.ts"
import { ValidationError } from "../Domain/Errors.ts"
import { RequestSampleRatio } from "../Observability/TraceContext.ts"
import { checkingBody, type RawBody } from "./BodyLimits.ts"
import { type Cors, corsOf, exposedHeaders, isPreflight, preflight } from "./Cors.ts"
import { errorResponse, failureResponse } from "./Failures.ts"
import { recorded } from "./RequestLog.ts"
import { requestIdOf } from "./RequestId.ts"
import { traced } from "./ServerSpan.ts"

type Answer = Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>

const jsonWithCharset = "application/json; charset=utf-8"

/**
 * What every answer gets on its way out: its request id, its path's CORS headers, and the JSON
 * type with its charset, set as a header, which wins over the body's own.
 */
const finalHeaders = (response: HttpServerResponse.HttpServerResponse, requestId: string, cors: Cors) => {
  const headers: Record<string, string> = { "x-request-id": requestId }
  if (cors !== "none") headers["access-control-allow-origin"] = "*"
  if (cors === "api") headers["access-control-expose-headers"] = exposedHeaders
  if (response.body._tag === "Uint8Array" && response.body.contentType === "application/json") {
    headers["content-type"] = jsonWithCharset
  }
  return HttpServerResponse.setHeaders(response, headers)
}

/**
 * HTTP/1.1 requires a Host header, and Node would refuse a request without one with a bare 400
 * (so the server lets it through: Http/NodeServer). An HTTP/1.0 request may leave it out: old
 * health checkers do.
 */
const lacksHost = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers.host === undefined && (request.source as { readonly httpVersion?: string }).httpVersion !== "1.0"

const noHost = errorResponse(new ValidationError({ message: "an HTTP/1.1 request must carry a Host header" }))

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

// a form's boundaries and part headers around the file
const formOverhead = 64 * 1024

const adminUploads = /^\/v1\/admin\/projects\/[^/]+\/uploads$/

/** The routes whose bodies are files or mail, and how large each may be. */
const rawBodies = (config: AppConfig["Service"]) => {
  const upload: RawBody = { mediaTypes: ["multipart/form-data"], maxBytes: config.attachmentMaxBytes + formOverhead }
  const mail: RawBody = { mediaTypes: ["message/rfc822", "application/octet-stream"], maxBytes: config.mailMaxBytes }
  return (path: string): RawBody | undefined =>
    path === "/v1/uploads" || adminUploads.test(path) ? upload : path === "/v1/inbound/mail" ? mail : undefined
}

/**
 * The outermost layer of every request, in named steps: its request id, a preflight answered at
 * once, the body checked before anything decodes it, any failure turned into the envelope
 * (`Failures`), the final headers, then the metrics and the log line (`RequestLog`), all under the
 * request's span when its trace is kept (`ServerSpan`).
 */
const envelope = (
  record: ReturnType<typeof recorded>,
  sampleRatio: number | undefined,
  outage: DatabaseOutage["Service"],
  rawBodyOf: (path: string) => RawBody | undefined
) =>
(app: Answer): Answer =>
  Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const arrival = {
      method: request.method,
      path: pathOf(request.url),
      requestId: requestIdOf(request),
      startedAt: performance.now()
    }
    const cors = corsOf(arrival.path)
    // read at the end: the router has added the route it took by then
    const answered = (response: HttpServerResponse.HttpServerResponse) => record(fiber.context, arrival, response)
    if (isPreflight(request.method, cors)) return answered(preflight(arrival.requestId))
    const finish = (response: HttpServerResponse.HttpServerResponse) =>
      answered(finalHeaders(response, arrival.requestId, cors))
    if (lacksHost(request)) return finish(noHost)
    // the lines a request writes, its log line and a failure's, name its id themselves: an
    // annotation on every request's context cost a tenth of the CPU of a /health answer
    const served = Effect.matchCauseEffect(checkingBody(request, arrival.path, rawBodyOf, app), {
      onSuccess: finish,
      onFailure: (cause) => Effect.flatMap(failureResponse(cause, arrival, outage), finish)
    })
    return sampleRatio === undefined ? served : traced(sampleRatio, request, arrival.path, served)
  })

/**
 * The envelope around every route, decided once: request logs off (REQUEST_LOG=false, or
 * LOG_LEVEL above info) cost a request nothing, and so does tracing while it is off.
 */
export const EnvelopeLive = HttpRouter.middleware(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const sampleRatio = yield* RequestSampleRatio
    const outage = yield* DatabaseOutage
    return envelope(
      recorded(config.requestLog && LogLevel.isLessThanOrEqualTo(config.logLevel, "Info")),
      sampleRatio,
      outage,
      rawBodies(config)
    )
  }),
  { global: true }
)
