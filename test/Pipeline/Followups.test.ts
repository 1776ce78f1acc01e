import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { AdminTicket } from "../../src/Domain/Ticket.ts"
import { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { Notifier } from "../../src/Notifier/Notifier.ts"
import { Triage, type TriageInput, type TriageResult } from "../../src/Triage/Triage.ts"
import {
  adminRead,
  contactMessage,
  createAgent,
  createTicket,
  settled,
  updateTicket,
  withStatus
} from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { type StubAnswerer, stubServer } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

/** The public read, and the JSON as sent: what it must not show, decoding would drop unseen. */
const publicRead = (server: TestServerShape, key: string, ticketId: string) =>
  Effect.flatMap(server.api(key), (api) =>
    api.tickets.get({ params: { id: ticketId }, query: {}, headers: {}, responseMode: "decoded-and-response" })).pipe(
      Effect.flatMap(([ticket, response]) =>
        Effect.map(response.json, (wire: any) => ({ ticket, status: response.status, wire }))),
      Effect.orDie
    )

/** The admin read once triage has finished (status `done`). */
const triaged = (server: TestServerShape, projectId: string, ticketId: string) =>
  eventually(
    `triage of ticket ${ticketId}`,
    Effect.map(adminRead(server, projectId, ticketId), (ticket) => ({ done: ticket.triage.status === "done", value: ticket }))
  )

const systemNotes = (ticket: AdminTicket) => ticket.messages.filter((message) => message.author_type === "system")

const inUnit = (n: unknown) => typeof n === "number" && n >= 0 && n <= 1

// --- the tickets -------------------------------------------------------------------------

const refund = {
  subject: "I was charged twice for my subscription this month",
  body: "Hello, my credit card was charged twice for the Pro plan subscription this month. " +
    "Please refund the duplicate payment of 49 euros. The invoice numbers are INV-2291 and INV-2292.",
  sender_email: "marta@example.com"
}
const refundAgain = {
  subject: "I was charged twice for my subscription this month!",
  body: "Hi, my credit card was charged twice for the Pro plan subscription this month. " +
    "Could you refund the duplicate payment of 49 euros? Invoice numbers INV-2291 and INV-2292.",
  sender_email: "marta@example.com"
}
const unrelated = {
  subject: "Feature idea: dark mode for the mobile app",
  body: "It would be lovely to have a dark theme on Android, the white screen is hard on the eyes at night.",
  sender_email: "ken@example.org"
}

describe.each(databaseKinds)("pipeline follow-ups on %s (live edge services)", (kind) => {
  layer(testServer(kind, {}, undefined, { pipeline: "live" }), { excludeTestServices: true })((it) => {
    it.effect("triage fills category, priority and sentiment with the local model, source ai", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const created = yield* createTicket(server, key, {
          subject: "The site is down for everyone",
          body: "Since this morning every page gives error 500 and none of our users can log in. This is terrible."
        })
        const ticket = yield* triaged(server, projectId, created.ticket_id)
        expect(ticket.triage.model).toBe("local-nb-1")
        for (const field of ["category", "priority", "sentiment"] as const) {
          const judged = ticket.triage[field]
          expect(judged, field).not.toBeNull()
          expect(judged!.source, field).toBe("ai")
          expect(inUnit(judged!.confidence), `${field}.confidence ${judged!.confidence}`).toBe(true)
        }
        const { category, priority, sentiment } = ticket.triage
        expect(["billing", "bug", "account", "feature_request", "question", "other"]).toContain(category!.value)
        expect(["p1_critical", "p2_high", "p3_medium", "p4_low"]).toContain(priority!.value)
        expect(["negative", "neutral", "positive"]).toContain(sentiment!.value)
        // the plain fields and the triage object tell the same story
        expect(ticket.category).toBe(category!.value)
        expect(ticket.priority).toBe(priority!.value)
        expect(ticket.sentiment).toBe(sentiment!.value)
        expect(typeof ticket.sentiment_score).toBe("number")
        expect(ticket.sentiment_score).toBeGreaterThanOrEqual(-1)
        expect(ticket.sentiment_score).toBeLessThanOrEqual(1)

        const read = yield* publicRead(server, key, created.ticket_id)
        expect(read.status).toBe(200)
        expect(read.ticket.category).toBe(ticket.category)
        expect(read.ticket.priority).toBe(ticket.priority)
        expect(read.wire).not.toHaveProperty("sentiment")
        expect(read.wire).not.toHaveProperty("sentiment_score")
      }))

    it.effect("triage keeps a submitted priority: p4_low stays, with source human", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        // words that push the model towards p1, so an overwrite would show
        const created = yield* createTicket(server, key, {
          subject: "Production outage, everything is down",
          body: "All of our customers are affected, payments fail and nobody can log in. Urgent!",
          priority: "p4_low"
        })
        const ticket = yield* triaged(server, projectId, created.ticket_id)
        expect(ticket.priority).toBe("p4_low")
        expect(ticket.triage.priority).toEqual({ value: "p4_low", confidence: 1, source: "human" })
        expect(ticket.triage.category?.source).toBe("ai")
        expect(ticket.triage.sentiment?.source).toBe("ai")
        const read = yield* publicRead(server, key, created.ticket_id)
        expect(read.ticket.priority).toBe("p4_low")
      }))

    it.effect("an operator's category set right after creation survives triage", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const created = yield* createTicket(server, key, {
          subject: "Please refund my last invoice",
          body: "I was billed for a plan I cancelled, I want my money back for the credit card charge."
        })
        const patched = yield* updateTicket(server, projectId, created.ticket_id, { category: "feature_request" })
        expect(patched.status).toBe(200)
        expect(patched.value.category).toBe("feature_request")
        expect(patched.value.triage.category).toEqual({ value: "feature_request", confidence: 1, source: "human" })

        const ticket = yield* triaged(server, projectId, created.ticket_id)
        expect(ticket.category).toBe("feature_request")
        expect(ticket.triage.category).toEqual({ value: "feature_request", confidence: 1, source: "human" })
        // the rest is still the model's
        expect(ticket.triage.priority?.source).toBe("ai")
        expect(ticket.triage.sentiment?.source).toBe("ai")
        yield* settled(created.ticket_id)
        const later = yield* adminRead(server, projectId, created.ticket_id)
        expect(later.triage.category).toEqual({ value: "feature_request", confidence: 1, source: "human" })
      }))

    it.effect("an operator's change after triage replaces the model's value and is marked human", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const created = yield* createTicket(server, key, {
          subject: "How do I invite a colleague?",
          body: "Where in the settings can I add a team member to our workspace?"
        })
        const before = yield* triaged(server, projectId, created.ticket_id)
        const other = before.category === "bug" ? "other" : "bug"
        const patched = yield* updateTicket(server, projectId, created.ticket_id, { category: other, priority: "p2_high" })
        expect(patched.status).toBe(200)
        expect(patched.value.triage).toMatchObject({
          status: "done",
          model: "local-nb-1",
          category: { value: other, confidence: 1, source: "human" },
          priority: { value: "p2_high", confidence: 1, source: "human" },
          sentiment: before.triage.sentiment
        })
        yield* settled(created.ticket_id)
        const after = yield* adminRead(server, projectId, created.ticket_id)
        expect(after.category).toBe(other)
        expect(after.priority).toBe("p2_high")
        const read = yield* publicRead(server, key, created.ticket_id)
        expect(read.ticket).toMatchObject({ category: other, priority: "p2_high" })
      }))

    it.effect("marks a near-duplicate from the same sender with duplicate_of and an internal system note", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const first = yield* createTicket(server, key, refund)
        // the second is compared with tickets that exist when its check runs: let the first settle
        yield* settled(first.ticket_id)
        const second = yield* createTicket(server, key, refundAgain)
        const third = yield* createTicket(server, key, unrelated)

        const marked = yield* eventually(
          "the near-duplicate to be marked",
          Effect.map(adminRead(server, projectId, second.ticket_id), (t) => ({ done: t.duplicate_of !== null, value: t }))
        )
        expect(marked.duplicate_of).toBe(first.ticket_id)
        const notes = systemNotes(marked)
        expect(notes).toHaveLength(1)
        expect(notes[0]!.internal).toBe(true)
        expect(notes[0]!.body).toContain(`#${first.ticket_number}`)
        expect(notes[0]!.body).toMatch(/^Possible duplicate of ticket #\d+/)
        // internal: the submitter never sees it
        const publicSecond = yield* publicRead(server, key, second.ticket_id)
        expect(publicSecond.wire.messages).toEqual([])

        yield* settled(third.ticket_id)
        const lone = yield* adminRead(server, projectId, third.ticket_id)
        expect(lone.duplicate_of).toBeNull()
        expect(systemNotes(lone)).toEqual([])

        // the original is never pointed back at the copy
        yield* settled(second.ticket_id)
        const original = yield* adminRead(server, projectId, first.ticket_id)
        expect(original.duplicate_of).toBeNull()
        expect(systemNotes(original)).toEqual([])
      }))

    it.effect("a third copy points at the original, not at the copy before it", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const first = yield* createTicket(server, key, refund)
        yield* settled(first.ticket_id)
        const second = yield* createTicket(server, key, refundAgain)
        yield* settled(second.ticket_id)
        const third = yield* createTicket(server, key, { ...refundAgain, subject: "Charged twice for my subscription this month" })
        yield* settled(third.ticket_id)
        const [a, b] = yield* Effect.all([
          adminRead(server, projectId, second.ticket_id),
          adminRead(server, projectId, third.ticket_id)
        ])
        expect(a.duplicate_of).toBe(first.ticket_id)
        expect(b.duplicate_of).toBe(first.ticket_id)
        expect(systemNotes(b).map((note: any) => note.body)).toEqual([
          expect.stringMatching(new RegExp(`^Possible duplicate of ticket #${first.ticket_number} `))
        ])
      }))

    it.effect("never matches a near-duplicate in another project", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const mine = yield* createProject(server, "Mine")
        const theirs = yield* createProject(server, "Theirs")
        const first = yield* createTicket(server, mine.key, refund)
        yield* settled(first.ticket_id)
        const elsewhere = yield* createTicket(server, theirs.key, refundAgain)
        yield* settled(elsewhere.ticket_id)
        const ticket = yield* adminRead(server, theirs.projectId, elsewhere.ticket_id)
        expect(ticket.duplicate_of).toBeNull()
        expect(systemNotes(ticket)).toEqual([])
      }))

    it.effect("does not match a resolved ticket", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const first = yield* createTicket(server, key, refund)
        yield* settled(first.ticket_id)
        const resolved = yield* updateTicket(server, projectId, first.ticket_id, { status: "resolved" })
        expect(resolved.status).toBe(200)
        const second = yield* createTicket(server, key, refundAgain)
        yield* settled(second.ticket_id)
        const ticket = yield* adminRead(server, projectId, second.ticket_id)
        expect(ticket.duplicate_of).toBeNull()
        expect(systemNotes(ticket)).toEqual([])
      }))

    it.effect("notifies the assignee of a contact's reply: recorded, not mailed without SMTP_URL", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const agent = yield* createAgent(server, projectId, "Ada@Support.example", "Ada Agent")
        expect(agent.status).toBe(201)
        const created = yield* createTicket(server, key, {
          subject: "Export does not finish",
          body: "The CSV export spins forever.",
          sender_email: "customer@example.com"
        })
        const assigned = yield* updateTicket(server, projectId, created.ticket_id, { assignee_email: "ada@support.example" })
        expect(assigned.status).toBe(200)
        expect(assigned.value.assignee).toEqual({ id: agent.value.agent_id, email: "ada@support.example", name: "Ada Agent" })

        // an internal note by an agent is not news for the assignee
        const note = yield* Effect.flatMap(server.api(adminToken), (admin) =>
          withStatus(admin.admin.addAgentMessage({
            params: { pid: projectId, id: created.ticket_id },
            payload: { body: "Looking into it", author_email: "ada@support.example", internal: true },
            responseMode: "decoded-and-response"
          })))
        expect(note.status).toBe(201)

        const reply = yield* contactMessage(server, key, created.ticket_id, "Any news? It still spins.", "customer@example.com")
        expect(reply.status).toBe(201)
        const messageId = reply.value.message_id

        const ticket = yield* eventually(
          "the assignee's notification",
          Effect.map(adminRead(server, projectId, created.ticket_id), (t) => ({ done: t.notifications.length > 0, value: t }))
        )
        yield* settled(created.ticket_id)
        const final = yield* adminRead(server, projectId, created.ticket_id)
        expect(final.notifications).toHaveLength(1)
        expect(final.notifications[0]).toMatchObject({
          agent: { id: agent.value.agent_id, email: "ada@support.example", name: "Ada Agent" },
          reason: "ticket_replied",
          message_id: messageId,
          email_status: "not_configured"
        })
        expect(final.notifications[0]!.notification_id).toMatch(/^[0-9a-f-]{36}$/)
        expect(final.notifications[0]!.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        expect(ticket.notifications[0]!.message_id).toBe(messageId)
        // the notify job exists once, for the contact's message only
        const sql = yield* SqlClient.SqlClient
        const notifyJobs = yield* sql<{ payload: any }>`
          SELECT payload FROM jobs WHERE ticket_id = ${created.ticket_id} AND kind = 'notify'`
        expect(notifyJobs.map((job) => job.payload.message_id)).toEqual([messageId])
      }))

    it.effect("a reply on an unassigned ticket notifies nobody", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const agent = yield* createAgent(server, projectId, "bo@support.example", "Bo")
        expect(agent.status).toBe(201)
        const created = yield* createTicket(server, key, {
          subject: "Question about seats",
          body: "How many seats does the team plan include?",
          sender_email: "lee@example.com"
        })
        const reply = yield* contactMessage(server, key, created.ticket_id, "Also, can I add more later?", "lee@example.com")
        expect(reply.status).toBe(201)
        const jobs = yield* settled(created.ticket_id)
        expect(jobs.map((job) => job.kind)).not.toContain("notify")
        const ticket = yield* adminRead(server, projectId, created.ticket_id)
        expect(ticket.assignee).toBeNull()
        expect(ticket.notifications).toEqual([])
      }))
  })
})

