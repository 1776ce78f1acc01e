/**
 * How to test a service without a database: give it mock layers. `Tickets` needs the repositories
 * of the tickets (TicketsRepo, MessagesRepo, ContactsRepo), the agents' (AgentsRepo), the files'
 * service (Attachments), a key for its list cursors (CursorKey.layerFrom) and `AppConfig`; each repository's shape is written out,
 * so a mock fills in only the methods a test reaches (`makeTestLayer`) and the rest fail loudly.
 * The mock below records what it is asked to write, and the `TestClock` of `it.effect` fixes the
 * time. (The HTTP suites run the real SQL; a mock is for testing logic in isolation, never a
 * stand-in for our own queries.)
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AgentsRepo } from "../../src/Admin/Repo.ts"
import { Attachments } from "../../src/Attachments/Attachments.ts"
import { NotFound } from "../../src/Domain/Errors.ts"
import { ProjectId, TicketId } from "../../src/Domain/Ids.ts"
import type { NewJob } from "../../src/Domain/Jobs.ts"
import { CursorKey } from "../../src/Projects/CursorKey.ts"
import { ContactsRepo } from "../../src/Tickets/ContactsRepo.ts"
import { MessagesRepo } from "../../src/Tickets/MessagesRepo.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { type NewTicketRow, TicketsRepo } from "../../src/Tickets/TicketsRepo.ts"
import { CustomFieldsRepo } from "../../src/Fields/Repo.ts"
import { configLayer } from "../support/Layers.ts"
import { makeTestLayer } from "../support/TestLayer.ts"

const projectId = ProjectId.make("5b0c0f7e-3f26-4a0e-8d6c-2d9b7f6f6a11")

const recordingRepo = () => {
  const written: Array<{ row: NewTicketRow; jobs: ReadonlyArray<NewJob> }> = []
  const tagged: Array<ReadonlyArray<string>> = []
  const layer = Layer.mergeAll(
    makeTestLayer(TicketsRepo)({
      insertTicket: (row, jobs) => Effect.sync(() => (written.push({ row, jobs }), written.length)),
      tagTicket: (_projectId, _ticketId, tags) => Effect.sync(() => void tagged.push(tags)),
      findPublic: () => Effect.succeedNone,
      withTransaction: (effect) => effect
    }),
    // what Tickets reaches only to reply or assign: a test that gets there fails, naming the member
    makeTestLayer(MessagesRepo)({}),
    makeTestLayer(ContactsRepo)({}),
    makeTestLayer(AgentsRepo)({}),
    // files come only with attachment_ids or a mail, which these tests do not send
    makeTestLayer(Attachments)({}),
    // definitions are read only for custom_fields, which these tests do not send
    makeTestLayer(CustomFieldsRepo)({})
  )
  return { written, tagged, layer }
}

const ticketsWith = (repo: ReturnType<typeof recordingRepo>, settings: Record<string, string> = {}) =>
  Layer.effect(Tickets, Tickets.make).pipe(
    Layer.provide([repo.layer, CursorKey.layerFrom("tickets-test")]),
    Layer.provide(configLayer(settings))
  )

describe("Tickets with a mock repository", () => {
  it.effect("defaults the priority, de-duplicates tags and queues the follow-up work", () => {
    const repo = recordingRepo()
    return Effect.gen(function*() {
      const tickets = yield* Tickets
      const created = yield* tickets.create(projectId, {
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

  it.effect("writes the sender as unverified unless the caller vouches for it", () => {
    const repo = recordingRepo()
    return Effect.gen(function*() {
      const tickets = yield* Tickets
      const sender = { subject: "Hi", body: "x", sender_email: "ann@example.com", sender_name: "Ann" }
      yield* tickets.create(projectId, sender)
      yield* tickets.create(projectId, sender, { senderVerified: false })
      yield* tickets.create(projectId, sender, { senderVerified: true })
      expect(repo.written.map(({ row }) => row.senderVerified)).toEqual([false, false, true])
    }).pipe(Effect.provide(ticketsWith(repo)))
  })

  it.effect("queues error-tracker linking only when an error tracker is configured", () => {
    const repo = recordingRepo()
    return Effect.gen(function*() {
      const tickets = yield* Tickets
      yield* tickets.create(projectId, { subject: "Crash", body: "Stack trace", priority: "p1_critical" })
      expect(repo.written[0]!.jobs.map((job) => job.kind)).toContain("error_link")
      expect(repo.written[0]!.row.priorityGiven).toBe(true)
    }).pipe(Effect.provide(ticketsWith(repo, { ERROR_TRACKER: "sentry" })))
  })

  it.effect("reports a ticket the repository does not have as NotFound", () => {
    const repo = recordingRepo()
    return Effect.gen(function*() {
      const tickets = yield* Tickets
      const error = yield* Effect.flip(tickets.get(projectId, TicketId.make(crypto.randomUUID()), () => true))
      expect(error).toBeInstanceOf(NotFound)
    }).pipe(Effect.provide(ticketsWith(repo)))
  })
})
