import { Clock, Effect, Exit, Option, Tracer } from "effect"
import { HttpServerRequest, type HttpServerResponse, HttpTraceContext } from "effect/http"
import { notSampledHere } from "../Observability/TraceContext.ts"
import { routeTemplateOf } from "./Routes.ts"

/** Whether the caller sent a trace context, in any of the headers HttpTraceContext reads. */
const carriesTrace = (request: HttpServerRequest.HttpServerRequest) => {
  const headers = request.headers
  return headers.traceparent !== undefined || headers.b3 !== undefined || headers["x-b3-traceid"] !== undefined
}

/**
 * A request's span (kind server, named by its route template), as the root of a trace or the
 * child of its caller's span, over everything the service does for it; an answer of 5xx fails it,
 * as OpenTelemetry's conventions want.
 */
const withServerSpan = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  caller: Tracer.ExternalSpan | undefined,
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) => {
  const route = routeTemplateOf(request.method, path)
  const userAgent = request.headers["user-agent"]
  return Effect.flatMap(
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
      Effect.onExit(Effect.provideService(answer, Tracer.ParentSpan, span), (exit) =>
        Effect.flatMap(Clock.currentTimeNanos, (end) =>
          Effect.sync(() => {
            if (exit._tag === "Failure") return span.end(end, exit)
            const status = exit.value.status
            span.attribute("http.response.status_code", status)
            span.end(end, status >= 500 ? Exit.fail(`answered ${status}`) : exit)
          })))
  )
}

/**
 * A request under tracing at `ratio`: one carrying its caller's trace follows the caller's
 * decision, any other begins a trace here, kept at the sampling ratio. A request whose trace is
 * not kept builds no span at all (tracing is off in it) and stands under the caller's span, or
 * one that says "not kept", so the jobs it writes carry the same decision.
 */
export const traced = <E, R>(
  ratio: number,
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
  const caller = carriesTrace(request) ? Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)) : undefined
  const sampled = caller === undefined ? Math.random() < ratio : caller.sampled
  return sampled
    ? Effect.withTracerEnabled(withServerSpan(request, path, caller, answer), true)
    : Effect.withTracerEnabled(Effect.provideService(answer, Tracer.ParentSpan, caller ?? notSampledHere), false)
}
