import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { NotFoundWire } from "../Domain/Errors.ts"

/** What a browser loads: the widget script, and the demo page on the embedded database. */
export class SiteApi extends HttpApiGroup.make("site")
  .add(
    HttpApiEndpoint.get("widget", "/widget.js")
      .addSuccess(HttpApiSchema.Text({ contentType: "text/javascript" }))
      .annotate(OpenApi.Description, "The embeddable support form; no key needed, CORS open, cached by ETag")
  )
  .add(
    HttpApiEndpoint.get("demo", "/")
      .addSuccess(HttpApiSchema.Text({ contentType: "text/html" }))
      .annotate(OpenApi.Description, "A page with the widget, on the embedded database")
  )
  .addError(NotFoundWire)
  .annotate(OpenApi.Title, "Widget") {}
