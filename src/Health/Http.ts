import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"

export const serviceName = "support-ticketing"
export const serviceVersion = "0.1.0"

const healthy = { status: "ok", service: serviceName, version: serviceVersion }

export const HealthHttpLive = HttpApiBuilder.group(Api, "health", (handlers) =>
  handlers.handle("health", () => Effect.succeed(healthy)))
