import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { RateLimit } from "../RateLimit/RateLimit.ts"
import { Readiness } from "./Readiness.ts"
import { serviceName, serviceVersion } from "./Version.ts"

const healthy = { status: "ok", service: serviceName, version: serviceVersion } as const
// still 200: this is liveness, and the service does answer; what it cannot reach is the shared
// rate-limit store, so requests go unlimited meanwhile
const degraded = { status: "degraded", service: serviceName, version: serviceVersion } as const

export const HealthHttpLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  Effect.gen(function*() {
    const rateLimit = yield* RateLimit
    const readiness = yield* Readiness
    return handlers
      .handle("health", () => Effect.sync(() => rateLimit.storeReachable() ? healthy : degraded))
      .handle("ready", () => readiness.check())
  }))