// --- with a triage that answers only when the test lets it ---------------------------------

/**
 * A Triage that holds every answer until `release()`: the test can change the ticket while
 * triage is in flight, between its read of the ticket and its write.
 */
const gatedTriage = () => {
  const calls: Array<TriageInput> = []
  let entered: () => void = () => {}
  let release: () => void = () => {}
  const state = {
    calls,
    entered: new Promise<void>((resolve) => (entered = resolve)),
    release: () => release()
  }
  const gate = new Promise<void>((resolve) => (release = resolve))
  const answer: TriageResult = {
    category: { value: "bug", confidence: 0.8 },
    priority: { value: "p1_critical", confidence: 0.7 },
    sentiment: { value: "negative", score: -0.6, confidence: 0.9 },
    model: "gated-mock"
  }
  const layer = Layer.mergeAll(
    Layer.succeed(Triage, Triage.of({
      classify: (input) =>
        Effect.promise(async () => {
          calls.push(input)
          entered()
          await gate
          return answer
        })
    })),
    ErrorTracker.none,
    Layer.succeed(Notifier, Notifier.of({ notify: () => Effect.void }))
  )
  return { ...state, layer }
}

describe.each(databaseKinds)("triage racing an operator on %s", (kind) => {
  const triage = gatedTriage()
  layer(testServer(kind, {}, undefined, { pipeline: triage.layer }), { excludeTestServices: true })((it) => {
    it.effect("an operator's category and priority, set while triage is in flight, are kept", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const created = yield* createTicket(server, key, {
          subject: "Charged twice",
          body: "Please refund the second charge.",
          tags: ["vip"]
        })
        yield* Effect.promise(() => triage.entered)
        expect(triage.calls).toHaveLength(1)
        expect(triage.calls[0]).toMatchObject({ subject: "Charged twice", body: "Please refund the second charge.", tags: ["vip"] })
        const patched = yield* updateTicket(server, projectId, created.ticket_id, { category: "billing", priority: "p3_medium" })
        expect(patched.status).toBe(200)
        triage.release()

        const ticket = yield* triaged(server, projectId, created.ticket_id)
        expect(ticket.triage).toEqual({
          status: "done",
          model: "gated-mock",
          category: { value: "billing", confidence: 1, source: "human" },
          priority: { value: "p3_medium", confidence: 1, source: "human" },
          sentiment: { value: "negative", confidence: 0.9, source: "ai" }
        })
        expect(ticket.category).toBe("billing")
        expect(ticket.priority).toBe("p3_medium")
        expect(ticket.sentiment).toBe("negative")
        expect(ticket.sentiment_score).toBe(-0.6)
        yield* settled(created.ticket_id)
        expect(triage.calls).toHaveLength(1)
      }))
  })
})

