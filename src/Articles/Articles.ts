import { Context, Effect, Layer, Option, Schema } from "effect"
import type {
  ArticleList,
  ArticleListQuery,
  ArticleRef,
  CreateArticleInput,
  UpdateArticleInput
} from "../Domain/Article.ts"
import { cursorsOf, pageOf } from "../Domain/Cursor.ts"
import { Conflict, NotFound } from "../Domain/Errors.ts"
import { ArticleId, type ProjectId } from "../Domain/Ids.ts"
import { CursorKey } from "../Projects/CursorKey.ts"
import { type ImportedArticle, ArticlesRepo } from "./Repo.ts"

const articleNotFound = new NotFound({ message: "article not found" })
const isArticleId = Schema.is(ArticleId)
const slugConflict = (slug: string) => new Conflict({ message: `slug ${slug} is already used by another article` })

/** `How do I reset my password?` → `how-do-i-reset-my-password`; empty when no letter or digit is left. */
export const slugWords = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/g, "")

export const slugify = (title: string) => slugWords(title) || "article"

export class Articles extends Context.Service<Articles>()("app/Articles", {
  make: Effect.gen(function*() {
    const repo = yield* ArticlesRepo
    const cursorKey = yield* CursorKey

    // untraced on the hot paths: a traced function captures a stack and opens a span on every
    // call, some 5 µs even with no tracer installed
    const search = Effect.fnUntraced(function*(projectId: ProjectId, q: string, limit: number) {
      return yield* repo.search(projectId, q, limit)
    })

    /** One 404 for unpublished, another project's or unknown, so existence never leaks. */
    const getPublished = Effect.fn("Articles.getPublished")(function*(projectId: ProjectId, ref: ArticleRef) {
      const found = yield* repo.findPublished(projectId, ref, isArticleId(ref))
      if (Option.isNone(found)) return yield* articleNotFound
      return found.value
    })

    const freeSlug = (projectId: ProjectId, base: string) =>
      Effect.map(repo.slugsLike(projectId, base), (taken) => {
        if (!taken.has(base)) return base
        let n = 2
        while (taken.has(`${base}-${n}`)) n++
        return `${base}-${n}`
      })

    const create = Effect.fn("Articles.create")(function*(projectId: ProjectId, input: CreateArticleInput) {
      const fields = {
        projectId,
        title: input.title,
        body: input.body,
        category: input.category,
        published: input.published ?? false
      }
      if (input.slug != null) {
        const created = yield* repo.insert({ ...fields, slug: input.slug })
        if (Option.isNone(created)) return yield* slugConflict(input.slug)
        return created.value
      }
      const base = slugify(input.title)
      // a concurrent create can take the free slug first: look again and retry
      for (let attempt = 0; attempt < 5; attempt++) {
        const created = yield* repo.insert({ ...fields, slug: yield* freeSlug(projectId, base) })
        if (Option.isSome(created)) return created.value
      }
      return yield* slugConflict(base)
    })

    const update = Effect.fn("Articles.update")(function*(projectId: ProjectId, id: ArticleId, input: UpdateArticleInput) {
      const updated = yield* repo.update(projectId, id, {
        title: input.title ?? undefined,
        body: input.body ?? undefined,
        category: input.category ?? undefined,
        slug: input.slug ?? undefined,
        published: input.published ?? undefined
      })
      if (updated === "slug-taken") return yield* slugConflict(input.slug ?? "")
      if (Option.isNone(updated)) return yield* articleNotFound
      return updated.value
    })

    /** One page of the project's articles, published or not, newest first; `query.limit` defaults to 25. */
    const list = Effect.fn("Articles.list")(function*(projectId: ProjectId, query: ArticleListQuery) {
      const limit = query.limit ?? 25
      const published = query.published === undefined ? undefined : query.published === "true"
      const cursors = cursorsOf(cursorKey, { list: "articles", projectId, query: [published, query.q] })
      const after = yield* cursors.read(query.cursor, "articles")
      const rows = yield* repo.list(projectId, { published, text: query.q }, after, limit + 1)
      const page = pageOf(
        rows,
        limit,
        ({ created_key: _, ...article }) => article,
        (row) => ({ order: "articles", at: row.created_key, id: row.id }),
        cursors.encode
      )
      return { articles: page.items, next_cursor: page.next_cursor } satisfies ArticleList
    })

    const get = Effect.fn("Articles.get")(function*(projectId: ProjectId, id: ArticleId) {
      const found = yield* repo.find(projectId, id)
      if (Option.isNone(found)) return yield* articleNotFound
      return found.value
    })

    const remove = Effect.fn("Articles.remove")(function*(projectId: ProjectId, id: ArticleId) {
      if (!(yield* repo.remove(projectId, id))) return yield* articleNotFound
    })

    /**
     * Writes an import all or nothing, matching articles by slug, then refreshes the planner's
     * statistics of the table, which autovacuum (off on some servers, absent on PGlite) would
     * otherwise leave as they were before the bulk write.
     */
    const importBySlug = Effect.fn("Articles.importBySlug")(function*(
      projectId: ProjectId,
      articles: ReadonlyArray<ImportedArticle>
    ) {
      const written = yield* repo.importBySlug(projectId, articles)
      if (written.some((article) => article.outcome !== "unchanged")) yield* repo.analyze
      return written
    })

    return { search, getPublished, list, get, create, update, remove, importBySlug }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([ArticlesRepo.layer, CursorKey.layer]))
}
