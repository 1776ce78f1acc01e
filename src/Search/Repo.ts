import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { SearchResult } from "../Domain/Search.ts"

const headline = "StartSel=<mark>, StopSel=</mark>, MaxWords=30, MinWords=12, MaxFragments=1"

export interface Page {
  readonly results: ReadonlyArray<SearchResult>
  readonly total: number
}

const pageOf = <R extends { total: number }>(rows: ReadonlyArray<R>, toResult: (row: R) => SearchResult): Page => ({
  total: rows.length === 0 ? 0 : Number(rows[0]!.total),
  results: rows.map(toResult)
})

/**
 * Tickets and contacts; articles come from the knowledge-base search itself. Each kind is ranked
 * with ts_rank's normalisation 32 (rank / (rank + 1)), so the scores of all kinds lie in [0, 1)
 * and can be merged into one list.
 */
export class SearchRepo extends Effect.Service<SearchRepo>()("app/Search/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const tickets = (projectId: string, q: string, limit: number) =>
      sql<{ id: string; ticket_number: number; status: string; title: string; excerpt: string; relevance: number; total: number }>`
        WITH query AS (SELECT websearch_to_tsquery('english', ${q}) AS q),
        page AS (
          SELECT t.id, t.ticket_number, t.status, t.subject, t.body, ts_rank(t.search, query.q, 32) AS relevance,
            count(*) OVER () AS total
          FROM tickets t, query
          WHERE t.project_id = ${projectId} AND t.search @@ query.q
          ORDER BY relevance DESC, t.created_at DESC
          LIMIT ${limit}
        )
        SELECT page.id, page.ticket_number, page.status, page.subject AS title, page.relevance, page.total,
          ts_headline('english', html_escape(page.body),
            query.q, ${headline}) AS excerpt
        FROM page, query ORDER BY page.relevance DESC`.pipe(
        Effect.map((rows) =>
          pageOf(rows, (row) => ({
            type: "ticket",
            id: row.id,
            title: row.title,
            excerpt: row.excerpt,
            relevance: Number(row.relevance),
            ticket_number: Number(row.ticket_number),
            status: row.status
          }))
        )
      )

    /** Words of the name or address, or a part of the address (`@example.com`, `jane.d`). */
    const contacts = (projectId: string, q: string, limit: number) =>
      sql<{ id: string; email: string; name: string | null; relevance: number; total: number }>`
        WITH query AS (SELECT websearch_to_tsquery('simple', ${q}) AS q, lower(${q}) AS needle)
        SELECT c.id, c.email, c.name,
          greatest(ts_rank(c.search, query.q, 32), CASE WHEN c.email = query.needle THEN 0.9
            WHEN strpos(c.email, query.needle) > 0 THEN 0.5 ELSE 0 END) AS relevance,
          count(*) OVER () AS total
        FROM contacts c, query
        WHERE c.project_id = ${projectId}
          AND (c.search @@ query.q OR strpos(c.email, query.needle) > 0)
        ORDER BY relevance DESC, c.email
        LIMIT ${limit}`.pipe(
        Effect.map((rows) =>
          pageOf(rows, (row) => ({
            type: "contact",
            id: row.id,
            title: row.name ?? row.email,
            excerpt: row.name === null ? row.email : `${row.name} <${row.email}>`,
            relevance: Number(row.relevance),
            email: row.email,
            name: row.name
          }))
        )
      )

    return {
      tickets: (projectId: string, q: string, limit: number) => Effect.orDie(tickets(projectId, q, limit)),
      contacts: (projectId: string, q: string, limit: number) => Effect.orDie(contacts(projectId, q, limit))
    } as const
  })
}) {}
