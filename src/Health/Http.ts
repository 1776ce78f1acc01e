import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { RateLimit } from "../Http/RateLimit.ts"
import { Readiness } from "./Readiness.ts"
import { serviceName, serviceVersion } from "./Version.ts"

// each answer is encoded once, not on every probe
const healthy = HttpServerResponse.jsonUnsafe({ status: "ok", service: serviceName, version: serviceVersion })
// still 200: this is liveness, and the service does answer; what it cannot reach is the shared
// rate-limit store, so requests go unlimited meanwhile
const degraded = HttpServerResponse.jsonUnsafe({ status: "degraded", service: serviceName, version: serviceVersion })

export const HealthHttpLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const rateLimit = yield* RateLimit
    const readiness = yield* Readiness
    return handlers
      .handleRaw("health", () => Effect.sync(() => rateLimit.storeReachable() ? healthy : degraded))
      .handle("ready", () => readiness.check())
  }))
