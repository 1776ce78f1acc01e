import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { isoTimestamp } from "../Domain/Fields.ts"
import type { AgentNotification } from "./Notifier.ts"

export type EmailStatus = "not_configured" | "pending" | "sent" | "failed"

/** One notification as the admin ticket read lists it. */
export interface NotificationView {
  readonly notification_id: string
  readonly agent: { readonly id: string; readonly email: string; readonly name: string }
  readonly reason: string
  readonly message_id: string | null
  readonly email_status: EmailStatus
  readonly created_at: string
}

const EmailStatus = Schema.Literal("not_configured", "pending", "sent", "failed")
// node-postgres and PGlite both give a Date; a string is accepted for any other driver
const Timestamp = Schema.Union(Schema.DateFromSelf, Schema.String)

const Pending = Schema.Struct({
  id: Schema.String,
  email_status: EmailStatus,
  agent_email: Schema.String,
  ticket_number: Schema.Number,
  subject: Schema.String,
  body: Schema.NullOr(Schema.String)
})

const Listed = Schema.Struct({
  notification_id: Schema.String,
  agent_id: Schema.String,
  agent_email: Schema.String,
  agent_name: Schema.String,
  reason: Schema.String,
  message_id: Schema.NullOr(Schema.String),
  email_status: EmailStatus,
  created_at: Timestamp
})

const Key = Schema.Struct({
  agentId: Schema.String,
  messageId: Schema.NullOr(Schema.String),
  reason: Schema.String
})

export class NotificationsRepo extends Effect.Service<NotificationsRepo>()("app/Notifier/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Records the notification once per agent, message and reason. Nothing is recorded when
     * the agent, the ticket or the message is gone (or belongs to another project) by the time
     * the job runs, so a late job is a no-op rather than a foreign-key error.
     */
    const record = (notification: AgentNotification, emailStatus: "not_configured" | "pending") =>
      sql`
        INSERT INTO notifications (project_id, ticket_id, agent_id, message_id, reason, email_status)
        SELECT t.project_id, t.id, a.id, m.id, ${notification.reason}, ${emailStatus}
        FROM agents a
        JOIN tickets t ON t.id = ${notification.ticketId} AND t.project_id = a.project_id
        LEFT JOIN messages m ON m.id = ${notification.messageId} AND m.ticket_id = t.id
        WHERE a.id = ${notification.agentId} AND a.project_id = ${notification.projectId}
          AND (${notification.messageId}::uuid IS NULL OR m.id IS NOT NULL)
        ON CONFLICT (agent_id, message_id, reason) DO NOTHING`.pipe(Effect.asVoid, Effect.orDie)

    /** The recorded notification with what its mail needs. */
    const findForMail = SqlSchema.findOne({
      Request: Key,
      Result: Pending,
      execute: (key) =>
        sql`
          SELECT n.id, n.email_status, a.email AS agent_email, t.ticket_number, t.subject, m.body
          FROM notifications n
          JOIN agents a ON a.id = n.agent_id
          JOIN tickets t ON t.id = n.ticket_id
          LEFT JOIN messages m ON m.id = n.message_id
          WHERE n.agent_id = ${key.agentId} AND n.message_id IS NOT DISTINCT FROM ${key.messageId}
            AND n.reason = ${key.reason}
          ORDER BY n.created_at
          LIMIT 1`
    })

    const markSent = (id: string) =>
      sql`UPDATE notifications SET email_status = 'sent', email_error = NULL WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const markFailed = (id: string, error: string) =>
      sql`UPDATE notifications SET email_status = 'failed', email_error = ${error.slice(0, 1000)} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const listRows = SqlSchema.findAll({
      Request: Schema.String,
      Result: Listed,
      execute: (ticketId) =>
        sql`
          SELECT n.id AS notification_id, a.id AS agent_id, a.email AS agent_email, a.name AS agent_name,
            n.reason, n.message_id, n.email_status, n.created_at
          FROM notifications n
          JOIN agents a ON a.id = n.agent_id
          WHERE n.ticket_id = ${ticketId}
          ORDER BY n.created_at, n.id`
    })

    /** A ticket's notifications, oldest first. The caller has checked the ticket's project. */
    const listForTicket = Effect.fn("NotificationsRepo.listForTicket")(function*(ticketId: string) {
      const rows = yield* listRows(ticketId).pipe(Effect.orDie)
      return rows.map((row): NotificationView => ({
        notification_id: row.notification_id,
        agent: { id: row.agent_id, email: row.agent_email, name: row.agent_name },
        reason: row.reason,
        message_id: row.message_id,
        email_status: row.email_status,
        created_at: isoTimestamp(row.created_at)
      }))
    })

    return {
      record,
      findForMail: (notification: AgentNotification) =>
        findForMail({ agentId: notification.agentId, messageId: notification.messageId, reason: notification.reason })
          .pipe(Effect.orDie),
      markSent,
      markFailed,
      listForTicket
    } as const
  })
}) {}
