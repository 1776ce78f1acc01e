import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { requireFullScope } from "../Auth/Scope.ts"
import { PayloadTooLarge, RateLimited, ValidationError } from "../Domain/Errors.ts"
import { ProjectId } from "../Domain/Ids.ts"
import { InboundMail, type MailRefused } from "./Inbound.ts"
import { InboundAddresses } from "./Addresses.ts"

/** A refused mail as the HTTP door says it. */
const refusalOf = (refused: MailRefused): ValidationError | PayloadTooLarge | RateLimited =>
  refused.reason === "too_large"
    ? new PayloadTooLarge({ message: refused.message })
    : refused.reason === "sender_limit"
    ? new RateLimited({ message: refused.message, retryAfterSeconds: 3600 })
    : new ValidationError({ message: refused.message })

export const MailHttpLive = HttpApiBuilder.group(Api, "mail", (handlers) =>
  Effect.gen(function*() {
    const inbound = yield* InboundMail
    return handlers.handle("inbound", ({ payload }) =>
      Effect.gen(function*() {
        yield* requireFullScope("posting mail")
        const key = yield* CurrentKey
        return yield* inbound.receive(payload, { projectId: key.projectId }).pipe(
          Effect.catchTag("MailRefused", (refused) => Effect.fail(refusalOf(refused)))
        )
      }))
  }))

export const MailAdminHttpLive = HttpApiBuilder.group(Api, "mailAdmin", (handlers) =>
  Effect.gen(function*() {
    const addresses = yield* InboundAddresses
    return handlers
      .handle("getMail", ({ params }) => addresses.get(ProjectId.make(params.pid)))
      .handle("updateMail", ({ params, payload }) => addresses.set(ProjectId.make(params.pid), payload.inbound_address))
  }))
