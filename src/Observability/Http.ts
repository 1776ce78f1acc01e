import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Observability } from "./Observability.ts"

export const ObservabilityHttpLive = HttpApiBuilder.group(Api, "observability", (handlers) =>
  Effect.map(Effect.service(Observability), (observability) =>
    handlers.handle("metrics", () => observability.prometheusText)))
