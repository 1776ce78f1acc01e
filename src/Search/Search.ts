import { Effect } from "effect"
import type { SearchType, UnifiedSearchResults } from "../Domain/Search.ts"
import { SearchTypes } from "../Domain/Search.ts"
import { SearchRepo } from "./Repo.ts"

export class Search extends Effect.Service<Search>()("app/Search", {
  dependencies: [SearchRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* SearchRepo

    /** The best `limit` of all kinds are among the best `limit` of each kind; `total` counts every match. */
    const search = Effect.fn("Search.search")(function*(
      projectId: string,
      q: string,
      types: ReadonlyArray<SearchType> | undefined,
      limit: number
    ) {
      const wanted = types ?? SearchTypes
      const pages = yield* Effect.forEach(wanted, (type) => repo[type](projectId, q, limit), { concurrency: "unbounded" })
      const results = pages
        .flatMap((page) => page.results)
        .sort((a, b) => b.relevance - a.relevance)
        .slice(0, limit)
      return { results, total: pages.reduce((sum, page) => sum + page.total, 0) } satisfies UnifiedSearchResults
    })

    return { search } as const
  })
}) {}
