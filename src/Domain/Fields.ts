import { Schema, SchemaAST, SchemaTransformation } from "effect"

/**
 * Field schemas whose failures read as plain sentences naming the field (`subject is required`),
 * because the message of the first issue is what a caller sees in the envelope.
 */
const say = (message: string) => ({ message })

// With the u flag a well-formed surrogate pair is one code point, so only a lone surrogate matches
const unstorable = /[\u0000\uD800-\uDFFF]/u

/**
 * Why `text` cannot be stored, in words that follow the name of where it is, or undefined when it
 * can. PostgreSQL refuses NUL in text and jsonb. A lone surrogate is not Unicode: UTF-8 has no
 * bytes for it, so a text column would quietly store U+FFFD in its place and jsonb refuses it.
 */
export const whyUnstorable = (text: string) =>
  !unstorable.test(text)
    ? undefined
    : text.includes("\u0000")
    ? "must not contain NUL characters"
    : "must not contain unpaired UTF-16 surrogates"

/** Text that PostgreSQL stores as it was sent: no NUL and no lone surrogate. */
const storable = (field: string) =>
  Schema.makeFilter((s: string) => {
    const why = whyUnstorable(s)
    return why === undefined || `${field} ${why}`
  })

/** Any string of a request, checked to be storable. */
export const Text = (field: string) =>
  Schema.String.annotate(say(`${field} must be a string`)).check(storable(field))

const trimmed = SchemaTransformation.transform<string, string>({ decode: (s) => s.trim(), encode: (s) => s })

const atMost = (field: string, max: number) =>
  Schema.makeFilter((s: string) =>
    s.length <= max || `${field} must be at most ${max.toLocaleString("en-US")} characters`
  )

/** A string that is trimmed; empty after trimming counts as missing. */
export const RequiredText = (field: string, max: number) =>
  Text(field).pipe(
    Schema.decodeTo(Schema.String, trimmed),
    Schema.check(Schema.makeFilter((s: string) => s.length > 0 || `${field} is required`), atMost(field, max))
  )

export const OptionalText = (field: string, max: number) =>
  Text(field).pipe(Schema.decodeTo(Schema.String, trimmed), Schema.check(atMost(field, max)))

/**
 * A person's name on one line: each run of control characters (C0, DEL, C1) or line and paragraph
 * separators, with the blanks around it, becomes one space, because a name is shown in headers,
 * terminals and one-line lists where a line break would forge a line of its own.
 */
const oneLine = SchemaTransformation.transform<string, string>({
  decode: (s) => s.replace(/\s*[\p{Cc}\p{Zl}\p{Zp}][\s\p{Cc}]*/gu, " ").trim(),
  encode: (s) => s
})

/** A person's name, on one line and trimmed; empty counts as missing. */
export const RequiredName = (field: string, max: number) =>
  Text(field).pipe(
    Schema.decodeTo(Schema.String, oneLine),
    Schema.check(Schema.makeFilter((s: string) => s.length > 0 || `${field} is required`), atMost(field, max))
  )

/** A person's name, on one line and trimmed; empty is left for the caller to read as absent. */
export const OptionalName = (field: string, max: number) =>
  Text(field).pipe(Schema.decodeTo(Schema.String, oneLine), Schema.check(atMost(field, max)))

// The HTML standard's valid e-mail address (what a browser's <input type=email> accepts, so the
// widget and the service agree); its one form rules out display names, groups and comments.
const emailPattern =
  /^[a-zA-Z0-9.!#$%&'*+\/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/

/** Whether `s` is an address this service accepts, stores and mails: the one rule for every email field. */
export const isEmail = (s: string) => s.length <= 254 && emailPattern.test(s)

const lowerCased = SchemaTransformation.transform<string, string>({ decode: (s) => s.trim().toLowerCase(), encode: (s) => s })

/** A valid address, at most 254 characters, lower-cased. */
export const Email = (field: string) =>
  Text(field).pipe(
    Schema.decodeTo(Schema.String, lowerCased),
    Schema.check(
      Schema.makeFilter((s: string) => s.length > 0 || `${field} is required`),
      Schema.makeFilter((s: string) => isEmail(s) || `${field} must be a valid email address`)
    )
  )

/** An address as `Email` reads it, or one word that stands for something else (`none`). */
export const EmailOr = (field: string, word: string) =>
  Text(field).pipe(
    Schema.decodeTo(Schema.String, lowerCased),
    Schema.check(
      Schema.makeFilter((s: string) => s === word || isEmail(s) || `${field} must be an email address or ${word}`)
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

// `[]` stands for the index of the item, which the error envelope fills in from the issue's path
export const Tags = Schema.Array(RequiredText("tags[]", 50)).annotate(say("tags must be an array of strings")).pipe(
  Schema.check(Schema.makeFilter((tags) => tags.length <= 20 || "tags must contain at most 20 names"))
)

const segmentOf = (key: string) => /^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(key) ? `.${key}` : `[${JSON.stringify(key.slice(0, 40))}]`

/**
 * The first key or string value inside a JSON value that cannot be stored, as a message naming
 * its path (`metadata.notes[2] must not contain NUL characters`). A loop over a stack rather than
 * recursion, so no nesting can exhaust the call stack.
 */
const firstUnstorable = (field: string, value: unknown): string | undefined => {
  const pending: Array<readonly [path: string, value: unknown]> = [[field, value]]
  while (pending.length > 0) {
    const [path, item] = pending.pop()!
    if (typeof item === "string") {
      const why = whyUnstorable(item)
      if (why !== undefined) return `${path} ${why}`
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push([`${path}[${i}]`, item[i]])
    } else if (typeof item === "object" && item !== null) {
      const entries = Object.entries(item)
      for (const [key] of entries) {
        const why = whyUnstorable(key)
        if (why !== undefined) return `${path} keys ${why}`
      }
      for (let i = entries.length - 1; i >= 0; i--) pending.push([`${path}${segmentOf(entries[i]![0])}`, entries[i]![1]])
    }
  }
  return undefined
}

export const Metadata = Schema.Record(Schema.String, Schema.mutableKey(Schema.Unknown)).annotate({
  ...say("metadata must be a JSON object"),
  description: "Arbitrary JSON object, at most 16 KiB serialized"
}).pipe(
  // the size first: it bounds the walk of the second
  Schema.check(
    Schema.makeFilter((value) =>
      new TextEncoder().encode(JSON.stringify(value)).length <= 16 * 1024 || "metadata must be at most 16 KiB when serialized"
    ),
    Schema.makeFilter((value) => firstUnstorable("metadata", value) ?? true)
  )
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

const timestampRule = (field: string) => `${field} must be an ISO 8601 timestamp such as 2026-11-28T09:00:00Z`

/** A moment as a client writes one: ISO 8601 with its offset (Z or ±hh:mm), a real date. */
export const IsoTimestamp = (field: string) =>
  Schema.String.annotate({ message: timestampRule(field) }).check(Schema.makeFilter((text: string) =>
    (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text))) ||
    timestampRule(field)
  ))

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
