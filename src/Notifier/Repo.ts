import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow } from "../Domain/Fields.ts"
import { EmailStatus } from "../Domain/Ticket.ts"

/** A recorded notification with what its mail needs: the recipient's address, the ticket, the message. */
const PendingMail = Schema.Struct({
  id: Schema.String,
  email_status: EmailStatus,
  email: Schema.String,
  ticket_number: IntFromRow,
  subject: Schema.String,
  body: Schema.NullOr(Schema.String),
  rfc_message_id: Schema.NullOr(Schema.String)
})
export type PendingMail = typeof PendingMail.Type

/** Who is told, and about which message: the agent or contact of `recipientId`. */
export interface Recipient {
  readonly projectId: string
  readonly ticketId: string
  readonly recipient: "agent" | "contact"
  readonly recipientId: string
  readonly messageId: string | null
  readonly reason: string
}

export class NotificationsRepo extends Context.Service<NotificationsRepo>()("app/Notifier/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // the table and the column of each kind of recipient: fixed names, never input
    const recipients = {
      agent: { table: sql.literal("agents"), column: sql.literal("agent_id") },
      contact: { table: sql.literal("contacts"), column: sql.literal("contact_id") }
    }

    /**
     * Records the notification once per recipient, message and reason. Nothing is recorded when
     * the recipient, the ticket or the message is gone (or belongs to another project) by the time
     * the job runs, so a late job is a no-op rather than a foreign-key error.
     */
    const record = (to: Recipient, emailStatus: "not_configured" | "pending") => {
      const { table, column } = recipients[to.recipient]
      return sql`
        INSERT INTO notifications (project_id, ticket_id, ${column}, message_id, reason, email_status)
        SELECT t.project_id, t.id, r.id, m.id, ${to.reason}, ${emailStatus}
        FROM ${table} r
        JOIN tickets t ON t.id = ${to.ticketId} AND t.project_id = r.project_id
        LEFT JOIN messages m ON m.id = ${to.messageId} AND m.ticket_id = t.id
        WHERE r.id = ${to.recipientId} AND r.project_id = ${to.projectId}
          AND (${to.messageId}::uuid IS NULL OR m.id IS NOT NULL)
        ON CONFLICT (${column}, message_id, reason) DO NOTHING`.pipe(Rows.run)
    }

    const findForMail = (to: Recipient) => {
      const { table, column } = recipients[to.recipient]
      return sql`
        SELECT n.id, n.email_status, r.email, t.ticket_number, t.subject, m.body, n.rfc_message_id
        FROM notifications n
        JOIN ${table} r ON r.id = n.${column}
        JOIN tickets t ON t.id = n.ticket_id
        LEFT JOIN messages m ON m.id = n.message_id
        WHERE n.${column} = ${to.recipientId} AND n.message_id IS NOT DISTINCT FROM ${to.messageId}::uuid
          AND n.reason = ${to.reason}
        ORDER BY n.created_at
        LIMIT 1`.pipe(Rows.first(PendingMail))
    }

    const markSent = (id: string) =>
      sql`UPDATE notifications SET email_status = 'sent', email_error = NULL WHERE id = ${id}`.pipe(Rows.run)

    const markFailed = (id: string, error: string) =>
      sql`UPDATE notifications SET email_status = 'failed', email_error = ${error.slice(0, 1000)} WHERE id = ${id}`.pipe(
        Rows.run
      )

    /** The Message-ID of the notification's mail: `candidate` the first time, the same one on every retry. */
    const messageIdOf = (id: string, candidate: string) =>
      sql`
        UPDATE notifications SET rfc_message_id = coalesce(rfc_message_id, ${candidate})
        WHERE id = ${id} RETURNING rfc_message_id`.pipe(
        Rows.single(Schema.Struct({ rfc_message_id: Schema.String })),
        Effect.map((row) => row.rfc_message_id)
      )

    return { record, findForMail, markSent, markFailed, messageIdOf }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
