import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { excerpt, queryLexemes } from "../Domain/Excerpt.ts"
import { IntFromRow } from "../Domain/Fields.ts"
import type { SearchResult } from "../Domain/Search.ts"
import type { ProjectId } from "../Domain/Ids.ts"

export interface Page {
  readonly results: ReadonlyArray<SearchResult>
  readonly total: number
}

const TicketHit = Schema.Struct({
  id: Schema.String,
  ticket_number: IntFromRow,
  status: Schema.String,
  title: Schema.String,
  body: Schema.String,
  query: Schema.String,
  relevance: Schema.Number,
  total: IntFromRow
})

const ContactHit = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  relevance: Schema.Number,
  total: IntFromRow
})

const pageOf = <R extends { readonly total: number }>(rows: ReadonlyArray<R>, toResult: (row: R) => SearchResult): Page => ({
  total: rows[0]?.total ?? 0,
  results: rows.map(toResult)
})

/**
 * Tickets and contacts; articles come from the knowledge-base search itself. Each kind is ranked
 * with ts_rank's normalisation 32 (rank / (rank + 1)), so the scores of all kinds lie in [0, 1)
 * and can be merged into one list.
 */
export class SearchRepo extends Context.Service<SearchRepo>()("app/Search/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const tickets = (projectId: ProjectId, q: string, limit: number) =>
      sql`
        WITH query AS (SELECT websearch_to_tsquery('english', ${q}) AS q),
        page AS (
          SELECT t.id, t.ticket_number, t.status, t.subject, t.body, t.created_at, ts_rank(t.search, query.q, 32) AS relevance,
            count(*) OVER () AS total
          FROM tickets t, query
          WHERE t.project_id = ${projectId} AND t.search @@ query.q
          ORDER BY relevance DESC, t.created_at DESC
          LIMIT ${limit}
        )
        SELECT page.id, page.ticket_number, page.status, page.subject AS title, page.relevance::text::float8 AS relevance,
          page.total, page.body, query.q::text AS query
        FROM page, query ORDER BY page.relevance DESC, page.created_at DESC`.pipe(
        Rows.all(TicketHit),
        Effect.map((rows) => {
          const lexemes = queryLexemes(rows[0]?.query ?? "")
          return pageOf(rows, (row) => ({
            type: "ticket",
            id: row.id,
            title: row.title,
            // a ticket's body is plain text already: one passage of it, escaped, matches marked
            excerpt: excerpt(row.body, lexemes, 1),
            relevance: row.relevance,
            ticket_number: row.ticket_number,
            status: row.status
          }))
        })
      )

    /** Words of the name or address, or a part of the address (`@example.com`, `jane.d`). */
    const contacts = (projectId: ProjectId, q: string, limit: number) =>
      sql`
        WITH query AS (SELECT websearch_to_tsquery('simple', ${q}) AS q, lower(${q}) AS needle)
        SELECT c.id, c.email, c.name,
          greatest(ts_rank(c.search, query.q, 32), CASE WHEN c.email = query.needle THEN 0.9
            WHEN strpos(c.email, query.needle) > 0 THEN 0.5 ELSE 0 END)::text::float8 AS relevance,
          count(*) OVER () AS total
        FROM contacts c, query
        WHERE c.project_id = ${projectId}
          AND (c.search @@ query.q OR strpos(c.email, query.needle) > 0)
        ORDER BY relevance DESC, c.email
        LIMIT ${limit}`.pipe(
        Rows.all(ContactHit),
        Effect.map((rows) =>
          pageOf(rows, (row) => ({
            type: "contact",
            id: row.id,
            title: row.name ?? row.email,
            excerpt: row.name === null ? row.email : `${row.name} <${row.email}>`,
            relevance: row.relevance,
            email: row.email,
            name: row.name
          }))
        )
      )

    return { tickets, contacts }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
