import { Context, Effect, Option, References, Tracer } from "effect"
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

/**
 * Keys added on the way to a kept request's handler: the server's, the router's, the envelope's,
 * then tracing on and its span (8 for `GET /health`, more for a route behind a key with a body).
 * Past Effect's default of 8, the next key copies the whole context and the fiber reads it all
 * again: with every request kept, that was one copy per request.
 */
const requestContextDepth = 16

/**
 * The context every request's fiber starts from while requests are traced: tracing off, under
 * the span of a trace not kept, both in its base rather than added over it. Most requests are not
 * kept at a low ratio, and they are served with nothing added to their context for it (each key
 * added would be a step in every lookup, and a new context for the fiber to read again); the
 * envelope turns tracing on for a request that is kept, and puts the caller's span in place for
 * one whose caller's trace is not kept.
 */
export const untracedRequests = <Services>(context: Context.Context<Services>): Context.Context<Services> => {
  if (Context.get(context, RequestSampleRatio) === undefined) return context
  const services = new Map(context.mapUnsafe)
  services.set(References.TracerEnabled.key, false)
  services.set(Tracer.ParentSpan.key, notSampledHere)
  return Context.makeUnsafe(services, { maxDepth: requestContextDepth })
}

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
