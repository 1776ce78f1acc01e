import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { NotFound } from "../Domain/Errors.ts"
import { pathParam, RatingToken } from "../Domain/Ids.ts"

/** What a browser loads: the widget script, the site's icon, and the demo page on the embedded database. */
export class SiteApi extends HttpApiGroup.make("site")
  .add(
    HttpApiEndpoint.get("widget", "/widget.js", {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/javascript" })),
      error: NotFound.wire
    }).annotate(OpenApi.Description, "The embeddable support form; no key needed, CORS open, cached by ETag"),
    HttpApiEndpoint.get("favicon", "/favicon.ico", {
      success: Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "image/x-icon" }))
    }).annotate(OpenApi.Description, "The site's icon, for browsers that ask for it by this name; no key needed"),
    HttpApiEndpoint.get("demo", "/", {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" })),
      error: NotFound.wire
    }).annotate(OpenApi.Description, "A page with the widget, on the embedded database"),
    HttpApiEndpoint.get("ratingPage", "/rate/:token", {
      params: { token: pathParam(RatingToken) },
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" })),
      error: NotFound.wire
    }).annotate(
      OpenApi.Description,
      "The page of a rating link from a resolved ticket's mail: it asks, and records only when the contact sends; no key needed"
    )
  )
  .annotate(OpenApi.Title, "Widget")
  .annotate(OpenApi.Description, "What a browser loads without a key: the widget's script, the site's icon and the demo page") {}
