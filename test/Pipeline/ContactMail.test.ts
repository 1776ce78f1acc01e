/**
 * An agent's public reply mails the ticket's contact: the whole service in-process with its live
 * pipeline, the real database, and a loopback SMTP sink as the mail server.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { ProjectId, TicketId } from "../../src/Domain/Ids.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { adminRead, agentMessage, createTicket, jobsOf, settled } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { SmtpSink, smtpSink } from "../support/SmtpSink.ts"
import { createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

/** The mails the sink took for `address`. */
const mailsTo = (sink: SmtpSink["Service"], address: string) => sink.received.filter((mail) => mail.to.includes(address))

/** A mail's text with quoted-printable soft line breaks joined again, so long lines can be searched. */
const unfolded = (raw: string) => raw.replace(/=\r?\n/g, "")

/** The contact notification rows of a ticket, as stored. */
const contactRecords = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ email_status: string; email_error: string | null }>`
      SELECT email_status, email_error FROM notifications WHERE ticket_id = ${ticketId} AND contact_id IS NOT NULL`
  ).pipe(Effect.orDie)

const contactJobs = (ticketId: string) =>
  Effect.map(jobsOf(ticketId), (jobs) => jobs.filter((job) => job.kind === "contact_notify"))

/** A project and a ticket from `email` (its contact), subject "Export is stuck". */
const ticketFrom = (server: TestServerShape, email: string | undefined) =>
  Effect.gen(function*() {
    const { key, projectId } = yield* createProject(server)
    const created = yield* createTicket(server, key, {
      subject: "Export is stuck",
      body: "My export has been running since Monday.",
      ...(email === undefined ? {} : { sender_email: email, sender_name: "Marta Contact" })
    })
    return { projectId: ProjectId.make(projectId), ticketId: TicketId.make(created.ticket_id), ticketNumber: created.ticket_number }
  })

