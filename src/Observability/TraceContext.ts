import { Context, Effect, Option, Tracer } from "effect"
import { HttpTraceContext } from "effect/http"

/**
 * The trace context that work done later (a job) carries, so that it joins the trace of the work
 * that caused it: written as the W3C `traceparent`, as a request would carry it.
 */

const traceparentOf = (span: Tracer.AnySpan) => `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

/**
 * The share of requests that begin a trace here, decided as each arrives (`Http/Envelope`); a
 * request carrying its caller's trace follows the caller's decision instead. Undefined while
 * tracing is off.
 */
export const RequestSampleRatio = Context.Reference<number | undefined>("app/Observability/RequestSampleRatio", {
  defaultValue: () => undefined
})

/**
 * Stands as the span of a request whose trace was not kept, decided on its arrival before any
 * span was built: its jobs are stamped with a trace of their own that is not kept either.
 */
export const notSampledHere: Tracer.ExternalSpan = Tracer.externalSpan({
  traceId: "00000000000000000000000000000000",
  spanId: "0000000000000000",
  sampled: false
})

const notSampledTraceparent = () => {
  const ids = crypto.randomUUID().replaceAll("-", "")
  return `00-${ids}-${ids.slice(8, 24)}-00`
}

/**
 * The W3C `traceparent` of the current span, for work that runs later to join its trace. Below
 * a request that is not sampled, spans are not built (tracing is off for it), yet its span is
 * still the context, and its decision must reach the jobs: they are not kept either.
 */
export const currentTraceparent: Effect.Effect<string | null> = Effect.withFiber((fiber) => {
  const current = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
  if (current === undefined) return Effect.succeed(null)
  if (current === notSampledHere) return Effect.succeed(notSampledTraceparent())
  // a span that was not built stands for the nearest one that was
  const span = current._tag === "Span" && Context.get(current.annotations, Tracer.DisablePropagation)
    ? Option.getOrUndefined(current.parent)
    : current
  return Effect.succeed(span === undefined ? null : traceparentOf(span))
})

/** The span a stored `traceparent` names, as the parent of the work that joins its trace. */
export const parentOf = (traceparent: string | null): Tracer.ExternalSpan | undefined => {
  if (traceparent === null) return undefined
  const parsed = HttpTraceContext.w3c({ traceparent } as never)
  return parsed._tag === "Some" ? parsed.value : undefined
}
