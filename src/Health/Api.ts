import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

export const Health = Schema.Struct({
  status: Schema.String.annotate({
    description: "ok when healthy; degraded, still with 200, while the shared rate-limit store (Redis) "
      + "cannot be reached and requests go unlimited"
  }),
  service: Schema.String,
  version: Schema.String
})

export class HealthApi extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("health", "/health", { success: Health })
) {}
