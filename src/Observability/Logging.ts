import { Cause, Context, Formatter, Logger, References, Tracer } from "effect"
import { inspect } from "node:util"

const twoDigits = (n: number) => String(n).padStart(2, "0")

/** `14:02:07.123`, local time, as Effect's default lines begin. */
const clockTime = (date: Date) =>
  `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}.${
    String(date.getMilliseconds()).padStart(3, "0")
  }`

const annotationValue = (value: unknown) =>
  typeof value === "string" ? (/[\s="]/.test(value) ? JSON.stringify(value) : value) : inspect(value, { breakLength: Infinity })

/**
 * Effect's default text lines, with a line's annotations on that line as `key=value` rather than
 * as an object spread over several: one request is one line to read and to grep.
 */
export const textLogger = Logger.make(({ cause, date, fiber, logLevel, message }) => {
  const parts = (Array.isArray(message) ? message : [message]).map((part) =>
    typeof part === "string" ? part : inspect(part, { breakLength: Infinity })
  )
  const annotations = Object.entries(fiber.getRef(References.CurrentLogAnnotations))
  if (annotations.length > 0) parts.push(annotations.map(([key, value]) => `${key}=${annotationValue(value)}`).join(" "))
  if (cause.reasons.length > 0) parts.push(Cause.pretty(cause))
  globalThis.console.log(`[${clockTime(date)}] ${logLevel.toUpperCase()} (#${fiber.id}): ${parts.join(" ")}`)
})

/**
 * Effect's JSON lines, with the trace and span of the fiber that logged, when its trace is kept, so a
 * log line can be found from its trace and the other way round.
 */
export const jsonLogger = Logger.make((options) => {
  const entry = Logger.formatStructured.log(options)
  const span = Context.getOrUndefined(options.fiber.context, Tracer.ParentSpan)
  globalThis.console.log(
    // a span the sampler dropped names no trace anyone can find, so it adds no ids
    Formatter.formatJson(span?.sampled === true ? { ...entry, trace_id: span.traceId, span_id: span.spanId } : entry)
  )
})
