import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { searchTypesOf } from "../Domain/Search.ts"
import { requireFullScope } from "../Auth/Scope.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { Search } from "./Search.ts"

export const SearchHttpLive = HttpApiBuilder.group(Api, "search", (handlers) =>
  Effect.gen(function*() {
    const search = yield* Search
    return handlers.handle("search", ({ query }) =>
      Effect.gen(function*() {
        const key = yield* CurrentKey
        yield* requireFullScope("searching tickets and contacts")
        return yield* search.search(key.projectId, query.q, searchTypesOf(query.types), query.limit ?? 10)
      }))
  }))
