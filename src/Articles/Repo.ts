import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type Article } from "../Domain/Article.ts"
import { isoTimestamp } from "../Domain/Fields.ts"

interface ArticleRow {
  readonly id: string
  readonly title: string
  readonly slug: string
  readonly body: string
  readonly category: string
  readonly published: boolean
  readonly created_at: Date
  readonly updated_at: Date
}

const toArticle = (row: ArticleRow): Article => ({
  id: row.id,
  title: row.title,
  slug: row.slug,
  body: row.body,
  category: row.category,
  published: row.published,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at)
})

/** Matched words wrapped in <mark>; the text around them HTML-escaped so the excerpt is safe to render. */
const headlineOptions = "StartSel=<mark>, StopSel=</mark>, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=\" … \""

export class ArticlesRepo extends Effect.Service<ArticlesRepo>()("app/Articles/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Ranks every match (so `total` counts them all) but writes excerpts only for the page
     * returned: ts_headline re-parses the body and is the costly part.
     */
    const search = (projectId: string, q: string, limit: number) =>
      sql<{
        id: string
        title: string
        slug: string
        category: string
        excerpt: string
        relevance: number
        total: number
      }>`
        WITH query AS (SELECT websearch_to_tsquery('english', ${q}) AS q),
        page AS (
          SELECT a.id, a.title, a.slug, a.category, a.body, ts_rank(a.search, query.q, 32) AS relevance,
            count(*) OVER () AS total
          FROM articles a, query
          WHERE a.project_id = ${projectId} AND a.published AND a.search @@ query.q
          ORDER BY relevance DESC, a.id
          LIMIT ${limit}
        )
        SELECT page.id, page.title, page.slug, page.category, page.relevance, page.total,
          ts_headline('english', html_escape(page.body),
            query.q, ${headlineOptions}) AS excerpt
        FROM page, query
        ORDER BY page.relevance DESC, page.id`.pipe(
        Effect.map((rows) => ({
          total: rows.length === 0 ? 0 : Number(rows[0]!.total),
          articles: rows.map((row) => ({
            id: row.id,
            title: row.title,
            slug: row.slug,
            excerpt: row.excerpt,
            category: row.category,
            relevance: Number(row.relevance)
          }))
        }))
      )

    /** Slugs starting with `base`, to pick the next free `base-N`. */
    const slugsLike = (projectId: string, base: string) =>
      sql<{ slug: string }>`SELECT slug FROM articles WHERE project_id = ${projectId}
          AND (slug = ${base} OR slug LIKE ${base + "-%"})`.pipe(Effect.map((rows) => new Set(rows.map((r) => r.slug))))

    const insert = (input: {
      readonly projectId: string
      readonly title: string
      readonly body: string
      readonly category: string
      readonly slug: string
      readonly published: boolean
    }) =>
      sql<{ id: string; slug: string }>`
        INSERT INTO articles (project_id, title, body, category, slug, published)
        VALUES (${input.projectId}, ${input.title}, ${input.body}, ${input.category}, ${input.slug}, ${input.published})
        ON CONFLICT (project_id, slug) DO NOTHING
        RETURNING id, slug`.pipe(Effect.map((rows) => rows[0]))

    const find = (projectId: string, id: string) =>
      sql<ArticleRow>`SELECT * FROM articles WHERE project_id = ${projectId} AND id = ${id}`.pipe(
        Effect.map((rows) => rows[0] === undefined ? undefined : toArticle(rows[0]))
      )

    const update = (projectId: string, id: string, change: {
      readonly title?: string | undefined
      readonly body?: string | undefined
      readonly category?: string | undefined
      readonly slug?: string | undefined
      readonly published?: boolean | undefined
    }) =>
      sql<ArticleRow>`
        UPDATE articles SET
          title = coalesce(${change.title ?? null}, title),
          body = coalesce(${change.body ?? null}, body),
          category = coalesce(${change.category ?? null}, category),
          slug = coalesce(${change.slug ?? null}, slug),
          published = coalesce(${change.published ?? null}::boolean, published),
          updated_at = now()
        WHERE project_id = ${projectId} AND id = ${id}
        RETURNING *`.pipe(Effect.map((rows) => rows[0] === undefined ? undefined : toArticle(rows[0])))

    const remove = (projectId: string, id: string) =>
      sql`DELETE FROM articles WHERE project_id = ${projectId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    return {
      search: (projectId: string, q: string, limit: number) => Effect.orDie(search(projectId, q, limit)),
      slugsLike: (projectId: string, base: string) => Effect.orDie(slugsLike(projectId, base)),
      insert: (input: Parameters<typeof insert>[0]) => Effect.orDie(insert(input)),
      find: (projectId: string, id: string) => Effect.orDie(find(projectId, id)),
      update: (projectId: string, id: string, change: Parameters<typeof update>[2]) =>
        update(projectId, id, change).pipe(
          Effect.catchAll((error) =>
            // the unique index is the last word on a slug taken between our check and the write
            String(error.cause).includes("articles_project_id_slug_key") ? Effect.succeed("slug-taken" as const) : Effect.die(error)
          )
        ),
      remove: (projectId: string, id: string) => Effect.orDie(remove(projectId, id))
    } as const
  })
}) {}
