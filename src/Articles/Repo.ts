import { Context, Effect, Layer, Option, Schema, Struct } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import type { Article, ArticleCreated, ArticleSearchResults, PublicArticle } from "../Domain/Article.ts"
import type { Cursor } from "../Domain/Cursor.ts"
import { excerpt, queryLexemes } from "../Domain/Excerpt.ts"
import type { ArticleRef } from "../Domain/Article.ts"
import { IntFromRow, TimestampFromRow } from "../Domain/Fields.ts"
import { type ArticleId, ArticleIdFromRow, type ProjectId } from "../Domain/Ids.ts"

const ArticleRow = Schema.Struct({
  id: ArticleIdFromRow,
  title: Schema.String,
  slug: Schema.String,
  body: Schema.String,
  category: Schema.String,
  published: Schema.Boolean,
  created_at: TimestampFromRow,
  updated_at: TimestampFromRow
})

const PublicArticleRow = Schema.Struct({
  id: ArticleIdFromRow,
  title: Schema.String,
  slug: Schema.String,
  body: Schema.String,
  category: Schema.String,
  updated_at: TimestampFromRow
})
/** An article as the operator's list shows it, with its exact creation time for the cursor. */
const SummaryRow = Schema.Struct({ ...Struct.omit(ArticleRow.fields, ["body"]), created_key: Schema.String })

const HitRow = Schema.Struct({
  id: ArticleIdFromRow,
  title: Schema.String,
  slug: Schema.String,
  category: Schema.String,
  body_text: Schema.String,
  query: Schema.String,
  relevance: Schema.Number,
  total: IntFromRow
})

const Created = Schema.Struct({ id: ArticleIdFromRow, slug: Schema.String })
const Slug = Schema.Struct({ slug: Schema.String })
const Upserted = Schema.Struct({ id: ArticleIdFromRow, inserted: Schema.Boolean })
const Id = Schema.Struct({ id: ArticleIdFromRow })

export interface ArticleChange {
  readonly title?: string | undefined
  readonly body?: string | undefined
  readonly category?: string | undefined
  readonly slug?: string | undefined
  readonly published?: boolean | undefined
}

/** An article of an import, matched to a stored one by its slug. */
export interface ImportedArticle {
  readonly title: string
  readonly body: string
  readonly category: string
  readonly slug: string
  /** unset: a new article is unpublished and a stored one keeps its state */
  readonly published: boolean | undefined
}

export type ImportOutcome = "created" | "updated" | "unchanged"

