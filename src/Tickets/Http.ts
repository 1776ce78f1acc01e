import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Ticket } from "../Domain/Ticket.ts"
import { alreadyEncoded } from "../Http/Encoded.ts"
import { Idempotency } from "../Http/Idempotency.ts"
import { requireContactForWidget, requireFullScope } from "../Http/Scope.ts"
import { CurrentKey } from "../Http/Security.ts"
import { Tickets } from "./Tickets.ts"

export const TicketsHttpLive = HttpApiBuilder.group(Api, "tickets", (handlers) =>
  Effect.gen(function*() {
    const tickets = yield* Tickets
    const idempotency = yield* Idempotency
    return handlers
      .handle("create", ({ headers, payload }) =>
        Effect.flatMap(Effect.service(CurrentKey), (key) =>
          idempotency.run({
            projectId: key.projectId,
            key: headers["idempotency-key"],
            status: 202,
            work: tickets.create(key.projectId, payload)
          })))
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireFullScope("listing a contact's tickets")
          return yield* tickets.listForContact(key.projectId, query)
        }))
      .handle("get", ({ params, query }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireContactForWidget(query.contact_email, "reading a ticket")
          return alreadyEncoded(Ticket, yield* tickets.get(key.projectId, params.id, query.contact_email))
        }))
      .handle("addMessage", ({ headers, params, payload }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireContactForWidget(payload.contact_email, "adding a message")
          return yield* idempotency.run({
            projectId: key.projectId,
            key: headers["idempotency-key"],
            status: 201,
            work: tickets.addMessage(key.projectId, params.id, payload, { requireOwner: key.scope === "widget" })
          })
        }))
  }))
