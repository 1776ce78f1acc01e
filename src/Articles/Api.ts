import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ArticleSearchQuery, ArticleSearchResults } from "../Domain/Article.ts"
import { ValidationErrorWire } from "../Domain/Errors.ts"
import { ProjectAuth } from "../Http/Security.ts"

export class ArticlesApi extends HttpApiGroup.make("articles")
  .add(
    HttpApiEndpoint.get("search", "/v1/articles/search")
      .setUrlParams(ArticleSearchQuery)
      .addSuccess(ArticleSearchResults)
      .addError(ValidationErrorWire)
      .annotate(OpenApi.Summary, "Full-text search over published knowledge base articles")
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Knowledge base") {}