describe.each(databaseKinds)("contact mail on %s", (kind) => {
  const service = Layer.unwrap(Effect.map(Effect.service(SmtpSink), (sink) =>
    testServer(kind, { SMTP_URL: sink.url, MAIL_FROM: "Support <support@acme.test>" }, undefined, { pipeline: "live" })))
    .pipe(Layer.provideMerge(smtpSink))

  layer(service, { excludeTestServices: true })((it) => {
    it.effect("a public reply mails the contact once: number, subject, reply, and where to answer", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const { projectId, ticketId, ticketNumber } = yield* ticketFrom(server, "marta@example.com")
        const reply = yield* agentMessage(server, projectId, ticketId, "The export is moving again.")
        expect(reply.status).toBe(201)

        const ticket = yield* eventually(
          "the contact's notification to be sent",
          Effect.map(adminRead(server, projectId, ticketId), (t) => ({
            done: t.notifications.some((n) => n.email_status === "sent"),
            value: t
          }))
        )
        yield* settled(ticketId)
        const mails = mailsTo(sink, "marta@example.com")
        expect(mails).toHaveLength(1)
        expect(mails[0]!.from).toBe("support@acme.test")
        expect(mails[0]!.to).toEqual(["marta@example.com"])
        const text = unfolded(mails[0]!.raw)
        expect(text).toContain(`Subject: [#${ticketNumber}] Re: Export is stuck`)
        expect(text).toContain("The export is moving again.")
        expect(text).toContain(`Ticket #${ticketNumber}: Export is stuck`)
        expect(text).toContain("support widget or contact form")
        expect(ticket.notifications).toEqual([{
          notification_id: expect.any(String),
          agent: null,
          contact: { id: expect.any(String), email: "marta@example.com", name: "Marta Contact" },
          reason: "agent_replied",
          message_id: reply.value.message_id,
          email_status: "sent",
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        }])
      }))

    it.effect("an internal note mails nobody; only the public reply after it reaches the contact", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const { projectId, ticketId } = yield* ticketFrom(server, "ken@example.com")
        const note = yield* agentMessage(server, projectId, ticketId, "Customer seems upset, go gently.", true)
        expect(note.status).toBe(201)
        const reply = yield* agentMessage(server, projectId, ticketId, "We are on it.")
        expect(reply.status).toBe(201)

        yield* eventually("the reply's mail", Effect.sync(() => ({
          done: mailsTo(sink, "ken@example.com").length > 0,
          value: mailsTo(sink, "ken@example.com").length
        })))
        yield* settled(ticketId)
        const mails = mailsTo(sink, "ken@example.com")
        expect(mails).toHaveLength(1)
        expect(unfolded(mails[0]!.raw)).toContain("We are on it.")
        expect(unfolded(mails[0]!.raw)).not.toContain("go gently")
        const ticket = yield* adminRead(server, projectId, ticketId)
        expect(ticket.notifications.map((n) => n.message_id)).toEqual([reply.value.message_id])
        expect(yield* contactJobs(ticketId)).toHaveLength(1)
      }))

    it.effect("a ticket without a contact email writes no mail job; one with a contact does", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const anonymous = yield* ticketFrom(server, undefined)
        const known = yield* ticketFrom(server, "lee@example.com")
        const before = sink.received.length
        expect((yield* agentMessage(server, anonymous.projectId, anonymous.ticketId, "Thanks for the report.")).status)
          .toBe(201)
        expect((yield* agentMessage(server, known.projectId, known.ticketId, "Thanks for the report.")).status).toBe(201)

        yield* eventually("the known contact's mail", Effect.sync(() => ({
          done: mailsTo(sink, "lee@example.com").length > 0,
          value: sink.received.length
        })))
        yield* settled(anonymous.ticketId)
        yield* settled(known.ticketId)
        expect(sink.received.length - before).toBe(1)
        expect(mailsTo(sink, "lee@example.com")).toHaveLength(1)
        expect(yield* contactJobs(anonymous.ticketId)).toEqual([])
        expect((yield* adminRead(server, anonymous.projectId, anonymous.ticketId)).notifications).toEqual([])
      }))

    it.effect("a refused mail fails the job, is retried on the schedule, and goes out once: failed, then sent", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const { projectId, ticketId } = yield* ticketFrom(server, "ines@example.com")
        sink.reject = true
        const reply = yield* agentMessage(server, projectId, ticketId, "Here is your refund.")
        expect(reply.status).toBe(201)

        const [failed] = yield* eventually(
          "the first attempt to fail",
          Effect.map(contactRecords(ticketId), (rows) => ({ done: rows[0]?.email_status === "failed", value: rows }))
        )
        expect(failed!.email_error).toContain("mailbox unavailable")
        const [job] = yield* eventually(
          "the job's retry to be scheduled",
          Effect.map(contactJobs(ticketId), (jobs) => ({
            done: jobs[0]?.status === "pending" && jobs[0].attempts === 1,
            value: jobs
          }))
        )
        expect(job!.last_error).toContain("mailbox unavailable")
        expect(mailsTo(sink, "ines@example.com")).toHaveLength(0)
        sink.reject = false

        yield* eventually(
          "the retry to send it",
          Effect.map(contactRecords(ticketId), (rows) => ({ done: rows[0]?.email_status === "sent", value: rows }))
        )
        yield* settled(ticketId)
        expect(yield* contactRecords(ticketId)).toEqual([{ email_status: "sent", email_error: null }])
        expect(mailsTo(sink, "ines@example.com")).toHaveLength(1)
        expect(unfolded(mailsTo(sink, "ines@example.com")[0]!.raw)).toContain("Here is your refund.")
        const jobs = yield* contactJobs(ticketId)
        expect(jobs).toHaveLength(1)
        expect(jobs[0]!.status).toBe("done")
        expect(jobs[0]!.attempts).toBeGreaterThanOrEqual(2)
      }).pipe(Effect.ensuring(Effect.flatMap(Effect.service(SmtpSink), (sink) => Effect.sync(() => (sink.reject = false))))),
      { timeout: 30_000 })

    it.effect("a job that runs again after its mail was sent (a re-run after a crash) sends nothing more", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const sql = yield* SqlClient.SqlClient
        const { projectId, ticketId } = yield* ticketFrom(server, "ola@example.com")
        expect((yield* agentMessage(server, projectId, ticketId, "Fixed on our side.")).status).toBe(201)
        yield* eventually("the first mail", Effect.sync(() => ({
          done: mailsTo(sink, "ola@example.com").length > 0,
          value: mailsTo(sink, "ola@example.com").length
        })))
        yield* settled(ticketId)

        // what another instance does with the job of one that died before marking it done
        yield* sql`
          WITH again AS (
            UPDATE jobs SET status = 'pending', run_at = now(), lease = NULL, locked_by = NULL, locked_until = NULL
            WHERE ticket_id = ${ticketId} AND kind = 'contact_notify'
            RETURNING id
          )
          SELECT pg_notify('jobs', 'due') FROM again`
        yield* eventually(
          "the job's second run",
          Effect.map(contactJobs(ticketId), (jobs) => ({
            done: jobs.length === 1 && jobs[0]!.status === "done" && jobs[0]!.attempts === 2,
            value: jobs
          }))
        )
        expect(mailsTo(sink, "ola@example.com")).toHaveLength(1)
        expect(yield* contactRecords(ticketId)).toEqual([{ email_status: "sent", email_error: null }])
      }))

    it.effect("the mail job is written in the reply's transaction: a reply that fails to commit leaves none", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const tickets = yield* Tickets
        const { projectId, ticketId } = yield* ticketFrom(server, "uma@example.com")
        // checked at commit, after every statement of the reply (its jobs included) has run
        yield* sql`
          CREATE OR REPLACE FUNCTION fail_marked_reply() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.body = 'this reply fails at commit' THEN RAISE EXCEPTION 'refused at commit'; END IF;
            RETURN NULL;
          END
          $$`
        yield* sql`DROP TRIGGER IF EXISTS fail_marked_reply ON messages`
        yield* sql`
          CREATE CONSTRAINT TRIGGER fail_marked_reply AFTER INSERT ON messages
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_marked_reply()`

        const failed = yield* Effect.exit(tickets.addAgentMessage(projectId, ticketId, { body: "this reply fails at commit" }))
        expect(Exit.isFailure(failed)).toBe(true)
        expect(yield* contactJobs(ticketId)).toEqual([])
        const ticket = yield* adminRead(server, projectId, ticketId)
        expect(ticket.messages.map((message) => message.body)).not.toContain("this reply fails at commit")

        const kept = yield* tickets.addAgentMessage(projectId, ticketId, { body: "This one commits." })
        const sqlJobs = yield* sql<{ message_id: string }>`
          SELECT payload->>'message_id' AS message_id FROM jobs WHERE ticket_id = ${ticketId} AND kind = 'contact_notify'`
        expect(sqlJobs.map((job) => job.message_id)).toEqual([kept.message_id])
      }))
  })
})
