import { Context, Data, Effect, Layer, Option } from "effect"
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
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

const agentMail = (row: PendingMail): Mail => {
  const ticket = `#${row.ticket_number}`
  return {
    to: row.email,
    subject: `[${ticket}] New reply: ${oneLine(row.subject)}`,
    text: row.body === null
      ? `There is news on ticket ${ticket}: ${oneLine(row.subject)}\n`
      : `New reply on ticket ${ticket}: ${oneLine(row.subject)}\n\n${row.body}\n\n-- \nTicket ${ticket}\n`
  }
}

// nothing reads mail sent to MAIL_FROM, so the contact is told where an answer does reach us
const contactMail = (row: PendingMail): Mail => {
  const ticket = `#${row.ticket_number}`
  const subject = oneLine(row.subject)
  return {
    to: row.email,
    subject: `[${ticket}] Re: ${subject}`,
    text: `${row.body ?? ""}\n\n-- \nTicket ${ticket}: ${subject}\n` +
      `To answer, write to us through the support widget or contact form on our site; replies to this email are not read.\n`
  }
}

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
        yield* mailer.send(notification.reason === "agent_replied" ? contactMail(row) : agentMail(row)).pipe(
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
  ).pipe(Layer.provide(NotificationsRepo.layer))
}