// --- with ERROR_TRACKER=sentry, against a fake Sentry on loopback ------------------------------

/** Sentry's web API for one issue of the organization `acme`, on the stub server; `paths` are those it was asked for. */
class FakeSentry extends Context.Service<FakeSentry, {
  readonly base: string
  readonly paths: () => ReadonlyArray<string>
}>()("test/Pipeline/FakeSentry") {}

const sentryAnswers = (base: string): StubAnswerer => (_, request) => {
  const path = new URL(request.path, base).pathname
  if (request.headers.authorization !== "Bearer sentry-token") return { status: 401, body: { detail: "Invalid token" } }
  if (path === "/api/0/organizations/acme/issues/1001/") {
    return {
      status: 200,
      body: {
        id: "1001",
        shortId: "BACKEND-3F",
        title: "TypeError: Cannot read properties of undefined (reading 'id')",
        permalink: `${base}/organizations/acme/issues/1001/`,
        metadata: { type: "TypeError", value: "Cannot read properties of undefined (reading 'id')" }
      }
    }
  }
  if (path === "/api/0/organizations/acme/issues/") return { status: 200, body: [] }
  return { status: 404, body: { detail: "The requested resource does not exist" } }
}

const fakeSentry = Layer.effect(
  FakeSentry,
  Effect.map(stubServer(), (stub) => {
    // the answers name the stub's own address, known once it listens
    stub.answer = sentryAnswers(stub.url)
    return { base: stub.url, paths: () => stub.requests.map((request) => new URL(request.path, stub.url).pathname) }
  })
)

