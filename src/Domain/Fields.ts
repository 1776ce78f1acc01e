import { Schema } from "effect"

/**
 * Field schemas whose failures read as plain sentences naming the field (`subject is required`),
 * because the message of the first issue is what a caller sees in the envelope.
 */
const say = (message: string) => ({ message: () => ({ message, override: true }) })

const string = (field: string) => Schema.String.annotations(say(`${field} must be a string`))

/** A string that is trimmed; empty after trimming counts as missing. */
export const RequiredText = (field: string, max: number) =>
  Schema.transform(string(field), Schema.String, { strict: true, decode: (s) => s.trim(), encode: (s) => s }).pipe(
    Schema.filter((s) => s.length > 0 || `${field} is required`),
    Schema.filter((s) => s.length <= max || `${field} must be at most ${max.toLocaleString("en-US")} characters`)
  )

export const OptionalText = (field: string, max: number) =>
  Schema.transform(string(field), Schema.String, { strict: true, decode: (s) => s.trim(), encode: (s) => s }).pipe(
    Schema.filter((s) => s.length <= max || `${field} must be at most ${max.toLocaleString("en-US")} characters`)
  )

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** A valid address, at most 254 characters, lower-cased. */
export const Email = (field: string) =>
  Schema.transform(string(field), Schema.String, {
    strict: true,
    decode: (s) => s.trim().toLowerCase(),
    encode: (s) => s
  }).pipe(
    Schema.filter((s) => s.length > 0 || `${field} is required`),
    Schema.filter((s) => (s.length <= 254 && emailPattern.test(s)) || `${field} must be a valid email address`)
  )

export const OneOf = <const L extends ReadonlyArray<string>>(field: string, values: L) =>
  Schema.Literal(...values).annotations(say(`${field} must be one of ${values.join(", ")}`))

export const Priorities = ["p1_critical", "p2_high", "p3_medium", "p4_low"] as const
export const Priority = OneOf("priority", Priorities)
export type Priority = typeof Priority.Type
export const Statuses = ["open", "in_progress", "waiting", "resolved", "closed"] as const
export const Status = OneOf("status", Statuses)
export type Status = typeof Status.Type
export const Source = OneOf("source", ["api", "widget", "email", "form"])
export const Category = OneOf("category", ["billing", "bug", "account", "feature_request", "question", "other"])
export type Category = typeof Category.Type

export const Tags = Schema.Array(RequiredText("each tag", 50)).annotations({
  message: () => ({ message: "tags must be an array of strings", override: false })
}).pipe(
  Schema.filter((tags) => tags.length <= 20 || "tags must contain at most 20 names")
)

const isJsonObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

export const Metadata = Schema.declare(isJsonObject).annotations({
  ...say("metadata must be a JSON object"),
  jsonSchema: { type: "object", description: "Arbitrary JSON object, at most 16 KiB serialized" }
}).pipe(
  Schema.filter((value) =>
    new TextEncoder().encode(JSON.stringify(value)).length <= 16 * 1024 || "metadata must be at most 16 KiB when serialized"
  )
)

/** An integer query parameter between 1 and `max`. */
export const Limit = (max: number) =>
  Schema.String.pipe(
    Schema.filter((s) => /^\s*-?\d+\s*$/.test(s) || "limit must be an integer"),
    Schema.transform(Schema.Number, { strict: true, decode: (s) => Number(s), encode: (n) => String(n) }),
    Schema.filter((n) => n >= 1 || "limit must be at least 1"),
    Schema.filter((n) => n <= max || `limit must be at most ${max}`)
  )

/** An optional body field; `null` is read as absent, which is what most JSON clients mean by it. */
export const optional = <A, I, R>(schema: Schema.Schema<A, I, R>) =>
  Schema.optionalWith(Schema.NullOr(schema), { exact: true })

export const UuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const isUuid = (s: string) => UuidPattern.test(s)

/** ISO 8601 UTC with milliseconds, whatever the driver returned (Date or text). */
export const isoTimestamp = (value: Date | string) => new Date(value).toISOString()
