import { Context, DateTime, Effect, Layer, Option } from "effect"
import { Conflict, NotFound, ValidationError } from "../Domain/Errors.ts"
import * as Events from "../Domain/Events.ts"
import { type ProjectId, TicketId } from "../Domain/Ids.ts"
import { eventJobs } from "../Domain/Jobs.ts"
import type { MergeTicketInput } from "../Domain/Merge.ts"
import { slaUpdateJob } from "../Domain/Sla.ts"
import { Tickets } from "../Tickets/Tickets.ts"
import { TicketsRepo } from "../Tickets/TicketsRepo.ts"
import { type MergingTicket, MergeRepo } from "./Repo.ts"

const ticketNotFound = new NotFound({ message: "ticket not found" })
// the same answer for a ticket of another project and for none at all: a key learns nothing of others
const targetNotFound = new NotFound({ message: "into_id names no ticket of this project" })
const intoItself = new ValidationError({ message: "into_id must name another ticket: a ticket cannot be merged into itself" })

const numbered = (ticket: MergingTicket) => `ticket #${ticket.ticket_number}`

/**
 * Merging a ticket into another of its project: the source's conversation moves to the target,
 * the source is closed and points there. Nothing takes it back: to split, file a new ticket.
 */
export class Merge extends Context.Service<Merge>()("app/Merge", {
  make: Effect.gen(function*() {
    const repo = yield* MergeRepo
    const ticketsRepo = yield* TicketsRepo
    const tickets = yield* Tickets

    const merge = Effect.fn("Merge.merge")(function*(projectId: ProjectId, named: TicketId, input: MergeTicketInput) {
      // as the database writes uuids, so the ids compare with its rows; the schemas checked both
      const sourceId = TicketId.make(named.toLowerCase(), { disableChecks: true })
      const targetId = TicketId.make(input.into_id.toLowerCase(), { disableChecks: true })
      if (targetId === sourceId) return yield* intoItself
      yield* repo.withTransaction(Effect.gen(function*() {
        const locked = yield* repo.lock(projectId, sourceId, targetId)
        const source = locked.find((ticket) => ticket.id === sourceId)
        if (source === undefined) return yield* ticketNotFound
        const target = locked.find((ticket) => ticket.id === targetId)
        if (target === undefined) return yield* targetNotFound
        if (source.merged_into_id !== null) {
          return yield* new Conflict({
            message: `${numbered(source)} was already merged into ticket ${source.merged_into_id}; a merge cannot be undone`
          })
        }
        if (target.merged_into_id !== null) {
          return yield* new Conflict({
            message: `${numbered(target)} was itself merged into ticket ${target.merged_into_id}: merge into that one`
          })
        }
        // the source's status and assignee as the status event reads them; already locked above
        const before = yield* ticketsRepo.lockTicket(projectId, sourceId)
        if (Option.isNone(before)) return yield* ticketNotFound
        const mergedAt = DateTime.formatIso(yield* DateTime.now)
        yield* repo.move({
          projectId,
          sourceId,
          targetId,
          mergedAt,
          note: `Ticket #${source.ticket_number} “${source.subject}” was merged into this ticket.`
        })
        yield* ticketsRepo.enqueue([
          ...eventJobs(Events.ticketMerged({ ticket_id: sourceId, project_id: projectId, into_id: targetId, merged_at: mergedAt })),
          ...Events.changeEvents(projectId, before.value, { status: "closed" }, mergedAt).flatMap((event) => eventJobs(event)),
          // the closed source meets its targets; the target's conversation changed, so its own are looked at again
          slaUpdateJob(projectId, sourceId, mergedAt),
          slaUpdateJob(projectId, targetId, mergedAt)
        ])
      }))
      return yield* tickets.adminGet(projectId, targetId)
    })

    return { merge }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([MergeRepo.layer, TicketsRepo.layer, Tickets.layer])
  )
}
