/**
 * Mail goes to the stored address and nowhere else: nodemailer is handed an address object, so it
 * never reads a display name, a group or a second address out of stored text, and a stored
 * address that the one rule refuses (kept from before the rule) is not mailed at all (issue 47,
 * point 7). The whole service in-process with its live pipeline and a loopback SMTP sink.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { adminRead, agentMessage, contactMessage, createAgent, createTicket, settled, updateTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { SmtpSink, smtpSink } from "../support/SmtpSink.ts"
import { createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

/** A mail's headers, folded lines joined again. */
const headersOf = (raw: string) => raw.slice(0, raw.indexOf("\r\n\r\n")).replace(/\r\n[ \t]+/g, " ").split("\r\n")

/** The mails whose subject names the ticket. */
const mailsAbout = (sink: SmtpSink["Service"], ticketNumber: number, projectSubject: string) =>
  sink.received.filter((mail) => headersOf(mail.raw).some((h) => h.startsWith("Subject:") && h.includes(projectSubject) && h.includes(`#${ticketNumber}]`)))

/** A project and a ticket from `email`, with a subject no other test uses. */
const ticketFrom = (server: TestServerShape, email: string) =>
  Effect.gen(function*() {
    const project = yield* createProject(server)
    const subject = `Export stuck ${crypto.randomUUID().slice(0, 8)}`
    const created = yield* createTicket(server, project.key, { subject, body: "Since Monday.", sender_email: email, sender_name: "Marta" })
    return { ...project, subject, ticketId: created.ticket_id, ticketNumber: created.ticket_number }
  })

/** Stands for a row written before every email field held the one rule. */
const storeAddress = (table: "contacts" | "agents", projectId: string, from: string, to: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql`UPDATE ${sql(table)} SET email = ${to} WHERE project_id = ${projectId} AND email = ${from}`
  ).pipe(Effect.orDie)

const notificationsOf = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ email_status: string; email_error: string | null }>`
      SELECT email_status, email_error FROM notifications WHERE ticket_id = ${ticketId}`
  ).pipe(Effect.orDie)

describe.each(databaseKinds)("mail addresses on %s", (kind) => {
  const service = Layer.unwrap(Effect.map(Effect.service(SmtpSink), (sink) =>
    testServer(kind, { SMTP_URL: sink.url, MAIL_FROM: "Support <support@acme.test>" }, undefined, { pipeline: "live" })))
    .pipe(Layer.provideMerge(smtpSink))

  layer(service, { excludeTestServices: true })((it) => {
    it.effect("a reply mails exactly the stored address: one recipient, and a To header of that address alone", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const { projectId, ticketId, ticketNumber, subject } = yield* ticketFrom(server, "marta@example.com")
        expect((yield* agentMessage(server, projectId, ticketId, "Moving again.")).status).toBe(201)
        const mails = yield* eventually("the reply's mail", Effect.sync(() => {
          const mails = mailsAbout(sink, ticketNumber, subject)
          return { done: mails.length > 0, value: mails }
        }))
        yield* settled(ticketId)
        expect(mails).toHaveLength(1)
        expect(mails[0]!.to).toEqual(["marta@example.com"])
        expect(headersOf(mails[0]!.raw).filter((h) => /^(To|Cc|Bcc):/i.test(h))).toEqual(["To: marta@example.com"])
      }))

    it.effect("a contact address stored with a display name or a group is not mailed, and the notification says why", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        for (const stored of ["d6<evil6@attacker.test>", "grp:d7@attacker.test;", "Eve <eve@attacker.test>, marta@example.com"]) {
          const { projectId, ticketId, ticketNumber, subject } = yield* ticketFrom(server, "marta@example.com")
          yield* storeAddress("contacts", projectId, "marta@example.com", stored)
          expect((yield* agentMessage(server, projectId, ticketId, "Here is your answer.")).status).toBe(201)
          const jobs = yield* settled(ticketId)
          expect(jobs.filter((job) => job.kind === "contact_notify").map((job) => job.status), stored).toEqual(["done"])
          expect(yield* notificationsOf(ticketId), stored).toEqual([{
            email_status: "failed",
            email_error: "the recipient's stored address is not a valid email address"
          }])
          expect(mailsAbout(sink, ticketNumber, subject), stored).toEqual([])
        }
        expect(sink.received.filter((mail) => mail.to.some((to) => to.endsWith("@attacker.test")))).toEqual([])
      }))

    it.effect("an agent address stored with a display name is not mailed either", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const { key, projectId, ticketId, ticketNumber, subject } = yield* ticketFrom(server, "marta@example.com")
        expect((yield* createAgent(server, projectId, "ops@support.example", "Ops")).status).toBe(201)
        expect((yield* updateTicket(server, projectId, ticketId, { assignee_email: "ops@support.example" })).status).toBe(200)
        yield* storeAddress("agents", projectId, "ops@support.example", "Ops <ops@attacker.test>")
        expect((yield* contactMessage(server, key, ticketId, "Any news?", "marta@example.com")).status).toBe(201)
        yield* eventually(
          "the agent's notification to be recorded",
          Effect.map(adminRead(server, projectId, ticketId), (t) => ({ done: t.notifications.length > 0, value: t }))
        )
        yield* settled(ticketId)
        expect(yield* notificationsOf(ticketId)).toEqual([{
          email_status: "failed",
          email_error: "the recipient's stored address is not a valid email address"
        }])
        expect(mailsAbout(sink, ticketNumber, subject)).toEqual([])
        expect(sink.received.filter((mail) => mail.to.some((to) => to.endsWith("@attacker.test")))).toEqual([])
      }))
  })
})
