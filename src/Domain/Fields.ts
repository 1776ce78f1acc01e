import { Schema, SchemaAST, SchemaTransformation } from "effect"

/**
 * Field schemas whose failures read as plain sentences naming the field (`subject is required`),
 * because the message of the first issue is what a caller sees in the envelope.
 */
const say = (message: string) => ({ message })

const string = (field: string) => Schema.String.annotate(say(`${field} must be a string`))

const trimmed = SchemaTransformation.transform<string, string>({ decode: (s) => s.trim(), encode: (s) => s })

const atMost = (field: string, max: number) =>
  Schema.makeFilter((s: string) =>
    s.length <= max || `${field} must be at most ${max.toLocaleString("en-US")} characters`
  )

/** A string that is trimmed; empty after trimming counts as missing. */
export const RequiredText = (field: string, max: number) =>
  string(field).pipe(
    Schema.decodeTo(Schema.String, trimmed),
    Schema.check(Schema.makeFilter((s: string) => s.length > 0 || `${field} is required`), atMost(field, max))
  )

export const OptionalText = (field: string, max: number) =>
  string(field).pipe(Schema.decodeTo(Schema.String, trimmed), Schema.check(atMost(field, max)))

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** A valid address, at most 254 characters, lower-cased. */
export const Email = (field: string) =>
  string(field).pipe(
    Schema.decodeTo(
      Schema.String,
      SchemaTransformation.transform<string, string>({ decode: (s) => s.trim().toLowerCase(), encode: (s) => s })
    ),
    Schema.check(
      Schema.makeFilter((s: string) => s.length > 0 || `${field} is required`),
      Schema.makeFilter((s: string) => (s.length <= 254 && emailPattern.test(s)) || `${field} must be a valid email address`)
    )
  )

export const OneOf = <const L extends ReadonlyArray<string>>(field: string, values: L) =>
  Schema.Literals(values).annotate(say(`${field} must be one of ${values.join(", ")}`))

export const Priorities = ["p1_critical", "p2_high", "p3_medium", "p4_low"] as const
export const Priority = OneOf("priority", Priorities)
export type Priority = typeof Priority.Type
export const Statuses = ["open", "in_progress", "waiting", "resolved", "closed"] as const
export const Status = OneOf("status", Statuses)
export type Status = typeof Status.Type
export const Sources = ["api", "widget", "email", "form"] as const
export const Source = OneOf("source", Sources)
export type Source = typeof Source.Type
export const Categories = ["billing", "bug", "account", "feature_request", "question", "other"] as const
export const Category = OneOf("category", Categories)
export type Category = typeof Category.Type
export const Sentiments = ["negative", "neutral", "positive"] as const
export const Sentiment = Schema.Literals(Sentiments)
export type Sentiment = typeof Sentiment.Type

export const Tags = Schema.Array(RequiredText("each tag", 50)).annotate(say("tags must be an array of strings")).pipe(
  Schema.check(Schema.makeFilter((tags) => tags.length <= 20 || "tags must contain at most 20 names"))
)

export const Metadata = Schema.Record(Schema.String, Schema.mutableKey(Schema.Unknown)).annotate({
  ...say("metadata must be a JSON object"),
  description: "Arbitrary JSON object, at most 16 KiB serialized"
}).pipe(
  Schema.check(Schema.makeFilter((value) =>
    new TextEncoder().encode(JSON.stringify(value)).length <= 16 * 1024 || "metadata must be at most 16 KiB when serialized"
  ))
)

/** An integer query parameter between 1 and `max`. */
export const Limit = (max: number) =>
  Schema.String.pipe(
    Schema.check(Schema.makeFilter((s: string) => /^\s*-?\d+\s*$/.test(s) || "limit must be an integer")),
    Schema.decodeTo(
      Schema.Number,
      SchemaTransformation.transform<number, string>({ decode: (s) => Number(s), encode: (n) => String(n) })
    ),
    Schema.check(
      Schema.makeFilter((n: number) => n >= 1 || "limit must be at least 1"),
      Schema.makeFilter((n: number) => n <= max || `limit must be at most ${max}`)
    )
  )

/**
 * An optional body field; `null` is read as absent, which is what most JSON clients mean by it.
 * A value of another JSON type gets the field's own message (`metadata must be a JSON object`).
 */
export const optional = <S extends Schema.Top>(schema: S) => {
  const message = schema.ast.annotations?.message ?? SchemaAST.toEncoded(schema.ast).annotations?.message
  const nullable = Schema.NullOr(schema)
  return Schema.optionalKey(typeof message === "string" ? nullable.annotate({ message }) : nullable)
}

export const Uuid = Schema.String.check(Schema.isUUID())

export const UuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const isUuid = (s: string) => UuidPattern.test(s)

/** ISO 8601 UTC with milliseconds, whatever the driver returned (Date or text). */
export const isoTimestamp = (value: Date | string) => new Date(value).toISOString()

/**
 * A timestamp column as the API shows it: read from a `Date` (or the text some drivers give),
 * written as ISO 8601 UTC with milliseconds.
 */
export const TimestampFromRow = Schema.Union([Schema.Date, Schema.String]).pipe(
  Schema.decodeTo(
    Schema.String,
    SchemaTransformation.transform<string, Date | string>({ decode: isoTimestamp, encode: (s) => s })
  )
)

/** A timestamp column that the query formatted itself (`Rows.isoUtc`): already as the API shows it. */
export const TimestampText = Schema.String

/** An integer column: PostgreSQL's int8 arrives as a bigint (or text), int4 as a number. */
export const IntFromRow = Schema.Union([Schema.Number, Schema.BigInt, Schema.String]).pipe(
  Schema.decodeTo(
    Schema.Number,
    SchemaTransformation.transform<number, number | bigint | string>({ decode: (n) => Number(n), encode: (n) => n })
  )
)
