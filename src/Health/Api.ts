import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ServiceUnavailable } from "../Domain/Errors.ts"

export const Health = Schema.Struct({
  status: Schema.String.annotate({
    description: "ok when healthy; degraded, still with 200, while the shared rate-limit store (Redis) "
      + "cannot be reached and requests go unlimited"
  }),
  service: Schema.String,
  version: Schema.String
})

export const Ready = Schema.Struct({
  status: Schema.Literal("ready"),
  checks: Schema.Struct({
    database: Schema.Literal("ok"),
    migrations: Schema.Literal("ok"),
    redis: Schema.Literals(["ok", "not_configured"])
  })
}).annotate({
  description: "Every check holds. Otherwise 503 SERVICE_UNAVAILABLE, whose message names each failing check: "
    + "starting, shutting down, the database, the migrations, Redis"
})

export class HealthApi extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("health", "/health", { success: Health }),
  HttpApiEndpoint.get("ready", "/ready", { success: Ready, error: ServiceUnavailable.wire })
)
  .annotate(OpenApi.Title, "Health")
  .annotate(OpenApi.Description, "Liveness and readiness for load balancers and monitors; no key needed") {}
