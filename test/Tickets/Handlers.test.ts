/**
 * The tickets group with its repositories swapped for mocks: the real handlers, the real
 * `Tickets` service, the real key and idempotency middleware, served in memory through the
 * contract's own typed client (HttpApiTest). No database and no server: what a test checks is
 * what the API makes of what the repository answers, and what it asks the repository to write.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { HttpApiTest } from "effect/http-api"
import { AgentsRepo } from "../../src/Admin/Repo.ts"
import { Attachments } from "../../src/Attachments/Attachments.ts"
import { Api } from "../../src/Api.ts"
import { ProjectAuth } from "../../src/Auth/Api.ts"
import { ProjectAuthLive } from "../../src/Auth/Http.ts"
import { NotFound } from "../../src/Domain/Errors.ts"
import { ProjectId } from "../../src/Domain/Ids.ts"
import type { NewJob } from "../../src/Domain/Jobs.ts"
import type { Ticket } from "../../src/Domain/Ticket.ts"
import { IdempotentLive } from "../../src/Idempotency/Http.ts"
import { IdempotencyRepo } from "../../src/Idempotency/Repo.ts"
import { CursorKey } from "../../src/Projects/CursorKey.ts"
import { Projects } from "../../src/Projects/Projects.ts"
import { RateLimit } from "../../src/RateLimit/RateLimit.ts"
import { ContactsRepo } from "../../src/Tickets/ContactsRepo.ts"
import { TicketAccess } from "../../src/Auth/TicketAccess.ts"
import { EventLog } from "../../src/Events/EventLog.ts"
import { TicketsHttpLive } from "../../src/Tickets/Http.ts"
import { MessagesRepo } from "../../src/Tickets/MessagesRepo.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { type NewTicketRow, TicketsRepo } from "../../src/Tickets/TicketsRepo.ts"
import { CustomFieldsRepo } from "../../src/Fields/Repo.ts"
import { defaultSettings, fullKeyOf, platform, sending, standInClient, standInMiddleware } from "../support/HandlerTest.ts"
import { makeTestLayer } from "../support/TestLayer.ts"

const projectId = ProjectId.make("5b0c0f7e-3f26-4a0e-8d6c-2d9b7f6f6a11")
const key = fullKeyOf(projectId)

const stored: Ticket = {
  ticket_id: "9d2f7a1e-6c3b-4f8e-a1d0-7b5c2e4f9a30",
  ticket_number: 7,
  subject: "Cannot log in",
  status: "open",
  priority: "p2_high",
  category: "account",
  created_at: "2026-11-28T10:00:00.000Z",
  updated_at: "2026-11-28T10:05:00.000Z",
  custom_fields: {},
  body: "It says my password is wrong",
  attachments: [],
  messages: [{
    id: "1f4e8b2a-3c5d-4e6f-8a9b-0c1d2e3f4a5b",
    author_type: "contact",
    author_name: null,
    body: "Still broken",
    created_at: "2026-11-28T10:05:00.000Z",
    attachments: []
  }],
  merged_into_id: null,
  satisfaction: null
}

/** A repository that holds the one ticket above, and records what it is asked to write. */
const ticketsRepo = (written: Array<{ row: NewTicketRow; jobs: ReadonlyArray<NewJob> }>) =>
  makeTestLayer(TicketsRepo)({
    findPublic: (project, ticket) =>
      Effect.succeed(
        project === projectId && ticket === stored.ticket_id
          ? Option.some({ ticket: stored, senderEmail: "jane@example.com", visitorSub: null })
          : Option.none()
      ),
    insertTicket: (row, jobs) => Effect.sync(() => written.push({ row, jobs }) + 41)
  })

const served = (written: Array<{ row: NewTicketRow; jobs: ReadonlyArray<NewJob> }>) =>
  TicketsHttpLive.pipe(
    Layer.provide([TicketAccess.layerFrom("handlers-test"), makeTestLayer(EventLog)({})]),
    Layer.provide(
      Layer.effect(Tickets, Tickets.make).pipe(
        Layer.provide([
          ticketsRepo(written),
          makeTestLayer(MessagesRepo)({}),
          makeTestLayer(ContactsRepo)({}),
          makeTestLayer(AgentsRepo)({}),
          // files come only with attachment_ids or a mail, which these tests do not send
          makeTestLayer(Attachments)({}),
          // definitions are read only for custom_fields, which these tests do not send
          makeTestLayer(CustomFieldsRepo)({}),
          CursorKey.layerFrom("handlers-test"),
          defaultSettings
        ])
      )
    ),
    // the builder also looks the middleware up itself, so it stays in the context
    Layer.provideMerge(Layer.mergeAll(
      ProjectAuthLive.pipe(Layer.provide([
        makeTestLayer(Projects)({ authenticate: (apiKey) => Effect.succeed(apiKey === "tf_known" ? Option.some(key) : Option.none()) }),
        makeTestLayer(RateLimit)({ check: () => Effect.void }),
        defaultSettings
      ])),
      // without an Idempotency-Key a request never reaches the idempotency repository
      IdempotentLive.pipe(Layer.provide(makeTestLayer(IdempotencyRepo)({}))),
      standInMiddleware.adminAuth,
      standInMiddleware.mailAuth,
      platform
    ))
  )

const client = Layer.mergeAll(sending(ProjectAuth, "tf_known"), standInClient.adminAuth, standInClient.mailAuth)

describe("the tickets group, its repositories swapped for mocks", () => {
  it.effect("reads a ticket the repository holds, as the contract's Ticket", () =>
    Effect.gen(function*() {
      const api = yield* HttpApiTest.groups(Api, ["tickets"])
      expect(yield* api.tickets.get({ params: { id: stored.ticket_id }, query: {}, headers: {} })).toEqual(stored)
      // a contact who does not own it learns nothing of it
      const foreign = yield* Effect.flip(
        api.tickets.get({ params: { id: stored.ticket_id }, query: { contact_email: "mallory@example.com" }, headers: {} })
      )
      expect(foreign).toBeInstanceOf(NotFound)
    }).pipe(Effect.provide([served([]), client])))

  // a malformed id is the envelope's 404, which is the server's and not served here: test/Http/PathIds
  it.effect("answers a ticket the repository does not hold with 404 NOT_FOUND", () =>
    Effect.gen(function*() {
      const api = yield* HttpApiTest.groups(Api, ["tickets"])
      const missing = yield* Effect.flip(api.tickets.get({ params: { id: "00000000-0000-4000-8000-000000000000" }, query: {}, headers: {} }))
      expect(missing).toBeInstanceOf(NotFound)
      expect(missing.message).toBe("ticket not found")
    }).pipe(Effect.provide([served([]), client])))

  it.effect("creates a ticket: the repository's number comes back, with the row and follow-up jobs it was given", () => {
    const written: Array<{ row: NewTicketRow; jobs: ReadonlyArray<NewJob> }> = []
    return Effect.gen(function*() {
      const api = yield* HttpApiTest.groups(Api, ["tickets"])
      const created = yield* api.tickets.create({
        payload: { subject: "  Refund  ", body: "Charged twice", sender_email: "Jane@Example.com" },
        headers: {}
      })
      expect(created.ticket_number).toBe(42)
      expect(written).toHaveLength(1)
      expect(written[0]!.row).toMatchObject({
        id: created.ticket_id,
        projectId,
        subject: "Refund",
        priority: "p3_medium",
        senderEmail: "jane@example.com",
        source: "api"
      })
      expect(written[0]!.jobs.map((job) => job.kind)).toEqual(["triage", "duplicate_check", "webhook"])
    }).pipe(Effect.provide([served(written), client]))
  })
})
