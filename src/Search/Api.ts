import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { InternalError, ValidationError } from "../Domain/Errors.ts"
import { UnifiedSearchQuery, UnifiedSearchResults } from "../Domain/Search.ts"
import { ProjectAuth } from "../Auth/Api.ts"

export class SearchApi extends HttpApiGroup.make("search")
  .add(
    HttpApiEndpoint.get("search", "/v1/search", {
      query: UnifiedSearchQuery,
      success: UnifiedSearchResults,
      error: [ValidationError.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "One ranked list over tickets, articles and contacts")
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Search")
  .annotate(OpenApi.Description, "One search over the project's tickets, articles and contacts; full keys only") {}