export class ArticlesRepo extends Context.Service<ArticlesRepo>()("app/Articles/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Ranks every match (so `total` counts them all) and returns the plain text of the page's
     * bodies (article_texts, kept by triggers, not the Markdown) with the query's lexemes: the
     * excerpt is cut here (Domain/Excerpt.ts), since ts_headline re-parsing the bodies was a third of the
     * query's cost.
     */
    const search = (projectId: ProjectId, q: string, limit: number) =>
      sql`
        WITH query AS (SELECT websearch_to_tsquery('english', ${q}) AS q),
        page AS (
          SELECT a.id, a.title, a.slug, a.category, ts_rank(a.search, query.q, 32) AS relevance,
            count(*) OVER () AS total
          FROM articles a, query
          WHERE a.project_id = ${projectId} AND a.published AND a.search @@ query.q
          ORDER BY relevance DESC, a.id
          LIMIT ${limit}
        )
        SELECT page.id, page.title, page.slug, page.category, page.relevance::text::float8 AS relevance, page.total,
          coalesce(plain.body_text, '') AS body_text, query.q::text AS query
        FROM page CROSS JOIN query LEFT JOIN article_texts plain ON plain.article_id = page.id
        ORDER BY page.relevance DESC, page.id`.pipe(
        Rows.all(HitRow),
        Effect.map((rows): ArticleSearchResults => {
          const lexemes = queryLexemes(rows[0]?.query ?? "")
          return {
            total: rows[0]?.total ?? 0,
            articles: rows.map(({ body_text, query: _, total: __, ...hit }) => ({ ...hit, excerpt: excerpt(body_text, lexemes) }))
          }
        })
      )

    /**
     * A published article by slug, or by id when `byId` (the caller knows it is a uuid, which the
     * uuid column would refuse otherwise). A slug may itself look like a uuid, so both are tried,
     * the id first.
     */
    const findPublished = (projectId: ProjectId, idOrSlug: ArticleRef, byId: boolean) =>
      sql`
        SELECT id, title, slug, body, category, updated_at FROM articles
        WHERE project_id = ${projectId} AND published
          AND (slug = ${idOrSlug}${byId ? sql` OR id = ${idOrSlug}` : sql``})
        ${byId ? sql`ORDER BY id = ${idOrSlug} DESC` : sql``}
        LIMIT 1`.pipe(Rows.first(PublicArticleRow), Effect.map((found): Option.Option<PublicArticle> => found))

    /**
     * A page of the project's articles, newest first, after the cursor. An import writes many
     * articles in one transaction, all with one created_at, so the id breaks ties; the cursor
     * keeps created_at to the microsecond, as stored.
     */
    const list = (
      projectId: ProjectId,
      filter: { readonly published?: boolean | undefined; readonly text?: string | undefined },
      after: Extract<Cursor, { readonly order: "articles" }> | undefined,
      rows: number
    ) =>
      sql`
        SELECT a.id, a.title, a.slug, a.category, a.published, a.created_at, a.updated_at,
          to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key
        FROM articles a
        WHERE a.project_id = ${projectId}
          ${filter.published === undefined ? sql`` : sql`AND a.published = ${filter.published}`}
          ${filter.text === undefined ? sql`` : sql`AND a.search @@ websearch_to_tsquery('english', ${filter.text})`}
          ${after === undefined ? sql`` : sql`AND (a.created_at, a.id) < (${after.at}::timestamptz, ${after.id}::uuid)`}
        ORDER BY a.created_at DESC, a.id DESC
        LIMIT ${rows}`.pipe(Rows.all(SummaryRow))

    const find = (projectId: ProjectId, id: ArticleId) =>
      sql`SELECT id, title, slug, body, category, published, created_at, updated_at
          FROM articles WHERE project_id = ${projectId} AND id = ${id}`.pipe(
        Rows.first(ArticleRow),
        Effect.map((found): Option.Option<Article> => found)
      )

    /** Slugs starting with `base`, to pick the next free `base-N`. */
    const slugsLike = (projectId: ProjectId, base: string) =>
      sql`SELECT slug FROM articles WHERE project_id = ${projectId}
          AND (slug = ${base} OR slug LIKE ${base + "-%"})`.pipe(
        Rows.all(Slug),
        Effect.map((rows) => new Set(rows.map((row) => row.slug)))
      )

    /** None when the slug is taken in the project. */
    const insert = (input: {
      readonly projectId: ProjectId
      readonly title: string
      readonly body: string
      readonly category: string
      readonly slug: string
      readonly published: boolean
    }) =>
      sql`
        INSERT INTO articles (project_id, title, body, category, slug, published)
        VALUES (${input.projectId}, ${input.title}, ${input.body}, ${input.category}, ${input.slug}, ${input.published})
        ON CONFLICT (project_id, slug) DO NOTHING
        RETURNING id, slug`.pipe(Rows.first(Created), Effect.map((found): Option.Option<ArticleCreated> => found))

    /** None when there is no such article; `slug-taken` when the new slug belongs to another one. */
    const update = (projectId: ProjectId, id: ArticleId, change: ArticleChange) =>
      sql`
        UPDATE articles SET
          title = coalesce(${change.title ?? null}, title),
          body = coalesce(${change.body ?? null}, body),
          category = coalesce(${change.category ?? null}, category),
          slug = coalesce(${change.slug ?? null}, slug),
          published = coalesce(${change.published ?? null}::boolean, published),
          updated_at = now()
        WHERE project_id = ${projectId} AND id = ${id}
        RETURNING id, title, slug, body, category, published, created_at, updated_at`.pipe(
        Rows.first(ArticleRow),
        Effect.map((found): Option.Option<Article> | "slug-taken" => found),
        // the unique index is the last word on a slug taken between a check and the write
        Effect.catchDefect((defect) =>
          SqlError.isSqlError(defect) && defect.reason._tag === "UniqueViolation"
            ? Effect.succeed("slug-taken" as const)
            : Effect.die(defect)
        )
      )

    const remove = (projectId: ProjectId, id: ArticleId) =>
      sql`DELETE FROM articles WHERE project_id = ${projectId} AND id = ${id} RETURNING id`.pipe(Rows.some)

    /**
     * One article of an import, by slug. An article whose fields already match is not written, so
     * a repeated import leaves it (and its updated_at) alone; `xmax = 0` holds only for a row this
     * statement inserted, which tells a creation from an update in the one round trip.
     */
    const upsertBySlug = (projectId: ProjectId, article: ImportedArticle) => {
      const published = article.published ?? null
      return sql`
        INSERT INTO articles (project_id, title, body, category, slug, published)
        VALUES (${projectId}, ${article.title}, ${article.body}, ${article.category}, ${article.slug},
          coalesce(${published}::boolean, false))
        ON CONFLICT (project_id, slug) DO UPDATE SET
          title = excluded.title,
          body = excluded.body,
          category = excluded.category,
          published = coalesce(${published}::boolean, articles.published),
          updated_at = now()
        WHERE (articles.title, articles.body, articles.category, articles.published)
          IS DISTINCT FROM (excluded.title, excluded.body, excluded.category, coalesce(${published}::boolean, articles.published))
        RETURNING id, xmax = 0 AS inserted`.pipe(
        Rows.first(Upserted),
        Effect.flatMap(Option.match({
          onNone: () =>
            sql`SELECT id FROM articles WHERE project_id = ${projectId} AND slug = ${article.slug}`.pipe(
              Rows.single(Id),
              Effect.map(({ id }) => ({ id, slug: article.slug, outcome: "unchanged" as ImportOutcome }))
            ),
          onSome: ({ id, inserted }) =>
            Effect.succeed({ id, slug: article.slug, outcome: (inserted ? "created" : "updated") as ImportOutcome })
        }))
      )
    }

    /** A whole import in one transaction: every article written, or none. */
    const importBySlug = (projectId: ProjectId, articles: ReadonlyArray<ImportedArticle>) =>
      Rows.transaction(sql)(Effect.forEach(articles, (article) => upsertBySlug(projectId, article)))

    /** What autovacuum would do after a bulk import, so the planner sees the new rows at once. */
    const analyze = sql`ANALYZE articles`.pipe(Rows.run)

    return { search, findPublished, list, find, slugsLike, insert, update, remove, importBySlug, analyze }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
