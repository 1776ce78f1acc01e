import { Context, Effect, Layer } from "effect"
import { Articles } from "../Articles/Articles.ts"
import type { SearchType, UnifiedSearchResults } from "../Domain/Search.ts"
import { type Page, SearchRepo } from "./Repo.ts"
import type { ProjectId } from "../Domain/Ids.ts"

export class Search extends Context.Service<Search>()("app/Search", {
  make: Effect.gen(function*() {
    const repo = yield* SearchRepo
    const articles = yield* Articles

    const pageOf = (type: SearchType, projectId: ProjectId, q: string, limit: number): Effect.Effect<Page> =>
      type === "articles"
        ? Effect.map(articles.search(projectId, q, limit), (page) => ({
          total: page.total,
          results: page.articles.map(({ category: _, ...hit }) => ({ type: "article" as const, ...hit }))
        }))
        : repo[type](projectId, q, limit)

    // untraced on the hot paths: a traced function captures a stack and opens a span on every
    // call, some 5 µs even with no tracer installed
    /** The best `limit` of all kinds are among the best `limit` of each kind; `total` counts every match. */
    const search = Effect.fnUntraced(function*(
      projectId: ProjectId,
      q: string,
      types: ReadonlyArray<SearchType>,
      limit: number
    ) {
      const pages = yield* Effect.forEach(types, (type) => pageOf(type, projectId, q, limit), {
        concurrency: "unbounded"
      })
      const results = pages
        .flatMap((page) => page.results)
        .sort((a, b) => b.relevance - a.relevance)
        .slice(0, limit)
      return { results, total: pages.reduce((sum, page) => sum + page.total, 0) } satisfies UnifiedSearchResults
    })

    return { search }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([SearchRepo.layer, Articles.layer]))
}
