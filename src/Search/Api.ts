import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { InternalErrorWire, ValidationErrorWire } from "../Domain/Errors.ts"
import { UnifiedSearchQuery, UnifiedSearchResults } from "../Domain/Search.ts"
import { ProjectAuth } from "../Http/Security.ts"

export class SearchApi extends HttpApiGroup.make("search")
  .add(
    HttpApiEndpoint.get("search", "/v1/search", {
      query: UnifiedSearchQuery,
      success: UnifiedSearchResults,
      error: [ValidationErrorWire, InternalErrorWire]
    }).annotate(OpenApi.Summary, "One ranked list over tickets, articles and contacts")
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Search") {}
