import { Effect } from "effect"
import { Forbidden } from "../Domain/Errors.ts"
import { CurrentKey } from "./Api.ts"

const notAllowed = (what: string) =>
  new Forbidden({ message: `this API key's scope (widget) does not allow ${what}; use a full key` })

/** Fails unless the request's key has the `full` scope. */
export const requireFullScope = (what: string) =>
  Effect.flatMap(Effect.service(CurrentKey), (key) => key.scope === "full" ? Effect.void : Effect.fail(notAllowed(what)))

/**
 * A widget key reaches a ticket only with what shows the browser filed it (the access token its
 * create returned) or a verified visitor: the id and an address are things anyone may know.
 */
export const requireTicketProofForWidget = (ticketToken: string | undefined, what: string) =>
  Effect.flatMap(Effect.service(CurrentKey), (key) =>
    key.scope === "full" || (ticketToken !== undefined && ticketToken !== "") || key.visitor !== undefined
      ? Effect.void
      : Effect.fail(notAllowed(`${what} without the ticket's access token (X-Ticket-Token) or a verified visitor (X-Visitor-Token)`)))
