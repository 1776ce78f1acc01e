import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { requireContactForWidget, requireFullScope } from "../Auth/Scope.ts"
import { TicketId } from "../Domain/Ids.ts"
import { Tickets } from "./Tickets.ts"

export const TicketsHttpLive = HttpApiBuilder.group(Api, "tickets", (handlers) =>
  Effect.gen(function*() {
    const tickets = yield* Tickets
    return handlers
      .handle("create", ({ payload }) =>
        // a full key is the site's own backend; a widget key sits in a page, so anyone can send as anyone
        Effect.flatMap(
          Effect.service(CurrentKey),
          (key) => tickets.create(key.projectId, payload, { senderVerified: key.scope === "full" })
        ))
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
          return yield* tickets.get(key.projectId, TicketId.make(params.id), query.contact_email)
        }))
      .handle("addMessage", ({ params, payload }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireContactForWidget(payload.contact_email, "adding a message")
          return yield* tickets.addMessage(key.projectId, TicketId.make(params.id), payload, { requireOwner: key.scope === "widget" })
        }))
  }))
