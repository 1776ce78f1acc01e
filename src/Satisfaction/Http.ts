import { Effect, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { requireTicketProofForWidget } from "../Auth/Scope.ts"
import { ticketGuard, TicketAccess } from "../Auth/TicketAccess.ts"
import { AppConfig } from "../Config.ts"
import { ProjectId, RatingToken, TicketId } from "../Domain/Ids.ts"
import { RateLimit } from "../RateLimit/RateLimit.ts"
import { Satisfaction } from "./Satisfaction.ts"

export const SatisfactionHttpLive = HttpApiBuilder.group(Api, "satisfaction", (handlers) =>
  Effect.gen(function*() {
    const satisfaction = yield* Satisfaction
    const access = yield* TicketAccess
    const rateLimit = yield* RateLimit
    const { trustProxy } = yield* AppConfig

    /**
     * A link's calls carry no key, so they spend their client address's budget, as a request with
     * an unknown key does (Auth/Http): guessing tokens is throttled like guessing keys.
     */
    const addressBudget = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const forwarded = request.headers["x-forwarded-for"]
      const address = trustProxy && forwarded !== undefined
        ? forwarded.split(",").at(-1)!.trim()
        : Option.getOrElse(request.remoteAddress, () => "unknown")
      yield* rateLimit.check(`addr:${address}`)
    })

    return handlers
      .handle("rateTicket", ({ params, payload, headers }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireTicketProofForWidget(headers["x-ticket-token"], "rating a ticket")
          return yield* satisfaction.rateTicket(
            key.projectId,
            TicketId.make(params.id),
            ticketGuard(access, key, headers["x-ticket-token"]),
            payload
          )
        }))
      .handle("getRating", ({ params }) =>
        Effect.andThen(addressBudget, satisfaction.getByToken(RatingToken.make(params.token))))
      .handle("rate", ({ params, payload }) =>
        Effect.andThen(addressBudget, satisfaction.rateByToken(RatingToken.make(params.token), payload)))
  }))

export const SatisfactionAdminHttpLive = HttpApiBuilder.group(Api, "satisfactionAdmin", (handlers) =>
  Effect.map(Effect.service(Satisfaction), (satisfaction) =>
    handlers
      .handle("summary", ({ params, query }) => satisfaction.summary(ProjectId.make(params.pid), query))
      .handle("settings", ({ params }) => satisfaction.settings(ProjectId.make(params.pid)))
      .handle("updateSettings", ({ params, payload }) =>
        satisfaction.updateSettings(ProjectId.make(params.pid), payload))))
