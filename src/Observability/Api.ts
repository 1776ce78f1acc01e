import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuth } from "../Auth/Api.ts"

/** The version of Prometheus's text format this answer is in. */
export const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

/** Figures for the operator's Prometheus, behind the admin token. */
export class ObservabilityApi extends HttpApiGroup.make("observability")
  .add(
    HttpApiEndpoint.get("metrics", "/metrics", {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: prometheusContentType }))
    }).annotate(
      OpenApi.Description,
      "Requests, jobs, the job queue, webhook deliveries, triage, rate-limit refusals and database "
        + "connections, in Prometheus's text format; the README lists every figure"
    )
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: metrics")
  .annotate(OpenApi.Description, "This instance's figures for Prometheus, authenticated with the ADMIN_TOKEN setting") {}
