import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow } from "../Domain/Fields.ts"
import type { AgentNotification, ContactNotification } from "../Domain/Jobs.ts"
import { EmailStatus } from "../Domain/Ticket.ts"

/** A recorded notification with what its mail needs: the recipient's address, the ticket, the message. */
const PendingMail = Schema.Struct({
  id: Schema.String,
  email_status: EmailStatus,
  email: Schema.String,
  ticket_number: IntFromRow,
  subject: Schema.String,
  body: Schema.NullOr(Schema.String)
})
export type PendingMail = typeof PendingMail.Type

type RecordStatus = "not_configured" | "pending"

export class NotificationsRepo extends Context.Service<NotificationsRepo>()("app/Notifier/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Records the notification once per agent, message and reason. Nothing is recorded when
     * the agent, the ticket or the message is gone (or belongs to another project) by the time
     * the job runs, so a late job is a no-op rather than a foreign-key error.
     */
    const record = (notification: AgentNotification, emailStatus: RecordStatus) =>
      sql`
        INSERT INTO notifications (project_id, ticket_id, agent_id, message_id, reason, email_status)
        SELECT t.project_id, t.id, a.id, m.id, ${notification.reason}, ${emailStatus}
        FROM agents a
        JOIN tickets t ON t.id = ${notification.ticketId} AND t.project_id = a.project_id
        LEFT JOIN messages m ON m.id = ${notification.messageId} AND m.ticket_id = t.id
        WHERE a.id = ${notification.agentId} AND a.project_id = ${notification.projectId}
          AND (${notification.messageId}::uuid IS NULL OR m.id IS NOT NULL)
        ON CONFLICT (agent_id, message_id, reason) DO NOTHING`.pipe(Rows.run)

    const findForMail = (notification: AgentNotification) =>
      sql`
        SELECT n.id, n.email_status, a.email, t.ticket_number, t.subject, m.body
        FROM notifications n
        JOIN agents a ON a.id = n.agent_id
        JOIN tickets t ON t.id = n.ticket_id
        LEFT JOIN messages m ON m.id = n.message_id
        WHERE n.agent_id = ${notification.agentId} AND n.message_id IS NOT DISTINCT FROM ${notification.messageId}::uuid
          AND n.reason = ${notification.reason}
        ORDER BY n.created_at
        LIMIT 1`.pipe(Rows.first(PendingMail))

    /**
     * Records the notification once per contact, message and reason; nothing when the contact,
     * the ticket or the message is gone (or belongs to another project) by the time the job runs.
     */
    const recordForContact = (notification: ContactNotification, emailStatus: RecordStatus) =>
      sql`
        INSERT INTO notifications (project_id, ticket_id, contact_id, message_id, reason, email_status)
        SELECT t.project_id, t.id, c.id, m.id, ${notification.reason}, ${emailStatus}
        FROM contacts c
        JOIN tickets t ON t.id = ${notification.ticketId} AND t.project_id = c.project_id
        JOIN messages m ON m.id = ${notification.messageId} AND m.ticket_id = t.id
        WHERE c.id = ${notification.contactId} AND c.project_id = ${notification.projectId}
        ON CONFLICT (contact_id, message_id, reason) DO NOTHING`.pipe(Rows.run)

    const findContactMail = (notification: ContactNotification) =>
      sql`
        SELECT n.id, n.email_status, c.email, t.ticket_number, t.subject, m.body
        FROM notifications n
        JOIN contacts c ON c.id = n.contact_id
        JOIN tickets t ON t.id = n.ticket_id
        JOIN messages m ON m.id = n.message_id
        WHERE n.contact_id = ${notification.contactId} AND n.message_id = ${notification.messageId}
          AND n.reason = ${notification.reason}`.pipe(Rows.first(PendingMail))

    const markSent = (id: string) =>
      sql`UPDATE notifications SET email_status = 'sent', email_error = NULL WHERE id = ${id}`.pipe(Rows.run)

    const markFailed = (id: string, error: string) =>
      sql`UPDATE notifications SET email_status = 'failed', email_error = ${error.slice(0, 1000)} WHERE id = ${id}`.pipe(
        Rows.run
      )

    return { record, findForMail, recordForContact, findContactMail, markSent, markFailed }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
