/**
 * The triage job with the model (Triage) and the follow-ups' repository swapped for mocks: what
 * the job asks the model, and what it has the repository write, with no model and no database.
 * The pipeline suites run the same job on the real database with the same mock model
 * (test/support/TriageMock.ts); this one is where to start when changing what triage does.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ProjectId, TicketId } from "../../src/Domain/Ids.ts"
import type { ClaimedJob } from "../../src/Domain/Jobs.ts"
import { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { Followups } from "../../src/Tickets/Followups.ts"
import { FollowupsRepo, type SubmittedTicket, type TriageResultWrite } from "../../src/Tickets/FollowupsRepo.ts"
import { TicketsRepo } from "../../src/Tickets/TicketsRepo.ts"
import { defaultSettings } from "../support/HandlerTest.ts"
import { makeTestLayer } from "../support/TestLayer.ts"
import { triageMock } from "../support/TriageMock.ts"
import type { Triage } from "../../src/Triage/Triage.ts"

const projectId = ProjectId.make("5b0c0f7e-3f26-4a0e-8d6c-2d9b7f6f6a11")

const submitted = (id: string, subject: string): SubmittedTicket => ({
  id: TicketId.make(id),
  project_id: projectId,
  subject,
  body: `${subject}, in more words`,
  sender_email: "jane@example.com",
  source: "widget",
  metadata: { plan: "pro" },
  tags: ["vip"],
  linked_issues: []
})

const held = [
  submitted("9d2f7a1e-6c3b-4f8e-a1d0-7b5c2e4f9a30", "Charged twice"),
  submitted("3a1c5e7f-2b4d-4f6a-8c0e-1d3f5a7b9c2e", "App crashes on start")
]

/** A triage job for `ticketId`, as the runner hands it over once claimed. */
const jobFor = (ticketId: string, n: number): ClaimedJob<"triage"> => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  kind: "triage",
  projectId,
  ticketId: TicketId.make(ticketId),
  payload: { kind: "ticket_created", body: `{"event":"ticket_created","n":${n}}` },
  attempts: 1,
  lease: "lease"
})

/** The job's service over a repository holding `tickets`, recording what it is asked to write. */
const followupsOver = (tickets: ReadonlyArray<SubmittedTicket>, model: Layer.Layer<Triage>) => {
  const written: Array<ReadonlyArray<TriageResultWrite>> = []
  const layer = Layer.effect(Followups, Followups.make).pipe(Layer.provide([
    makeTestLayer(FollowupsRepo)({
      findSubmittedMany: (ids) => Effect.succeed(tickets.filter((ticket) => ids.includes(ticket.id))),
      applyTriage: (results) => Effect.sync(() => void written.push(results))
    }),
    makeTestLayer(TicketsRepo)({}),
    makeTestLayer(ErrorTracker)({}),
    model,
    defaultSettings
  ]))
  return { layer, written }
}

describe("the triage job, its model and repository swapped for mocks", () => {
  it.effect("asks the model about each ticket as submitted, and has the repository write each answer once", () => {
    const model = triageMock({ category: { value: "billing", confidence: 0.93 }, model: "mock-7" })
    const { layer, written } = followupsOver(held, model.layer)
    return Effect.gen(function*() {
      const followups = yield* Followups
      yield* followups.runTriage.batch(held.map((ticket, n) => jobFor(ticket.id, n)))
      expect(model.calls).toEqual(held.map((ticket) => ({
        subject: ticket.subject,
        body: ticket.body,
        senderEmail: "jane@example.com",
        source: "widget",
        tags: ["vip"],
        metadata: { plan: "pro" }
      })))
      // one statement for the whole batch
      expect(written).toHaveLength(1)
      expect(written[0]!.map((write) => [write.ticketId, write.result.category, write.result.model])).toEqual(
        held.map((ticket) => [ticket.id, { value: "billing", confidence: 0.93 }, "mock-7"])
      )
      // each result queues its ticket's automation job with the event text triage was given
      expect(written[0]!.map((write) => write.automation.jobId)).toEqual(held.map((_, n) => jobFor(held[n]!.id, n).id))
      expect(JSON.parse(written[0]![0]!.automation.payload!)).toEqual(jobFor(held[0]!.id, 0).payload)
    }).pipe(Effect.provide(layer))
  })

  it.effect("skips a ticket deleted since its job was written: the model is not asked about it", () => {
    const model = triageMock()
    const { layer, written } = followupsOver([held[0]!], model.layer)
    return Effect.gen(function*() {
      const followups = yield* Followups
      yield* followups.runTriage.batch(held.map((ticket, n) => jobFor(ticket.id, n)))
      expect(model.calls.map((call) => call.subject)).toEqual([held[0]!.subject])
      expect(written[0]!.map((write) => write.ticketId)).toEqual([held[0]!.id])
    }).pipe(Effect.provide(layer))
  })
})
