import { Effect } from "effect"
import type { SearchType, UnifiedSearchResults } from "../Domain/Search.ts"
import { SearchTypes } from "../Domain/Search.ts"
import { Articles } from "../Articles/Articles.ts"
import { type Page, SearchRepo } from "./Repo.ts"

export class Search extends Effect.Service<Search>()("app/Search", {
  dependencies: [SearchRepo.Default, Articles.Default],
  effect: Effect.gen(function*() {
    const repo = yield* SearchRepo
    const articles = yield* Articles

    const pageOf = (type: SearchType, projectId: string, q: string, limit: number): Effect.Effect<Page> =>
      type === "articles"
        ? Effect.map(articles.search(projectId, q, limit), (page) => ({
          total: page.total,
          results: page.articles.map(({ category: _, ...hit }) => ({ type: "article" as const, ...hit }))
        }))
        : repo[type](projectId, q, limit)

    /** The best `limit` of all kinds are among the best `limit` of each kind; `total` counts every match. */
    const search = Effect.fn("Search.search")(function*(
      projectId: string,
      q: string,
      types: ReadonlyArray<SearchType> | undefined,
      limit: number
    ) {
      const wanted = types ?? SearchTypes
      const pages = yield* Effect.forEach(wanted, (type) => pageOf(type, projectId, q, limit), {
        concurrency: "unbounded"
      })
      const results = pages
        .flatMap((page) => page.results)
        .sort((a, b) => b.relevance - a.relevance)
        .slice(0, limit)
      return { results, total: pages.reduce((sum, page) => sum + page.total, 0) } satisfies UnifiedSearchResults
    })

    return { search } as const
  })
}) {}
