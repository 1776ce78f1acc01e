import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { answeredDirectly, builtFrom } from "../Http/Groups.ts"
import { RateLimit } from "../Http/RateLimit.ts"
import { HealthApi } from "./Api.ts"
import { Readiness } from "./Readiness.ts"
import { serviceName, serviceVersion } from "./Version.ts"

// each answer is encoded once, not on every probe
const healthy = HttpServerResponse.jsonUnsafe({ status: "ok", service: serviceName, version: serviceVersion })
// still 200: this is liveness, and the service does answer; what it cannot reach is the shared
// rate-limit store, so requests go unlimited meanwhile
const degraded = HttpServerResponse.jsonUnsafe({ status: "degraded", service: serviceName, version: serviceVersion })

/**
 * The handlers close over the services they use, so the group is built from nothing and its
 * requests get nothing merged in. Liveness, the most frequent request of all (every probe of
 * every balancer), reads no input: the router answers it directly.
 */
export const HealthHttpLive = Layer.unwrap(Effect.gen(function*() {
  const rateLimit = yield* RateLimit
  const readiness = yield* Readiness
  const liveness = Effect.sync(() => rateLimit.storeReachable() ? healthy : degraded)
  return HttpApiBuilder.group(Api, "health", (handlers) =>
    handlers
      .handleRaw("health", () => liveness)
      .handle("ready", () => readiness.check())).pipe(builtFrom(), answeredDirectly(HealthApi, "health", liveness))
}))
