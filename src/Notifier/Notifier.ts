import { Context, Data, Effect, Layer, Option } from "effect"
import type { AgentNotification } from "../Domain/Jobs.ts"
import { Mailer } from "./Mailer.ts"
import { NotificationsRepo } from "./Repo.ts"

export class NotificationFailed extends Data.TaggedError("NotificationFailed")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** Headers are one line: a subject with a line break in it must not reach the mail. */
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()

/**
 * Records a notification for the agent (listed on the admin ticket read) and mails it when
 * SMTP_URL is set. Recording it twice for one message and reason is a no-op, so a job that
 * re-runs after a crash notifies once. Fails when the mail server refuses or cannot be
 * reached, so the job is retried; the record stays.
 */
export class Notifier extends Context.Service<Notifier, {
  readonly notify: (notification: AgentNotification) => Effect.Effect<void, NotificationFailed>
}>()("app/Notifier") {
  /** The live Notifier: the `notifications` table, and mail through the Mailer when it is configured. */
  static readonly layer = Layer.effect(
    Notifier,
    Effect.gen(function*() {
      const repo = yield* NotificationsRepo
      const mailer = yield* Mailer

      const notify = Effect.fn("Notifier.notify")(function*(notification: AgentNotification) {
        yield* repo.record(notification, mailer.configured ? "pending" : "not_configured")
        const found = yield* repo.findForMail(notification)
        if (Option.isNone(found)) {
          yield* Effect.logInfo("nothing to notify: the agent, ticket or message is gone").pipe(
            Effect.annotateLogs({ agentId: notification.agentId, ticketId: notification.ticketId })
          )
          return
        }
        const row = found.value
        // 'sent' means an earlier run got it out; 'not_configured' was decided when it was recorded
        if (!mailer.configured || row.email_status === "sent" || row.email_status === "not_configured") return
        const ticket = `#${row.ticket_number}`
        yield* mailer.send({
          to: row.agent_email,
          subject: `[${ticket}] New reply: ${oneLine(row.subject)}`,
          text: row.body === null
            ? `There is news on ticket ${ticket}: ${oneLine(row.subject)}\n`
            : `New reply on ticket ${ticket}: ${oneLine(row.subject)}\n\n${row.body}\n\n-- \nTicket ${ticket}\n`
        }).pipe(
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
