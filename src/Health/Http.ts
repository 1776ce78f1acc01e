import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { serviceName, serviceVersion } from "./Version.ts"

// the answer never changes: encoded once, not on every probe
const healthy = HttpServerResponse.jsonUnsafe({ status: "ok", service: serviceName, version: serviceVersion })

export const HealthHttpLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  handlers.handleRaw("health", () => Effect.succeed(healthy)))
