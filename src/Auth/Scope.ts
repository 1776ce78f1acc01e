import { Effect } from "effect"
import { Forbidden } from "../Domain/Errors.ts"
import { CurrentKey } from "./Api.ts"

const notAllowed = (what: string) =>
  new Forbidden({ message: `this API key's scope (widget) does not allow ${what}; use a full key` })

/** Fails unless the request's key has the `full` scope. */
export const requireFullScope = (what: string) =>
  Effect.flatMap(Effect.service(CurrentKey), (key) => key.scope === "full" ? Effect.void : Effect.fail(notAllowed(what)))

/** A widget key acts for one contact, so it must name the contact. */
export const requireContactForWidget = (contactEmail: string | null | undefined, what: string) =>
  Effect.flatMap(Effect.service(CurrentKey), (key) =>
    key.scope === "full" || contactEmail != null ? Effect.void : Effect.fail(notAllowed(`${what} without contact_email`)))
