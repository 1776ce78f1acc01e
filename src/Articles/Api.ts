import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ArticleSearchQuery, ArticleSearchResults } from "../Domain/Article.ts"
import { InternalErrorWire, ValidationErrorWire } from "../Domain/Errors.ts"
import { ProjectAuth } from "../Http/Security.ts"

export class ArticlesApi extends HttpApiGroup.make("articles")
  .add(
    HttpApiEndpoint.get("search", "/v1/articles/search", {
      query: ArticleSearchQuery,
      success: ArticleSearchResults,
      error: [ValidationErrorWire, InternalErrorWire]
    }).annotate(OpenApi.Summary, "Full-text search over published knowledge base articles")
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Knowledge base") {}
