import { Context, Data, type Effect } from "effect"

/** An agent to tell about something that happened on a ticket. */
export interface AgentNotification {
  readonly projectId: string
  readonly ticketId: string
  readonly agentId: string
  /** the message that caused it, when one did */
  readonly messageId: string | null
  /** `ticket_replied` for a reply on an assigned ticket */
  readonly reason: "ticket_replied"
}

/**
 * Records a notification for the agent (listed on the admin ticket read) and mails it when
 * SMTP_URL is set. Recording it twice for one message and reason is a no-op, so a job that
 * re-runs after a crash notifies once. Fails when the mail server refuses or cannot be
 * reached, so the job is retried; the record stays.
 */
export class Notifier extends Context.Tag("app/Notifier")<Notifier, {
  readonly notify: (notification: AgentNotification) => Effect.Effect<void, NotificationFailed>
}>() {}

export class NotificationFailed extends Data.TaggedError("NotificationFailed")<{
  readonly message: string
  readonly cause?: unknown
}> {}
