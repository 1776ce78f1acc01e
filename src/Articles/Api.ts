import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ArticlePath, ArticleSearchQuery, ArticleSearchResults, PublicArticle } from "../Domain/Article.ts"
import { InternalError, NotFound, ValidationError } from "../Domain/Errors.ts"
import { ProjectAuth } from "../Auth/Api.ts"

export class ArticlesApi extends HttpApiGroup.make("articles")
  .add(
    HttpApiEndpoint.get("search", "/v1/articles/search", {
      query: ArticleSearchQuery,
      success: ArticleSearchResults,
      error: [ValidationError.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "Full-text search over published knowledge base articles"),
    HttpApiEndpoint.get("get", "/v1/articles/:id", {
      params: ArticlePath,
      success: PublicArticle,
      error: [NotFound.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "Read a published article by its id or slug (allowed for widget keys)")
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Knowledge base")
  .annotate(OpenApi.Description, "The project's published articles, searched and read with a full or a widget key") {}
