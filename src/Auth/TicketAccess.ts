import { Context, Effect, Layer } from "effect"
import { Buffer } from "node:buffer"
import { createHmac, timingSafeEqual } from "node:crypto"
import type { TicketId } from "../Domain/Ids.ts"
import type { TicketGuard } from "../Domain/Ticket.ts"
import { ProjectsRepo } from "../Projects/Repo.ts"

const settingName = "ticket_access_key"
const prefix = "tat_"

/**
 * A ticket's secret is the HMAC of its id under a key of the service: nothing to store, the same
 * for a retried create, and only this service can make one. The key is made once and kept in the
 * database, so every instance accepts the secrets any of them handed out.
 */
const accessFor = (secret: string) => {
  const tag = (ticketId: string) => createHmac("sha256", secret).update(`ticket:${ticketId}`).digest()
  return {
    tokenFor: (ticketId: TicketId) => `${prefix}${tag(ticketId).toString("base64url")}`,
    grants: (ticketId: TicketId, token: string | undefined) => {
      if (token === undefined || !token.startsWith(prefix)) return false
      const given = Buffer.from(token.slice(prefix.length), "base64url")
      const expected = tag(ticketId)
      return given.length === expected.length && timingSafeEqual(given, expected)
    }
  }
}

/** The caller of a request, as far as reaching a ticket goes. */
export interface Caller {
  readonly scope: "full" | "widget"
  readonly visitor?: { readonly sub: string } | undefined
}

/**
 * Who may reach a ticket: a full key any of its project's, for the contact it names if it names
 * one; a widget key the ones its browser filed (the access token) or its verified visitor's,
 * since the id and an address are things anyone may know.
 */
export const ticketGuard = (
  access: TicketAccess["Service"],
  caller: Caller,
  ticketToken: string | undefined,
  contactEmail?: string | null | undefined
): TicketGuard => {
  const owns: TicketGuard = (owner) =>
    (contactEmail == null || owner.senderEmail === contactEmail) &&
    (caller.scope === "full" ||
      access.grants(owner.ticketId, ticketToken) ||
      (caller.visitor !== undefined && owner.visitorSub === caller.visitor.sub))
  // whoever could reach a ticket merged into this one reaches this one: their conversation is here
  return (owner) => owns(owner) || (owner.merged?.some(owns) ?? false)
}

/** The secrets that let the browser which filed a ticket with a widget key read, answer and stream it. */
export class TicketAccess extends Context.Service<TicketAccess, {
  readonly tokenFor: (ticketId: TicketId) => string
  readonly grants: (ticketId: TicketId, token: string | undefined) => boolean
}>()("app/Auth/TicketAccess") {
  static readonly layer = Layer.effect(
    TicketAccess,
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      return accessFor(yield* repo.keepSecret(settingName))
    })
  ).pipe(Layer.provide(ProjectsRepo.layer))

  /** A key of the caller's, for tests that build a service over mock repositories. */
  static readonly layerFrom = (secret: string) => Layer.succeed(TicketAccess, accessFor(secret))
}