const withSentry = (kind: (typeof databaseKinds)[number]) =>
  Layer.unwrap(Effect.map(Effect.service(FakeSentry), ({ base }) =>
    testServer(kind, {
      ERROR_TRACKER: "sentry",
      SENTRY_BASE_URL: base,
      SENTRY_ORG: "acme",
      SENTRY_AUTH_TOKEN: "sentry-token"
    }, undefined, { pipeline: "live" }))).pipe(Layer.provideMerge(fakeSentry))

describe.each(databaseKinds)("error-tracker links on %s (ERROR_TRACKER=sentry)", (kind) => {
  layer(withSentry(kind), { excludeTestServices: true })((it) => {
    it.effect("links the Sentry issue a ticket points at, once, with an internal note", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sentry = yield* FakeSentry
        const { key, projectId } = yield* createProject(server)
        const created = yield* createTicket(server, key, {
          subject: "Dashboard crashes",
          body: `Opening the dashboard crashes the page, see ${sentry.base}/organizations/acme/issues/1001/ for the trace.`
        })
        const plain = yield* createTicket(server, key, { subject: "A question", body: "Which plans include SSO?" })
        const jobs = yield* settled(created.ticket_id)
        expect(jobs.filter((job) => job.kind === "error_link").map((job) => job.status)).toEqual(["done"])
        const ticket = yield* adminRead(server, projectId, created.ticket_id)
        expect(ticket.linked_issues).toEqual([{
          provider: "sentry",
          id: "1001",
          short_id: "BACKEND-3F",
          title: "TypeError: Cannot read properties of undefined (reading 'id')",
          url: `${sentry.base}/organizations/acme/issues/1001/`,
          matched_by: "issue_url"
        }])
        const notes = systemNotes(ticket)
        expect(notes).toHaveLength(1)
        expect(notes[0]!.internal).toBe(true)
        expect(notes[0]!.body).toContain("BACKEND-3F")
        const read = yield* publicRead(server, key, created.ticket_id)
        expect(read.wire.messages).toEqual([])

        const plainJobs = yield* settled(plain.ticket_id)
        expect(plainJobs.filter((job) => job.kind === "error_link").map((job) => job.status)).toEqual(["done"])
        const unlinked = yield* adminRead(server, projectId, plain.ticket_id)
        expect(unlinked.linked_issues).toEqual([])
        expect(systemNotes(unlinked)).toEqual([])
        expect(sentry.paths().filter((path) => path === "/api/0/organizations/acme/issues/1001/")).toHaveLength(1)
      }))
  })
})
