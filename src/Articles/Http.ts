import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { ArticleRef } from "../Domain/Article.ts"
import { Articles } from "./Articles.ts"

export const ArticlesHttpLive = HttpApiBuilder.group(Api, "articles", (handlers) =>
  Effect.gen(function*() {
    const articles = yield* Articles
    return handlers
      .handle("search", ({ query }) =>
        Effect.flatMap(Effect.service(CurrentKey), (key) => articles.search(key.projectId, query.q, query.limit ?? 10)))
      // no scope check: a widget key shows visitors the articles search suggested
      .handle("get", ({ params }) =>
        Effect.flatMap(Effect.service(CurrentKey), (key) => articles.getPublished(key.projectId, ArticleRef.make(params.id))))
  }))
