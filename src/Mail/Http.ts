import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { requireFullScope } from "../Auth/Scope.ts"
import { Conflict, PayloadTooLarge, RateLimited, ValidationError } from "../Domain/Errors.ts"
import { ProjectId } from "../Domain/Ids.ts"
import { Projects } from "../Projects/Projects.ts"
import { InboundMail, type MailRefused } from "./Inbound.ts"
import { MailRepo } from "./Repo.ts"

/** A refused mail as the HTTP door says it. */
const refusalOf = (refused: MailRefused): ValidationError | PayloadTooLarge | RateLimited =>
  refused.reason === "too_large"
    ? new PayloadTooLarge({ message: refused.message })
    : refused.reason === "sender_limit"
    ? new RateLimited({ message: refused.message, retryAfterSeconds: 3600 })
    : new ValidationError({ message: refused.message })

const addressTaken = new Conflict({ message: "inbound_address is another project's" })

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
    const projects = yield* Projects
    const repo = yield* MailRepo
    const settingsOf = (projectId: ProjectId) =>
      Effect.map(repo.addressOf(projectId), (address) => ({ inbound_address: address._tag === "Some" ? address.value : null }))
    return handlers
      .handle("getMail", ({ params }) =>
        Effect.gen(function*() {
          const projectId = ProjectId.make(params.pid)
          yield* projects.requireProject(projectId)
          return yield* settingsOf(projectId)
        }))
      .handle("updateMail", ({ params, payload }) =>
        Effect.gen(function*() {
          const projectId = ProjectId.make(params.pid)
          yield* projects.requireProject(projectId)
          const address = payload.inbound_address === null ? null : payload.inbound_address.toLowerCase()
          if (address !== null && address.split("@")[0]!.includes("+")) {
            return yield* new ValidationError({ message: "inbound_address must not carry a +tag: replies add their own" })
          }
          if (!(yield* repo.setAddress(projectId, address))) return yield* addressTaken
          return yield* settingsOf(projectId)
        }))
  }))
