import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { serviceName, serviceVersion } from "./Version.ts"

const healthy = { status: "ok", service: serviceName, version: serviceVersion }

export const HealthHttpLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  handlers.handle("health", () => Effect.succeed(healthy)))
