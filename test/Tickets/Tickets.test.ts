/**
 * How to test a service without a database: give it mock layers. `Tickets` needs `TicketsRepo`
 * and `AppConfig`; the mock repository below records what it is asked to write, and the
 * `TestClock` of `it.effect` fixes the time. (The HTTP suites run the real SQL; a mock is for
 * testing logic in isolation, never a stand-in for our own queries.)
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { NotFound } from "../../src/Domain/Errors.ts"
import type { NewJob } from "../../src/Domain/Jobs.ts"
import { type NewTicketRow, TicketsRepo } from "../../src/Tickets/Repo.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { configLayer } from "../support/Layers.ts"

const notUsed = () => Effect.die(new Error("not used"))

const recordingRepo = () => {
  const written: Array<{ row: NewTicketRow; jobs: ReadonlyArray<NewJob> }> = []
  const tagged: Array<ReadonlyArray<string>> = []
  const repo = TicketsRepo.of({
    upsertContact: () => Effect.succeed("contact-1"),
    insertTicket: (row, jobs) => Effect.sync(() => (written.push({ row, jobs }), written.length)),
    tagTicket: (_projectId, _ticketId, tags) => Effect.sync(() => void tagged.push(tags)),
    findPublic: () => Effect.succeed(Option.none()),
    findAdmin: () => Effect.succeed(Option.none()),
    listTickets: notUsed,
    findIdByNumber: notUsed,
    lockTicket: () => Effect.succeed(Option.none()),
    insertMessage: notUsed,
    updateTicket: notUsed,
    findAgent: () => Effect.succeed(Option.none()),
    enqueue: () => Effect.void,
    withTransaction: (effect) => effect,
    // the pipeline's part of the repository: Tickets never calls it
    findSubmitted: notUsed,
    applyTriage: notUsed,
    findSubmittedMany: notUsed,
    duplicateCandidates: notUsed,
    markDuplicates: notUsed,
    linkIssues: notUsed,
    lockLinkedIssues: notUsed
  })
  return { written, tagged, layer: Layer.succeed(TicketsRepo, repo) }
}

const ticketsWith = (repo: ReturnType<typeof recordingRepo>, settings: Record<string, string> = {}) =>
  Layer.effect(Tickets, Tickets.make).pipe(Layer.provide(repo.layer), Layer.provide(configLayer(settings)))

describe("Tickets with a mock repository", () => {
  it.effect("defaults the priority, de-duplicates tags and queues the follow-up work", () => {
    const repo = recordingRepo()
    return Effect.gen(function*() {
      const tickets = yield* Tickets
      const created = yield* tickets.create("project-1", {
        subject: "Broken",
        body: "Help",
        tags: ["VIP", "vip", "beta"]
      })
      expect(created.ticket_number).toBe(1)
      const { row, jobs } = repo.written[0]!
      expect(row).toMatchObject({ priority: "p3_medium", priorityGiven: false, source: "api", createdAt: "1970-01-01T00:00:00.000Z" })
      expect(repo.tagged).toEqual([["VIP", "beta"]])
      expect(jobs.map((job) => job.kind)).toEqual(["triage", "duplicate_check", "webhook"])
    }).pipe(Effect.provide(ticketsWith(repo)))
  })

  it.effect("queues error-tracker linking only when an error tracker is configured", () => {
    const repo = recordingRepo()
    return Effect.gen(function*() {
      const tickets = yield* Tickets
      yield* tickets.create("project-1", { subject: "Crash", body: "Stack trace", priority: "p1_critical" })
      expect(repo.written[0]!.jobs.map((job) => job.kind)).toContain("error_link")
      expect(repo.written[0]!.row.priorityGiven).toBe(true)
    }).pipe(Effect.provide(ticketsWith(repo, { ERROR_TRACKER: "sentry" })))
  })

  it.effect("reports a ticket the repository does not have as NotFound", () => {
    const repo = recordingRepo()
    return Effect.gen(function*() {
      const tickets = yield* Tickets
      const error = yield* Effect.flip(tickets.get("project-1", crypto.randomUUID(), undefined))
      expect(error).toBeInstanceOf(NotFound)
    }).pipe(Effect.provide(ticketsWith(repo)))
  })
})
