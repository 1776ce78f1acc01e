import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer, References, Tracer } from "effect"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"
import { HttpMiddleware } from "effect/http"
import type { Settings } from "../Config.ts"
import { serviceVersion } from "../Health/Version.ts"
import { RequestSampleRatio } from "./TraceContext.ts"

/**
 * Keeps `ratio` of the traces begun here, decided once at a trace's root: every span below one
 * follows it (Effect gives a child its parent's decision), and so do the jobs a request causes,
 * which carry the decision in their stored trace context. A request's own trace is decided as it
 * arrives, in the envelope.
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
      // undici's own client, not fetch over it: sending a span over undici costs less than half
      // of what it costs over fetch
      Layer.provide([OtlpSerialization.layerJson, NodeHttpClient.layerUndici, OtlpExporter.layerFlusher])
    ),
    // a request's span is the envelope's (Http/Envelope), decided there as the request arrives:
    // the server's own is never built, so every request takes the server's one path
    Layer.succeed(HttpMiddleware.TracerDisabledWhen, () => true),
    Layer.succeed(RequestSampleRatio, config.traceSampleRatio)
  )
}
