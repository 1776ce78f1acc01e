import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer, Option, References, Tracer } from "effect"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"
import { HttpMiddleware, type HttpServerRequest, HttpTraceContext } from "effect/http"
import type { Settings } from "../Config.ts"
import { routeTemplateOf } from "../Http/Envelope.ts"
import { serviceVersion } from "../Health/Version.ts"

/**
 * Keeps `ratio` of the traces begun here, decided once at a trace's root: every span below one
 * follows it (Effect gives a child its parent's decision), and so do the jobs a request causes,
 * which carry the decision in their stored trace context. A request's own trace was decided on
 * its arrival (`droppedOnArrival`).
 */
const sampledAtRoot = (tracer: Tracer.Tracer, ratio: number): Tracer.Tracer =>
  ratio >= 1 ? tracer : Tracer.make({
    span: (options) =>
      tracer.span(
        options.parent._tag === "None" && options.sampled && options.kind !== "server"
          ? { ...options, sampled: Math.random() < ratio }
          : options
      ),
    ...(tracer.context === undefined ? {} : { context: tracer.context })
  })

/**
 * A request that carries no trace of its caller's begins one here, kept at `ratio`: the rest are
 * decided on arrival and served on the path of tracing off, without a span. Below them tracing is
 * off too (`Http/Envelope`), and the jobs they write carry the decision.
 */
const droppedOnArrival = (ratio: number) => {
  // the server asks twice of a request it goes on to trace (before its middleware, then in its
  // tracer): the second answer must be the first, not a second roll
  const kept = new WeakSet<HttpServerRequest.HttpServerRequest>()
  return (request: HttpServerRequest.HttpServerRequest) => {
    if (kept.delete(request) || Option.isSome(HttpTraceContext.fromHeaders(request.headers))) return false
    if (Math.random() >= ratio) return true
    kept.add(request)
    return false
  }
}

/**
 * Traces over OTLP/HTTP (JSON) when OTEL_EXPORTER_OTLP_ENDPOINT or ..._TRACES_ENDPOINT is set:
 * a span per request, per SQL statement and per job. Otherwise tracing is off, and no span is
 * built at all: the request path pays nothing for it.
 */
export const layer = (config: Settings): Layer.Layer<never> => {
  const url = config.otlpTracesEndpoint ??
    (config.otlpEndpoint === null ? null : `${config.otlpEndpoint.replace(/\/+$/, "")}/v1/traces`)
  if (url === null) return Layer.succeed(References.TracerEnabled, false)
  const exporting = OtlpTracer.make({
    url,
    resource: { serviceName: config.traceServiceName, serviceVersion },
    exportInterval: config.traceExportDelay
  })
  return Layer.mergeAll(
    // on, whatever the surroundings say: the settings decide
    Layer.succeed(References.TracerEnabled, true),
    Layer.effect(Tracer.Tracer, Effect.map(exporting, (tracer) => sampledAtRoot(tracer, config.traceSampleRatio))).pipe(
      Layer.provide([OtlpSerialization.layerJson, NodeHttpClient.layerFetch, OtlpExporter.layerFlusher])
    ),
    config.traceSampleRatio >= 1 ? Layer.empty : Layer.succeed(HttpMiddleware.TracerDisabledWhen, droppedOnArrival(config.traceSampleRatio)),
    // `POST /v1/tickets/:id/messages`, as OpenTelemetry names server spans, rather than `POST`
    Layer.succeed(HttpMiddleware.SpanNameGenerator, (request) => {
      const query = request.url.indexOf("?")
      return `${request.method} ${routeTemplateOf(request.method, query === -1 ? request.url : request.url.slice(0, query))}`
    })
  )
}
