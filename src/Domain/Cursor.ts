import { Effect, Result, Schema } from "effect"
import { Base64Url } from "effect/encoding"
import { ValidationError } from "./Errors.ts"
import { ArticleId, TicketId } from "./Ids.ts"

/**
 * Where a page of a list ends: the sort key of its last item and the order it belongs to, so the
 * next page starts right after it (keyset paging). Opaque to clients: base64url of a small JSON, a
 * dot, and a tag that binds it to the list it came from (see `CursorScope`).
 */
export type Cursor =
  | { readonly order: "created"; readonly number: number }
  | { readonly order: "updated"; readonly at: string; readonly id: TicketId }
  | { readonly order: "articles"; readonly at: string; readonly id: ArticleId }
  /** a custom field's value as text (null when the ticket has none), then the ticket's number */
  | { readonly order: "custom_field"; readonly value: string | null; readonly number: number }
  /** the next SLA due time to the microsecond (null for tickets without one, which come last), then the id */
  | { readonly order: "sla_due"; readonly at: string | null; readonly id: TicketId }
  /** an audit entry's id (a bigint, as decimal text): the log pages newest first */
  | { readonly order: "audit"; readonly id: string }

const isTicketId = Schema.is(TicketId)
const isArticleId = Schema.is(ArticleId)

// ticket numbers are int4, and PostgreSQL takes the parameter as one: a larger number would be
// its error (a 500) rather than the caller's 400
const isTicketNumber = (number: unknown): number is number =>
  Number.isSafeInteger(number) && (number as number) > 0 && (number as number) <= 2_147_483_647

/** A timestamp as the cursor keeps it: UTC to the microsecond, which is what the column holds. */
const exactTimestamp = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

/** A real moment (no 30 February), which PostgreSQL would refuse with an error of its own. */
const isMoment = (at: string) => {
  const millis = `${at.slice(0, 23)}Z`
  const date = new Date(millis)
  return !Number.isNaN(date.getTime()) && date.toISOString() === millis
}

/**
 * What a cursor belongs to: one list (its name, and every filter and order of the query that made
 * it) of one project. A cursor read anywhere else is refused, as is one the service never made.
 */
export interface CursorScope {
  readonly list: "tickets" | "contact_tickets" | "visitor_tickets" | "articles" | "audit"
  readonly projectId: string
  readonly query: ReadonlyArray<unknown>
}

/** Tags a cursor's text under the service's key (an HMAC), and checks a tag. */
export interface CursorSigner {
  readonly sign: (data: string) => string
  readonly verifies: (data: string, tag: string) => boolean
}

const signedText = (scope: CursorScope, payload: string) =>
  `${JSON.stringify([scope.list, scope.projectId, scope.query])}\n${payload}`

export const encodeCursor = (signer: CursorSigner, scope: CursorScope, cursor: Cursor) => {
  const payload = JSON.stringify(cursor)
  return `${Base64Url.encode(payload)}.${signer.sign(signedText(scope, payload))}`
}

/** The cursor, if `text` is one that `encodeCursor` made for `order` in `scope`; anything else is undefined. */
export const decodeCursor = <O extends Cursor["order"]>(
  signer: CursorSigner,
  scope: CursorScope,
  text: string,
  order: O
): Extract<Cursor, { readonly order: O }> | undefined => {
  const dot = text.indexOf(".")
  if (dot === -1) return undefined
  const json = Base64Url.decodeString(text.slice(0, dot))
  if (Result.isFailure(json)) return undefined
  if (!signer.verifies(signedText(scope, json.success), text.slice(dot + 1))) return undefined
  let value: unknown
  try {
    value = JSON.parse(json.success)
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null) return undefined
  const cursor = value as Record<string, unknown>
  if (cursor.order !== order) return undefined
  if (order === "sla_due") {
    return (cursor.at === null || (typeof cursor.at === "string" && exactTimestamp.test(cursor.at) && isMoment(cursor.at))) &&
        isTicketId(cursor.id)
      ? { order, at: cursor.at, id: cursor.id } as Extract<Cursor, { readonly order: O }>
      : undefined
  }
  if (order === "audit") {
    return typeof cursor.id === "string" && /^[1-9]\d{0,17}$/.test(cursor.id)
      ? { order, id: cursor.id } as Extract<Cursor, { readonly order: O }>
      : undefined
  }
  if (order === "custom_field") {
    // the value went out as the database gave it, and the signature says it came back so
    return isTicketNumber(cursor.number) && (cursor.value === null || typeof cursor.value === "string")
      ? { order, value: cursor.value, number: cursor.number } as Extract<Cursor, { readonly order: O }>
      : undefined
  }
  if (order === "created") {
    // ticket numbers are int4, and PostgreSQL takes the parameter as one: a larger number would be
    // its error (a 500) rather than the caller's 400
    return Number.isSafeInteger(cursor.number) && (cursor.number as number) > 0 && (cursor.number as number) <= 2_147_483_647
      ? { order, number: cursor.number } as Extract<Cursor, { readonly order: O }>
      : undefined
  }
  return typeof cursor.at === "string" && exactTimestamp.test(cursor.at) && isMoment(cursor.at) &&
      (order === "articles" ? isArticleId : isTicketId)(cursor.id)
    ? { order, at: cursor.at, id: cursor.id } as Extract<Cursor, { readonly order: O }>
    : undefined
}

/**
 * The cursors of one list in `scope`: reading the one a caller sent (a cursor of another list,
 * project, filter or order, or none of ours, is the caller's mistake), and making the next.
 */
export const cursorsOf = (signer: CursorSigner, scope: CursorScope) => ({
  read: <O extends Cursor["order"]>(text: string | undefined, order: O) => {
    if (text === undefined) return Effect.succeed(undefined)
    const cursor = decodeCursor(signer, scope, text, order)
    return cursor === undefined
      ? Effect.fail(new ValidationError({ message: "cursor is not valid" }))
      : Effect.succeed(cursor)
  },
  encode: (cursor: Cursor) => encodeCursor(signer, scope, cursor)
})

/**
 * One page of a list read with `limit + 1` rows: the first `limit` as items, and a cursor after
 * the last of them only when the extra row shows that more follow.
 */
export const pageOf = <R, A>(
  rows: ReadonlyArray<R>,
  limit: number,
  item: (row: R) => A,
  cursorOf: (row: R) => Cursor,
  encode: (cursor: Cursor) => string
): { readonly items: ReadonlyArray<A>; readonly next_cursor: string | null } => {
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return {
    items: page.map(item),
    next_cursor: rows.length > limit && last !== undefined ? encode(cursorOf(last)) : null
  }
}
