import { Context, Effect, Layer, Option } from "effect"
import { Conflict, ValidationError } from "../Domain/Errors.ts"
import type { ProjectId } from "../Domain/Ids.ts"
import type { MailSettings } from "../Domain/Mail.ts"
import { Projects } from "../Projects/Projects.ts"
import { MailRepo } from "./Repo.ts"

const tagged = new ValidationError({ message: "inbound_address must not carry a +tag: replies add their own" })
const taken = new Conflict({ message: "inbound_address is another project's" })

/** The address each project takes mail at, as the operator API and the CLI set and show it. */
export class InboundAddresses extends Context.Service<InboundAddresses>()("app/Mail/Addresses", {
  make: Effect.gen(function*() {
    const projects = yield* Projects
    const repo = yield* MailRepo

    const settingsOf = (projectId: ProjectId) =>
      Effect.map(repo.addressOf(projectId), (address): MailSettings => ({ inbound_address: Option.getOrNull(address) }))

    const get = (projectId: ProjectId) => Effect.andThen(projects.requireProject(projectId), settingsOf(projectId))

    /** Sets the address (lower-cased) or clears it with null; one another project has is a conflict. */
    const set = Effect.fn("InboundAddresses.set")(function*(projectId: ProjectId, address: string | null) {
      yield* projects.requireProject(projectId)
      const wanted = address === null ? null : address.toLowerCase()
      if (wanted !== null && wanted.slice(0, wanted.lastIndexOf("@")).includes("+")) return yield* tagged
      if (!(yield* repo.setAddress(projectId, wanted))) return yield* taken
      return yield* settingsOf(projectId)
    })

    return { get, set }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(MailRepo.layer))
}
