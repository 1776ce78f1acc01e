import { Effect, References, type Tracer } from "effect"
import { HttpTraceContext } from "effect/http"

/**
 * The trace context that work done later (a job) carries, so that it joins the trace of the work
 * that caused it: written as the W3C `traceparent`, as a request would carry it.
 */

/** The W3C `traceparent` of the current span, for work that runs later to join its trace. */
export const currentTraceparent: Effect.Effect<string | null> = Effect.withFiber((fiber) =>
  // tracing off: no span to find, and no failure built to say so
  fiber.getRef(References.TracerEnabled)
    ? Effect.match(Effect.currentSpan, {
      onFailure: () => null,
      onSuccess: (span) => HttpTraceContext.toHeaders(span).traceparent ?? null
    })
    : Effect.succeed(null)
)

/** The span a stored `traceparent` names, as the parent of the work that joins its trace. */
export const parentOf = (traceparent: string | null): Tracer.ExternalSpan | undefined => {
  if (traceparent === null) return undefined
  const parsed = HttpTraceContext.w3c({ traceparent } as never)
  return parsed._tag === "Some" ? parsed.value : undefined
}
