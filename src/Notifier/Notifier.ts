import { Context, Data, Effect, Layer, Option } from "effect"
import { Attachments } from "../Attachments/Attachments.ts"
import { AppConfig } from "../Config.ts"
import type { AgentId, ContactId, MessageId, ProjectId, TicketId } from "../Domain/Ids.ts"
import { MailRepo, newReplyToken } from "../Mail/Repo.ts"
import { isEmail } from "../Domain/Fields.ts"
import type { AgentNotification, ContactNotification } from "../Domain/Jobs.ts"
import { type Mail, Mailer } from "./Mailer.ts"
import { type PendingMail, type Recipient, NotificationsRepo } from "./Repo.ts"

export class NotificationFailed extends Data.TaggedError("NotificationFailed")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** Someone to tell about a ticket: its assignee about a contact's reply, its contact about an agent's. */
export type Notification = AgentNotification | ContactNotification

/** Headers are one line: a subject with a line break in it must not reach the mail. */
export const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

/** How a mail about a ticket threads: its own id, where an answer goes, and what it follows. */
export interface Threading {
  readonly messageId: string
  /** null when the project takes no mail: the text then says how to answer instead */
  readonly replyTo: string | null
  readonly references: ReadonlyArray<string>
}

export const threaded = (threading: Threading) => ({
  messageId: threading.messageId,
  replyTo: threading.replyTo ?? undefined,
  inReplyTo: threading.references.at(-1),
  references: threading.references
})

const agentMail = (row: PendingMail, threading: Threading): Mail => {
  const ticket = `#${row.ticket_number}`
  const answer = threading.replyTo === null ? "" : "Reply to this email to answer the contact.\n"
  return {
    to: row.email,
    subject: `[${ticket}] New reply: ${oneLine(row.subject)}`,
    text: row.body === null
      ? `There is news on ticket ${ticket}: ${oneLine(row.subject)}\n`
      : `New reply on ticket ${ticket}: ${oneLine(row.subject)}\n\n${row.body}\n\n-- \nTicket ${ticket}\n${answer}`,
    autoSubmitted: "auto-generated",
    ...threaded(threading)
  }
}

const contactMail = (row: PendingMail, threading: Threading, files: Mail["attachments"]): Mail => {
  const ticket = `#${row.ticket_number}`
  const subject = oneLine(row.subject)
  // without an inbound address nothing reads mail sent to MAIL_FROM, so the contact is told where an answer does reach us
  const answer = threading.replyTo === null
    ? "To answer, write to us through the support widget or contact form on our site; replies to this email are not read.\n"
    : "Reply to this email to answer.\n"
  return {
    to: row.email,
    subject: `[${ticket}] Re: ${subject}`,
    text: `${row.body ?? ""}\n\n-- \nTicket ${ticket}: ${subject}\n${answer}`,
    attachments: files,
    ...threaded(threading)
  }
}

/** The domain a Message-ID of ours names: the inbound address's, else MAIL_FROM's. */
export const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).replace(/>.*$/, "").trim() || "localhost"

const recipientOf = (notification: Notification): Recipient =>
  notification.reason === "agent_replied"
    ? { ...notification, recipient: "contact", recipientId: notification.contactId }
    : { ...notification, recipient: "agent", recipientId: notification.agentId }

/**
 * Records a notification (listed on the admin ticket read) and mails it when SMTP_URL is set.
 * Recording it twice for one recipient, message and reason is a no-op, and a mail marked sent
 * is never sent again, so a job that re-runs after a crash notifies once. Fails when the mail
 * server refuses or cannot be reached, so the job is retried; the record stays.
 */
export class Notifier extends Context.Service<Notifier, {
  readonly notify: (notification: Notification) => Effect.Effect<void, NotificationFailed>
}>()("app/Notifier") {
  /** The live Notifier: the `notifications` table, and mail through the Mailer when it is configured. */
  static readonly layer = Layer.effect(
    Notifier,
    Effect.gen(function*() {
      const repo = yield* NotificationsRepo
      const mailer = yield* Mailer
      const mail = yield* MailRepo
      const attachments = yield* Attachments
      const config = yield* AppConfig

      /** The Message-ID, reply address and references of a notification's mail, recorded before it goes. */
      const threadingOf = Effect.fnUntraced(function*(notification: Notification, row: PendingMail) {
        const projectId = notification.projectId as ProjectId
        const ticketId = notification.ticketId as TicketId
        const inbound = Option.getOrNull(yield* mail.addressOf(projectId))
        const domain = domainOf(inbound ?? config.mailFrom)
        const messageId = yield* repo.messageIdOf(row.id, `${newReplyToken()}@${domain}`)
        const references = (yield* mail.messageIdsOf(ticketId)).filter((id) => id !== messageId)
        const recipient = notification.reason === "agent_replied"
          ? { contactId: notification.contactId as ContactId }
          : { agentId: notification.agentId as AgentId }
        const replyTo = inbound === null ? null : yield* Effect.map(
          mail.threadToken(projectId, ticketId, recipient),
          (token) => {
            const at = inbound.lastIndexOf("@")
            return `${inbound.slice(0, at)}+${token}${inbound.slice(at)}`
          }
        )
        yield* mail.recordMessage(projectId, messageId, ticketId, notification.messageId as MessageId | null, "out")
        return { messageId, replyTo, references } satisfies Threading
      })

      const notify = Effect.fn("Notifier.notify")(function*(notification: Notification) {
        const to = recipientOf(notification)
        yield* repo.record(to, mailer.configured ? "pending" : "not_configured")
        const found = yield* repo.findForMail(to)
        if (Option.isNone(found)) {
          yield* Effect.logInfo("nothing to notify: the recipient, ticket or message is gone").pipe(
            Effect.annotateLogs({ reason: notification.reason, ticketId: notification.ticketId })
          )
          return
        }
        const row = found.value
        // 'sent' means an earlier run got it out; 'not_configured' was decided when it was recorded
        if (!mailer.configured || row.email_status === "sent" || row.email_status === "not_configured") return
        // an address stored before the one rule held could carry a display name or a group that
        // would send the mail elsewhere; no retry can mend it, so it fails once and for good
        if (!isEmail(row.email)) {
          yield* repo.markFailed(row.id, "the recipient's stored address is not a valid email address")
          yield* Effect.logWarning("not mailed: the recipient's stored address is not a valid email address").pipe(
            Effect.annotateLogs({ reason: notification.reason, ticketId: notification.ticketId })
          )
          return
        }
        const threading = yield* threadingOf(notification, row)
        const outgoing = notification.reason === "agent_replied"
          ? contactMail(
            row,
            threading,
            notification.messageId === null ? [] : (yield* attachments.ofMessage(
              notification.ticketId as TicketId,
              notification.messageId as MessageId
            )).map((file) => ({ filename: file.filename, contentType: file.content_type, content: file.content }))
          )
          : agentMail(row, threading)
        yield* mailer.send(outgoing).pipe(
          Effect.catch((error) =>
            repo.markFailed(row.id, error.message).pipe(
              Effect.andThen(Effect.fail(new NotificationFailed({ message: error.message, cause: error })))
            )
          )
        )
        yield* repo.markSent(row.id)
      })

      return Notifier.of({ notify })
    })
  ).pipe(Layer.provide([NotificationsRepo.layer, MailRepo.layer, Attachments.layer]))
}
