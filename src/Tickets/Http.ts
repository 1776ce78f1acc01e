import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Idempotency } from "../Http/Idempotency.ts"
import { requireContactForWidget } from "../Http/Scope.ts"
import { CurrentKey } from "../Http/Security.ts"
import { Tickets } from "./Tickets.ts"

export const TicketsHttpLive = HttpApiBuilder.group(Api, "tickets", (handlers) =>
  Effect.gen(function*() {
    const tickets = yield* Tickets
    const idempotency = yield* Idempotency
    return handlers
      .handle("create", ({ headers, payload }) =>
        Effect.flatMap(CurrentKey, (key) =>
          idempotency.run({
            projectId: key.projectId,
            key: headers["idempotency-key"],
            status: 202,
            work: tickets.create(key.projectId, payload)
          })))
      .handle("get", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireContactForWidget(urlParams.contact_email, "reading a ticket")
          return yield* tickets.get(key.projectId, path.id, urlParams.contact_email)
        }))
      .handle("addMessage", ({ headers, path, payload }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireContactForWidget(payload.contact_email, "adding a message")
          return yield* idempotency.run({
            projectId: key.projectId,
            key: headers["idempotency-key"],
            status: 201,
            work: tickets.addMessage(key.projectId, path.id, payload, { requireOwner: key.scope === "widget" })
          })
        }))
  }))
