import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Ticket } from "../../src/Domain/Ticket.ts"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The events of a ticket, as the deliveries to the one endpoint a test registers. */
const eventsOf = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    // the event log keeps them in the order they were written; deliveries of one statement share a timestamp
    sql<{ body: string }>`SELECT body FROM events WHERE ticket_id = ${ticketId} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((row) => JSON.parse(row.body)))
    ))

/** An endpoint for every event; the suite runs no pipeline, so nothing is sent to it. */
const registerEndpoint = (server: TestServerShape, projectId: string) =>
  Effect.flatMap(server.api(adminToken), (admin) =>
    admin.webhooks.register({ params: { pid: projectId }, payload: { url: "https://receiver.example/hooks" } }))

const jobsOf = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ kind: string; payload: any; status: string }>`
      SELECT kind, payload, status FROM jobs WHERE ticket_id = ${ticketId} ORDER BY created_at, kind`)

describe.each(databaseKinds)("tickets on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("creates a ticket: 202 with id and number, readable with defaults before triage", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* createProject(server)
        const api = yield* server.api(key)
        // the wire itself: status, content type and the exact keys of the answer
        const created = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key,
            body: { subject: "  Cannot log in  ", body: "The **login** page rejects my password." }
          })
        )
        expect(created.status).toBe(202)
        expect(created.headers.get("content-type")).toBe("application/json; charset=utf-8")
        expect(Object.keys(created.body).sort()).toEqual(["access_token", "ticket_id", "ticket_number"])
        expect(created.body.ticket_id).toMatch(uuid)
        expect(created.body.ticket_number).toBe(1)

        const [read, response] = yield* api.tickets.get({
          params: { id: created.body.ticket_id },
          query: {},
          headers: {},
          responseMode: "decoded-and-response"
        })
        expect(response.status).toBe(200)
        expect(read).toMatchObject({
          ticket_id: created.body.ticket_id,
          ticket_number: 1,
          subject: "Cannot log in",
          status: "open",
          priority: "p3_medium",
          category: null,
          messages: []
        })
        expect(read.created_at).toMatch(isoMillis)
        expect(read.updated_at).toMatch(isoMillis)
        const wire = yield* response.json
        // the opening message, as filed (the conversation starts with it), and nothing of the sender
        expect((wire as { body?: unknown }).body).toBe("The **login** page rejects my password.")
        expect(wire).not.toHaveProperty("sender_email")
      }))

    it.effect("numbers tickets per project from 1, gapless under concurrent creation", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* createProject(server, "A")
        const b = yield* createProject(server, "B")
        const apiA = yield* server.api(a.key)
        const apiB = yield* server.api(b.key)
        const results = yield* Effect.all(
          Array.from({ length: 40 }, (_, i) =>
            (i % 2 === 0 ? apiA : apiB).tickets.create({
              payload: { subject: `Ticket ${i}`, body: "Something", sender_email: `user${i % 3}@example.com`, tags: ["x"] },
              headers: {}
            })),
          { concurrency: "unbounded" }
        )
        const numbersA = results.filter((_, i) => i % 2 === 0).map((r) => r.ticket_number).sort((x, y) => x - y)
        const numbersB = results.filter((_, i) => i % 2 === 1).map((r) => r.ticket_number).sort((x, y) => x - y)
        expect(numbersA).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
        expect(numbersB).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
      }))

    it.effect("writes tickets created at the same moment together, each as it would be alone", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const a = yield* createProject(server, "A")
        const b = yield* createProject(server, "B")
        yield* registerEndpoint(server, a.projectId)
        const apiA = yield* server.api(a.key)
        const apiB = yield* server.api(b.key)
        // no tags, no Idempotency-Key: the path that goes out in groups; a sender appears several
        // times, with a name, another name and none
        const names = ["Ann", null, "Annie"]
        const results = yield* Effect.all(
          Array.from({ length: 60 }, (_, i) =>
            (i % 3 === 2 ? apiB : apiA).tickets.create({
              payload: {
                subject: `Together ${i}`,
                body: "Something",
                sender_email: `user${i % 4}@example.com`,
                ...(names[i % 3] === null ? {} : { sender_name: names[i % 3]! }),
                ...(i % 5 === 0 ? { priority: "p2_high" as const, metadata: { n: i } } : {})
              },
              headers: {}
            }).pipe(Effect.map((created) => ({ i, ...created })))),
          { concurrency: "unbounded" }
        )
        const inA = results.filter(({ i }) => i % 3 !== 2)
        const inB = results.filter(({ i }) => i % 3 === 2)
        expect(inA.map((r) => r.ticket_number).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
        expect(inB.map((r) => r.ticket_number).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))

        const rows = yield* sql<{
          id: string
          project_id: string
          ticket_number: number
          subject: string
          priority: string
          priority_source: string | null
          metadata: unknown
          sender_email: string
          sender_name: string | null
          contact_email: string
          contact_name: string | null
          writes: string
        }>`SELECT t.id, t.project_id, t.ticket_number, t.subject, t.priority, t.priority_source, t.metadata,
             t.sender_email, t.sender_name, c.email AS contact_email, c.name AS contact_name, t.xmin::text AS writes
           FROM tickets t JOIN contacts c ON c.id = t.contact_id
           WHERE t.project_id IN (${a.projectId}, ${b.projectId})`
        expect(rows).toHaveLength(60)
        // fewer transactions than tickets: concurrent creates did go out together
        expect(new Set(rows.map((row) => row.writes)).size).toBeLessThan(60)
        for (const { i, ticket_id, ticket_number } of results) {
          const row = rows.find((r) => r.id === ticket_id)!
          expect(row).toMatchObject({
            project_id: i % 3 === 2 ? b.projectId : a.projectId,
            ticket_number,
            subject: `Together ${i}`,
            priority: i % 5 === 0 ? "p2_high" : "p3_medium",
            priority_source: i % 5 === 0 ? "human" : null,
            metadata: i % 5 === 0 ? { n: i } : null,
            sender_email: `user${i % 4}@example.com`,
            sender_name: names[i % 3],
            contact_email: `user${i % 4}@example.com`
          })
        }
        // one contact per sender and project, named as the last ticket that gave a name left it
        for (const project of [a.projectId, b.projectId]) {
          for (let u = 0; u < 4; u++) {
            const own = rows.filter((r) => r.project_id === project && r.sender_email === `user${u}@example.com`)
            if (own.length === 0) continue
            const named = own.filter((r) => r.sender_name !== null).sort((x, y) => x.ticket_number - y.ticket_number)
            expect(new Set(own.map((r) => r.contact_name))).toEqual(new Set([named.at(-1)?.sender_name ?? null]))
          }
        }
        const contacts = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM contacts WHERE project_id IN (${a.projectId}, ${b.projectId})`
        expect(contacts[0]!.n).toBe(8)
        // each ticket's follow-up work, and project A's deliveries to its endpoint, written with it
        const work = yield* sql<{ kind: string; n: number }>`
          SELECT kind, count(*)::int AS n FROM jobs WHERE ticket_id = ANY(${results.map((r) => r.ticket_id)}::uuid[])
          GROUP BY kind ORDER BY kind`
        expect(work).toEqual([
          { kind: "duplicate_check", n: 60 },
          { kind: "triage", n: 60 },
          { kind: "webhook_delivery", n: 40 }
        ])
        for (const { ticket_id } of inA) {
          expect((yield* eventsOf(ticket_id)).map((event) => event.event)).toEqual(["ticket_created"])
        }
      }))

    it.effect("keeps a submitted priority and stores the creation-only fields for operators", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const api = yield* server.api(key)
        const admin = yield* server.api(adminToken)
        // raw, for the unknown field the typed client would not send
        const created = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key,
            body: {
              subject: "Checkout broken",
              body: "Payment fails",
              sender_email: "Jane.Doe@Example.COM",
              sender_name: "Jane",
              priority: "p1_critical",
              source: "form",
              tags: ["Billing", "billing", "urgent"],
              metadata: { plan: "pro", seats: 3 },
              unknown_field: "ignored"
            }
          })
        )
        expect(created.status).toBe(202)
        const publicRead = yield* api.tickets.get({ params: { id: created.body.ticket_id }, query: {}, headers: {} })
        expect(publicRead.priority).toBe("p1_critical")
        const adminRead = yield* admin.admin.getTicket({ params: { pid: projectId, id: created.body.ticket_id } })
        expect(adminRead).toMatchObject({
          sender_email: "jane.doe@example.com",
          sender_name: "Jane",
          source: "form",
          tags: ["Billing", "urgent"],
          metadata: { plan: "pro", seats: 3 },
          sentiment: null,
          sentiment_score: null,
          assignee: null,
          duplicate_of: null,
          linked_issues: [],
          triage: {
            status: "pending",
            model: null,
            category: null,
            priority: { value: "p1_critical", confidence: 1, source: "human" },
            sentiment: null
          }
        })
      }))

    it.effect("writes the follow-up work of a new ticket into the outbox in the same transaction", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const api = yield* server.api(key)
        yield* registerEndpoint(server, projectId)
        const created = yield* api.tickets.create({ payload: { subject: "Outbox", body: "Check the jobs" }, headers: {} })
        const jobs = yield* jobsOf(created.ticket_id)
        // the automation job of ticket_created is queued by triage, once the ticket has a category;
        // the event became a delivery to the registered endpoint, with the job of its first attempt
        expect(jobs.map((job) => job.kind).sort()).toEqual(["duplicate_check", "triage", "webhook_delivery"])
        expect(jobs.every((job) => job.status === "pending")).toBe(true)
        const [event] = yield* eventsOf(created.ticket_id)
        expect(Object.keys(event)).toEqual(["event", "timestamp", "data"])
        expect(event.event).toBe("ticket_created")
        expect(event.timestamp).toMatch(isoMillis)
        expect(event.data).toEqual({
          id: created.ticket_id,
          subject: "Outbox",
          status: "open",
          priority: "p3_medium",
          sender_email: null,
          project_id: projectId,
          created_at: event.data.created_at
        })
        expect(event.data.created_at).toMatch(isoMillis)
      }))

    it.effect("rejects bad input with the field and rule named, and changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [{ body: "x" }, "subject is required"],
          [{ subject: "   ", body: "x" }, "subject is required"],
          [{ subject: "x" }, "body is required"],
          [{ subject: "x".repeat(201), body: "x" }, "subject must be at most 200 characters"],
          [{ subject: 42, body: "x" }, "subject must be a string"],
          [{ subject: "x", body: "x", priority: "urgent" }, "priority must be one of p1_critical, p2_high, p3_medium, p4_low"],
          [{ subject: "x", body: "x", source: "fax" }, "source must be one of api, widget, email, form"],
          [{ subject: "x", body: "x", sender_email: "not-an-address" }, "sender_email must be a valid email address"],
          [{ subject: "x", body: "x", sender_name: "n".repeat(201) }, "sender_name must be at most 200 characters"],
          [{ subject: "x", body: "x", tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, "tags must contain at most 20 names"],
          [{ subject: "x", body: "x", tags: ["t".repeat(51)] }, "tags[0] must be at most 50 characters"],
          [{ subject: "x", body: "x", tags: "vip" }, "tags must be an array of strings"],
          [{ subject: "x", body: "x", metadata: [1, 2] }, "metadata must be a JSON object"],
          [{ subject: "x", body: "x", metadata: { blob: "x".repeat(17 * 1024) } }, "metadata must be at most 16 KiB when serialized"],
          [[{ subject: "x", body: "x" }], "request body must be a JSON object"],
          ["just a string", "request body must be a JSON object"]
        ]
        for (const [body, message] of cases) {
          const response = yield* Effect.promise(() => server.request("POST", "/v1/tickets", { key, body }))
          expect({ status: response.status, body: response.body }).toEqual({
            status: 400,
            body: { error: { code: "VALIDATION_ERROR", message } }
          })
        }
        const malformed = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, rawBody: "{\"subject\":", headers: { "content-type": "application/json" } }))
        expect(malformed.status).toBe(400)
        expect(malformed.body).toEqual({ error: { code: "VALIDATION_ERROR", message: "request body is not valid JSON" } })
        const form = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key,
            rawBody: "subject=x&body=y",
            headers: { "content-type": "application/x-www-form-urlencoded" }
          }))
        expect({ status: form.status, body: form.body }).toEqual({
          status: 415,
          body: { error: { code: "UNSUPPORTED_MEDIA_TYPE", message: "Content-Type must be application/json" } }
        })
        // another JSON type is no exception: the contract reads application/json alone
        for (const contentType of ["application/vnd.api+json", "text/plain", "application/json-patch+json"]) {
          const other = yield* Effect.promise(() =>
            server.request("POST", "/v1/tickets", {
              key,
              rawBody: JSON.stringify({ subject: "x", body: "y" }),
              headers: { "content-type": contentType }
            }))
          expect({ status: other.status, body: other.body }).toEqual({
            status: 415,
            body: { error: { code: "UNSUPPORTED_MEDIA_TYPE", message: "Content-Type must be application/json" } }
          })
        }
        const withCharset = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key,
            rawBody: JSON.stringify({ subject: "", body: "y" }),
            headers: { "content-type": "Application/JSON; charset=UTF-8" }
          }))
        expect(withCharset.body.error.code).toBe("VALIDATION_ERROR")
        const huge = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { subject: "x", body: "x".repeat(1024 * 1024 + 10) } }))
        expect(huge.status).toBe(413)
        expect(huge.body.error.code).toBe("PAYLOAD_TOO_LARGE")

        const sql = yield* SqlClient.SqlClient
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tickets WHERE project_id = ${projectId}`
        expect(count!.n).toBe(0)
        const api = yield* server.api(key)
        const next = yield* api.tickets.create({ payload: { subject: "Valid", body: "Now valid" }, headers: {} })
        expect(next.ticket_number).toBe(1)
      }))

    it.effect("gives 404 with one body for a bad id, an unknown id, another project's ticket and a foreign contact", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const mine = yield* createProject(server)
        const theirs = yield* createProject(server)
        const created = yield* Effect.flatMap(server.api(theirs.key), (api) =>
          api.tickets.create({ payload: { subject: "Private", body: "x", sender_email: "owner@example.com" }, headers: {} }))
        const id = created.ticket_id
        const notFound = { error: { code: "NOT_FOUND", message: "ticket not found" } }
        for (const path of ["/v1/tickets/not-a-uuid", `/v1/tickets/${crypto.randomUUID()}`, `/v1/tickets/${id}`]) {
          const response = yield* Effect.promise(() => server.request("GET", path, { key: mine.key }))
          expect([response.status, response.body]).toEqual([404, notFound])
        }
        const foreign = yield* Effect.promise(() =>
          server.request("GET", `/v1/tickets/${id}?contact_email=someone@example.com`, { key: theirs.key }))
        expect([foreign.status, foreign.body]).toEqual([404, notFound])
        const owner = yield* Effect.flatMap(server.api(theirs.key), (api) =>
          api.tickets.get({ params: { id }, query: { contact_email: "OWNER@example.com" }, headers: {} }))
        expect(owner.ticket_id).toBe(id)
        const message = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, { key: mine.key, body: { body: "hello" } }))
        expect([message.status, message.body]).toEqual([404, notFound])
      }))

    it.effect("adds contact messages in order, hides internal ones, and reopens resolved tickets", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const api = yield* server.api(key)
        const admin = yield* server.api(adminToken)
        yield* registerEndpoint(server, projectId)
        const created = yield* api.tickets.create({
          payload: { subject: "Help", body: "x", sender_email: "c@example.com" },
          headers: {}
        })
        const id = created.ticket_id
        const first = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, { key, body: { body: "first", contact_email: "c@example.com" } }))
        expect(first.status).toBe(201)
        expect(Object.keys(first.body)).toEqual(["message_id"])
        yield* admin.admin.addAgentMessage({
          params: { pid: projectId, id },
          payload: { body: "internal note", internal: true }
        })
        yield* admin.admin.addAgentMessage({ params: { pid: projectId, id }, payload: { body: "agent reply" } })
        const resolved = yield* admin.admin.updateTicket({ params: { pid: projectId, id }, payload: { status: "resolved" } })
        expect(resolved.status).toBe("resolved")
        yield* api.tickets.addMessage({ params: { id }, payload: { body: "second" }, headers: {} })

        const read = yield* Effect.promise(() => server.request("GET", `/v1/tickets/${id}`, { key }))
        expect(read.body.status).toBe("open")
        // the read is written without its schema's encoding: exactly the contract's fields, no more
        expect(Object.keys(read.body).sort()).toEqual(Object.keys(Ticket.fields).sort())
        expect(read.body.messages.map((m: any) => [m.author_type, m.body])).toEqual([
          ["contact", "first"],
          ["agent", "agent reply"],
          ["contact", "second"]
        ])
        expect(read.body.messages[0].id).toBe(first.body.message_id)
        for (const m of read.body.messages) expect(Object.keys(m).sort()).toEqual(["attachments", "author_name", "author_type", "body", "created_at", "id"])
        const times = read.body.messages.map((m: any) => m.created_at)
        expect([...times].sort()).toEqual(times)

        const jobs = yield* jobsOf(id)
        const events = yield* eventsOf(id)
        expect(events.map((e) => e.event)).toEqual([
          "ticket_created",
          "ticket_replied",
          "ticket_replied",
          "ticket_status_changed",
          "ticket_resolved",
          "ticket_replied",
          "ticket_status_changed"
        ])
        const replied = events[1]
        expect(replied.data).toEqual({
          id,
          project_id: projectId,
          message_id: first.body.message_id,
          author_type: "contact",
          author_name: null,
          body: "first",
          contact_email: "c@example.com",
          attachments: [],
          created_at: replied.data.created_at
        })
        const reopened = events[6]
        expect(reopened.data).toMatchObject({ status: "open", previous_status: "resolved" })
        // the project has no automation rules, so its events queue no automation jobs
        expect(jobs.filter((job) => job.kind === "automation")).toHaveLength(0)
      }))

    it.effect("lets operators change a ticket: human values, events, assignment and notification on reply", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const api = yield* server.api(key)
        const admin = yield* server.api(adminToken)
        yield* registerEndpoint(server, projectId)
        const agent = yield* admin.admin.createAgent({
          params: { pid: projectId },
          payload: { email: "Agent@Example.com", name: "Alex Agent" }
        })
        expect(agent).toMatchObject({ email: "agent@example.com", name: "Alex Agent" })
        const duplicate = yield* admin.admin.createAgent({
          params: { pid: projectId },
          payload: { email: "agent@example.com", name: "Again" }
        }).pipe(Effect.flip)
        expect(duplicate._tag).toBe("Conflict")

        const created = yield* api.tickets.create({ payload: { subject: "Assign me", body: "x" }, headers: {} })
        const id = created.ticket_id
        const unknownAgent = yield* admin.admin.updateTicket({
          params: { pid: projectId, id },
          payload: { assignee_email: "nobody@example.com" }
        }).pipe(Effect.flip)
        expect(unknownAgent._tag).toBe("ValidationError")
        const patched = yield* admin.admin.updateTicket({
          params: { pid: projectId, id },
          payload: { status: "in_progress", priority: "p2_high", category: "bug", assignee_email: "agent@example.com" }
        })
        expect(patched).toMatchObject({
          status: "in_progress",
          priority: "p2_high",
          category: "bug",
          assignee: { id: agent.agent_id, email: "agent@example.com", name: "Alex Agent" },
          triage: {
            category: { value: "bug", confidence: 1, source: "human" },
            priority: { value: "p2_high", confidence: 1, source: "human" }
          }
        })
        // a status the schema refuses: only the raw wire can send it
        const badStatus = yield* Effect.promise(() =>
          server.request("PATCH", `/v1/admin/projects/${projectId}/tickets/${id}`, { key: adminToken, body: { status: "done" } }))
        expect(badStatus.body).toEqual({
          error: { code: "VALIDATION_ERROR", message: "status must be one of open, in_progress, waiting, resolved, closed" }
        })
        yield* api.tickets.addMessage({ params: { id }, payload: { body: "any news?" }, headers: {} })

        const jobs = yield* jobsOf(id)
        const events = yield* eventsOf(id)
        const assigned = events.find((e) => e.event === "ticket_assigned")
        expect(assigned.data).toEqual({
          id,
          project_id: projectId,
          assignee: { id: agent.agent_id, email: "agent@example.com", name: "Alex Agent" },
          previous_assignee: null,
          updated_at: assigned.data.updated_at
        })
        const changed = events.find((e) => e.event === "ticket_status_changed")
        expect(changed.data).toMatchObject({ status: "in_progress", previous_status: "open" })
        const notify = jobs.filter((job) => job.kind === "notify")
        expect(notify).toHaveLength(1)
        expect(notify[0]!.payload).toMatchObject({ agent_id: agent.agent_id, reason: "ticket_replied" })
      }))
  })
})
