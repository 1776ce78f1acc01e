import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Http/Security.ts"
import { Articles } from "./Articles.ts"

export const ArticlesHttpLive = HttpApiBuilder.group(Api, "articles", (handlers) =>
  Effect.gen(function*() {
    const articles = yield* Articles
    return handlers.handle("search", ({ urlParams }) =>
      Effect.flatMap(CurrentKey, (key) => articles.search(key.projectId, urlParams.q, urlParams.limit ?? 10)))
  }))
