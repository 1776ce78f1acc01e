import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import type { SearchType } from "../Domain/Search.ts"
import { requireFullScope } from "../Http/Scope.ts"
import { CurrentKey } from "../Http/Security.ts"
import { Search } from "./Search.ts"

export const SearchHttpLive = HttpApiBuilder.group(Api, "search", (handlers) =>
  Effect.gen(function*() {
    const search = yield* Search
    return handlers.handle("search", ({ urlParams }) =>
      Effect.gen(function*() {
        const key = yield* CurrentKey
        yield* requireFullScope("searching tickets and contacts")
        return yield* search.search(key.projectId, urlParams.q, urlParams.types as ReadonlyArray<SearchType> | undefined, urlParams.limit ?? 10)
      }))
  }))
