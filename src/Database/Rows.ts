import { Effect, type Option, Schema } from "effect"
import { type SqlClient, SqlError, type Statement } from "effect/sql"

/**
 * How repositories read rows: every row decoded by its Schema where the query is defined, and a
 * failure of the query or of the decoding a defect there (our own SQL and our own rows are not
 * errors a caller can handle).
 */
export const all = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(Schema.Array(schema))
  return <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<ReadonlyArray<S["Type"]>, never, R> =>
    Effect.orDie(Effect.flatMap(query, decode))
}

/** The first row, if any. */
export const first = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<Option.Option<S["Type"]>, never, R> =>
    Effect.orDie(Effect.flatMap(query, (rows) => rows.length === 0 ? Effect.succeedNone : Effect.asSome(decode(rows[0]))))
}

/** The one row a statement always returns (an INSERT … RETURNING). */
export const single = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<S["Type"], never, R> =>
    Effect.orDie(Effect.flatMap(query, (rows) => decode(rows[0])))
}

/** Whether the statement touched or found any row. */
export const some = <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<boolean, never, R> =>
  Effect.orDie(Effect.map(query, (rows) => rows.length > 0))

/** A statement whose rows nobody reads. */
export const run = <E, R>(query: Effect.Effect<unknown, E, R>): Effect.Effect<void, never, R> =>
  Effect.orDie(Effect.asVoid(query))

/**
 * A statement of one fixed shape whose SQL text is compiled once, here, instead of on every run:
 * `build` is called with a marker in place of each of its declared parameters (no defaults, no
 * rest), and each call puts its arguments where the markers landed. A statement written from
 * fragments joins its text piece by piece on every run, keeps that text while its query waits on
 * a busy connection, and the driver hashes it again to find its prepared statement: garbage on
 * every read that the young collections have to copy. For the hot reads only: the statement runs
 * as the same text and parameters either way.
 */
export const compiledOnce = <Args extends ReadonlyArray<string>>(
  sql: SqlClient.SqlClient,
  build: (...args: Args) => Statement.Statement<unknown>
): (...args: Args) => Statement.Statement<object> => {
  const markers = Array.from({ length: build.length }, (_, i) => `\u0000compiledOnce argument ${i}\u0000`)
  const [text, params] = build(...(markers as unknown as Args)).compile()
  const places = params.map((param) => markers.indexOf(param as string))
  const unused = markers.filter((_, i) => !places.includes(i))
  if (unused.length > 0) throw new Error(`compiledOnce: ${unused.length} of ${markers.length} arguments never reach the SQL`)
  return (...args) => sql.unsafe(text, places.map((place, i) => place === -1 ? params[i] : args[place]))
}

/**
 * A timestamptz column as the API shows it (ISO 8601, UTC, milliseconds), formatted by the
 * database, for the reads on hot paths: decoding a string there is cheaper than the driver
 * building a Date for every field and the row decoding formatting it again. Read it with
 * `Fields.TimestampText`.
 */
export const isoUtc = (sql: SqlClient.SqlClient, column: string) =>
  sql.literal(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`)

/** Runs `effect` in a transaction of `sql`; the database failing to begin or commit is a defect. */
export const transaction = (sql: SqlClient.SqlClient) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  sql.withTransaction(effect).pipe(Effect.catchIf(SqlError.isSqlError, Effect.die)) as Effect.Effect<A, E, R>
