import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { ProjectId, TicketId } from "../../src/Domain/Ids.ts"
import type { AgentNotification } from "../../src/Domain/Jobs.ts"
import { Mailer } from "../../src/Notifier/Mailer.ts"
import { type Notification, Notifier } from "../../src/Notifier/Notifier.ts"
import { TicketsRepo } from "../../src/Tickets/TicketsRepo.ts"
import { type DatabaseKind, databaseKinds, databaseLayer } from "../support/Databases.ts"
import { SmtpSink, smtpSink } from "../support/SmtpSink.ts"

/**
 * The live Notifier over a fresh database, with the given settings; and the tickets repository,
 * whose admin read is where the recorded notifications are listed.
 */
const notifierLayer = (kind: DatabaseKind, overrides: Record<string, string>) =>
  Layer.mergeAll(Notifier.layer, TicketsRepo.layer).pipe(
    Layer.provideMerge(Mailer.layer),
    Layer.provideMerge(databaseLayer(kind, overrides))
  )

/** A project with an agent, a contact, and a ticket with a message of each, in plain SQL. */
const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name, ticket_seq) VALUES ('Acme', 7) RETURNING id`
  const projectId = project!.id
  const [agent] = yield* sql<{ id: string }>`
    INSERT INTO agents (project_id, email, name) VALUES (${projectId}, ${`agent-${projectId.slice(0, 8)}@example.com`}, 'Ada Agent')
    RETURNING id`
  const [ticket] = yield* sql<{ id: string }>`
    INSERT INTO tickets (project_id, ticket_number, subject, body, assignee_id)
    VALUES (${projectId}, 7, 'Export is stuck', 'My export has been running since Monday.', ${agent!.id})
    RETURNING id`
  const [message] = yield* sql<{ id: string }>`
    INSERT INTO messages (project_id, ticket_id, author_type, body)
    VALUES (${projectId}, ${ticket!.id}, 'contact', 'Any news? It is still at 40 percent.')
    RETURNING id`
  const [contact] = yield* sql<{ id: string }>`
    INSERT INTO contacts (project_id, email, name) VALUES (${projectId}, 'lee@example.com', 'Lee Contact') RETURNING id`
  const [reply] = yield* sql<{ id: string }>`
    INSERT INTO messages (project_id, ticket_id, author_type, agent_id, body)
    VALUES (${projectId}, ${ticket!.id}, 'agent', ${agent!.id}, 'It is moving again.')
    RETURNING id`
  return {
    contactNotification: {
      projectId,
      ticketId: ticket!.id,
      contactId: contact!.id,
      messageId: reply!.id,
      reason: "agent_replied"
    } as const,
    notification: {
      projectId,
      ticketId: ticket!.id,
      agentId: agent!.id,
      messageId: message!.id,
      reason: "ticket_replied"
    } as const,
    agentEmail: `agent-${projectId.slice(0, 8)}@example.com`
  }
}).pipe(Effect.orDie)

const rowsOf = (ticketId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ email_status: string; email_error: string | null }>`
      SELECT email_status, email_error FROM notifications WHERE ticket_id = ${ticketId}`
  }).pipe(Effect.orDie)

/**
 * What an exit failed with, reason by reason: the error of a failure, the reason itself otherwise.
 * Causes carry stack annotations now, so an exit no longer equals a plain `Exit.fail(...)`.
 */
const reasonsOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? exit.cause.reasons.map((reason) => reason._tag === "Fail" ? reason.error : reason) : exit

const notify = (notification: Notification) =>
  Effect.flatMap(Effect.service(Notifier), (notifier) => notifier.notify(notification))

/** The notifications as the admin ticket read lists them. */
const listed = (notification: AgentNotification) =>
  Effect.gen(function*() {
    const repo = yield* TicketsRepo
    const ticket = yield* repo.findAdmin(ProjectId.make(notification.projectId), TicketId.make(notification.ticketId))
    return Option.getOrThrow(ticket).notifications
  }).pipe(Effect.orDie)

describe.each(databaseKinds)("notifier on %s", (kind) => {
  layer(notifierLayer(kind, {}), { excludeTestServices: true })((it) => {
    it.effect("records the notification as not_configured without SMTP, once per message", () =>
      Effect.gen(function*() {
        const { notification, agentEmail } = yield* seed
        yield* notify(notification)
        yield* notify(notification)
        expect(yield* rowsOf(notification.ticketId)).toEqual([{ email_status: "not_configured", email_error: null }])
        expect(yield* listed(notification)).toEqual([{
          notification_id: expect.any(String),
          agent: { id: notification.agentId, email: agentEmail, name: "Ada Agent" },
          contact: null,
          reason: "ticket_replied",
          message_id: notification.messageId,
          email_status: "not_configured",
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        }])
      }))

    it.effect("records a contact's notification as not_configured without SMTP, once per message", () =>
      Effect.gen(function*() {
        const { notification, contactNotification } = yield* seed
        yield* notify(contactNotification)
        yield* notify(contactNotification)
        expect(yield* rowsOf(notification.ticketId)).toEqual([{ email_status: "not_configured", email_error: null }])
        expect(yield* listed(notification)).toEqual([{
          notification_id: expect.any(String),
          agent: null,
          contact: { id: contactNotification.contactId, email: "lee@example.com", name: "Lee Contact" },
          reason: "agent_replied",
          message_id: contactNotification.messageId,
          email_status: "not_configured",
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        }])
      }))

    it.effect("records nothing for a contact of another project, and one for the project's own", () =>
      Effect.gen(function*() {
        const { notification, contactNotification } = yield* seed
        const other = yield* seed
        yield* notify({ ...contactNotification, contactId: other.contactNotification.contactId })
        expect(yield* rowsOf(notification.ticketId)).toEqual([])
        yield* notify(contactNotification)
        expect(yield* rowsOf(notification.ticketId)).toHaveLength(1)
      }))

    it.effect("records nothing for an agent of another project", () =>
      Effect.gen(function*() {
        const { notification } = yield* seed
        const other = yield* seed
        yield* notify({ ...notification, agentId: other.notification.agentId })
        expect(yield* rowsOf(notification.ticketId)).toEqual([])
      }))
  })

  const withSink = Layer.unwrap(Effect.map(Effect.service(SmtpSink), (sink) =>
    notifierLayer(kind, { SMTP_URL: sink.url, MAIL_FROM: "Support <support@acme.test>" }))).pipe(
      Layer.provideMerge(smtpSink)
    )

  layer(withSink, { excludeTestServices: true })((it) => {
    it.effect("mails the agent once and marks the notification sent", () =>
      Effect.gen(function*() {
        const sink = yield* SmtpSink
        sink.received.length = 0
        const { notification, agentEmail } = yield* seed
        yield* notify(notification)
        yield* notify(notification)
        expect(sink.received).toHaveLength(1)
        const [mail] = sink.received
        expect(mail!.from).toBe("support@acme.test")
        expect(mail!.to).toEqual([agentEmail])
        expect(mail!.raw).toContain("Subject: [#7] New reply: Export is stuck")
        expect(mail!.raw).toContain("Any news? It is still at 40 percent.")
        expect(mail!.raw).toContain("#7")
        expect(yield* rowsOf(notification.ticketId)).toEqual([{ email_status: "sent", email_error: null }])
        const [first] = yield* listed(notification)
        expect(first!.email_status).toBe("sent")
      }))

    it.effect("fails and marks the notification failed when the server refuses; a retry sends it", () =>
      Effect.gen(function*() {
        const sink = yield* SmtpSink
        sink.received.length = 0
        const { notification } = yield* seed
        sink.reject = true
        const refused = yield* Effect.exit(notify(notification))
        sink.reject = false
        expect(reasonsOf(refused)).toEqual([expect.objectContaining({ _tag: "NotificationFailed" })])
        const [failed] = yield* rowsOf(notification.ticketId)
        expect(failed!.email_status).toBe("failed")
        expect(failed!.email_error).toContain("mailbox unavailable")
        expect(sink.received).toHaveLength(0)

        yield* notify(notification)
        expect(sink.received).toHaveLength(1)
        expect(yield* rowsOf(notification.ticketId)).toEqual([{ email_status: "sent", email_error: null }])
        yield* notify(notification)
        expect(sink.received).toHaveLength(1)
      }))
  })

  layer(notifierLayer(kind, { SMTP_URL: "smtp://127.0.0.1:1" }), { excludeTestServices: true })((it) => {
    it.effect("fails and marks the notification failed when the mail server cannot be reached", () =>
      Effect.gen(function*() {
        const { notification } = yield* seed
        const exit = yield* Effect.exit(notify(notification))
        expect(reasonsOf(exit)).toEqual([expect.objectContaining({ _tag: "NotificationFailed" })])
        const [row] = yield* rowsOf(notification.ticketId)
        expect(row!.email_status).toBe("failed")
        expect(row!.email_error).not.toBeNull()
      }))
  })
})
