import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { requireTicketProofForWidget } from "../Auth/Scope.ts"
import { ticketGuard, TicketAccess } from "../Auth/TicketAccess.ts"
import { Forbidden, ValidationError } from "../Domain/Errors.ts"
import { TicketId } from "../Domain/Ids.ts"
import { EventLog } from "../Events/EventLog.ts"
import { eventStream } from "../Events/Response.ts"
import { type TicketGuard, Tickets } from "./Tickets.ts"

/** What a widget key's stream of a ticket carries: the conversation and its status, nothing of the desk's. */
const publicKinds = ["ticket_replied", "ticket_status_changed", "ticket_resolved"]
const everyKind = ["ticket_created", ...publicKinds, "ticket_assigned"]

const contactEmailRequired = new ValidationError({ message: "contact_email is required" })
const listNeedsVisitor = new Forbidden({
  message: "a widget key lists only its verified visitor's tickets: send X-Visitor-Token, or use a full key with contact_email"
})
const claimNeedsVisitor = new Forbidden({
  message: "claiming a ticket needs a widget key with a verified visitor (X-Visitor-Token) and the ticket's access token (X-Ticket-Token)"
})

export const TicketsHttpLive = HttpApiBuilder.group(Api, "tickets", (handlers) =>
  Effect.gen(function*() {
    const tickets = yield* Tickets
    const access = yield* TicketAccess
    const log = yield* EventLog

    const guardFor = (
      key: CurrentKey["Service"],
      headers: { readonly "x-ticket-token"?: string | undefined },
      contactEmail: string | null | undefined
    ): TicketGuard => ticketGuard(access, key, headers["x-ticket-token"], contactEmail)

    return handlers
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          // a full key is the site's own backend; a widget key sits in a page, so anyone can send as
          // anyone, unless the site's backend vouched for its visitor
          const created = yield* tickets.create(key.projectId, payload, {
            senderVerified: key.scope === "full",
            visitor: key.visitor
          })
          return { ...created, access_token: access.tokenFor(created.ticket_id) }
        }))
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          if (key.scope === "widget") {
            if (key.visitor === undefined) return yield* listNeedsVisitor
            return yield* tickets.listForVisitor(key.projectId, key.visitor, query)
          }
          if (query.contact_email === undefined) return yield* contactEmailRequired
          return yield* tickets.listForContact(key.projectId, { ...query, contact_email: query.contact_email })
        }))
      .handle("get", ({ params, query, headers }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireTicketProofForWidget(headers["x-ticket-token"], "reading a ticket")
          return yield* tickets.get(key.projectId, TicketId.make(params.id), guardFor(key, headers, query.contact_email))
        }))
      .handle("addMessage", ({ params, payload, headers }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireTicketProofForWidget(headers["x-ticket-token"], "adding a message")
          return yield* tickets.addMessage(
            key.projectId,
            TicketId.make(params.id),
            payload,
            guardFor(key, headers, key.scope === "widget" ? payload.contact_email : undefined)
          )
        }))
      .handle("events", ({ params, headers, query }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          const ticketId = TicketId.make(params.id)
          yield* requireTicketProofForWidget(headers["x-ticket-token"], "streaming a ticket")
          // the same check as a read, so a stream is opened only on a ticket the caller may read
          yield* tickets.get(key.projectId, ticketId, guardFor(key, headers, undefined))
          return yield* eventStream(
            log,
            { projectId: key.projectId, ticketId, kinds: key.scope === "widget" ? publicKinds : everyKind },
            { header: headers["last-event-id"], query: query.last_event_id }
          )
        }))
      .handle("claim", ({ params, headers }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          if (key.scope !== "widget" || key.visitor === undefined) return yield* claimNeedsVisitor
          const ticketId = TicketId.make(params.id)
          const byToken: TicketGuard = (owner) => access.grants(owner.ticketId, headers["x-ticket-token"])
          return yield* tickets.claim(key.projectId, ticketId, byToken, key.visitor)
        }))
  }))
