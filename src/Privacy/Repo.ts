import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { CustomFieldValues } from "../Domain/CustomField.ts"
import { Category, IntFromRow, Priority, Source, Status, TimestampText } from "../Domain/Fields.ts"
import {
  AttachmentIdFromRow,
  type ContactId,
  ContactIdFromRow,
  type MessageId,
  MessageIdFromRow,
  type ProjectId,
  type TicketId,
  TicketIdFromRow
} from "../Domain/Ids.ts"
import type { NewJob } from "../Domain/Jobs.ts"
import { erasedText } from "../Domain/Privacy.ts"
import { SatisfactionScale } from "../Domain/Satisfaction.ts"
import { AuthorType, EmailStatus } from "../Domain/Ticket.ts"
import { enqueue, traced } from "../Jobs/Outbox.ts"

const ContactRow = Schema.Struct({
  id: ContactIdFromRow,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  created_at: TimestampText,
  updated_at: TimestampText
})
export type ContactRow = typeof ContactRow.Type

const ErasedRow = Schema.Struct({ id: ContactIdFromRow, erased_at: TimestampText })

const TicketRow = Schema.Struct({
  id: TicketIdFromRow,
  ticket_number: IntFromRow,
  subject: Schema.String,
  body: Schema.String,
  status: Status,
  priority: Priority,
  category: Schema.NullOr(Category),
  source: Source,
  sender_email: Schema.NullOr(Schema.String),
  sender_name: Schema.NullOr(Schema.String),
  sender_verified: Schema.Boolean,
  visitor_sub: Schema.NullOr(Schema.String),
  metadata: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  custom_fields: Schema.NullOr(CustomFieldValues),
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  merged_into_id: Schema.NullOr(TicketIdFromRow),
  created_at: TimestampText,
  updated_at: TimestampText
})
export type TicketRow = typeof TicketRow.Type

const MessageRow = Schema.Struct({
  id: MessageIdFromRow,
  ticket_id: TicketIdFromRow,
  ticket_number: IntFromRow,
  author_type: AuthorType,
  author_name: Schema.NullOr(Schema.String),
  body: Schema.String,
  by_contact: Schema.Boolean,
  created_at: TimestampText
})
export type MessageRow = typeof MessageRow.Type

const AttachmentRow = Schema.Struct({
  id: AttachmentIdFromRow,
  ticket_id: TicketIdFromRow,
  message_id: Schema.NullOr(MessageIdFromRow),
  filename: Schema.String,
  content_type: Schema.String,
  size: IntFromRow,
  sha256: Schema.String,
  created_at: TimestampText
})
export type AttachmentRow = typeof AttachmentRow.Type

const RatingRow = Schema.Struct({
  ticket_id: TicketIdFromRow,
  ticket_number: IntFromRow,
  scale: SatisfactionScale,
  rating: Schema.NullOr(Schema.String),
  comment: Schema.NullOr(Schema.String),
  requested_at: TimestampText,
  rated_at: Schema.NullOr(TimestampText)
})
export type RatingRow = typeof RatingRow.Type

const NotificationRow = Schema.Struct({
  notification_id: Schema.String,
  ticket_id: TicketIdFromRow,
  message_id: Schema.NullOr(MessageIdFromRow),
  recipient: Schema.Literals(["contact", "agent"]),
  reason: Schema.String,
  email_status: EmailStatus,
  email_error: Schema.NullOr(Schema.String),
  created_at: TimestampText
})
export type NotificationRow = typeof NotificationRow.Type

const ThreadRow = Schema.Struct({ ticket_id: TicketIdFromRow, created_at: TimestampText })
export type ThreadRow = typeof ThreadRow.Type

const MailRow = Schema.Struct({
  rfc_message_id: Schema.String,
  ticket_id: TicketIdFromRow,
  message_id: Schema.NullOr(MessageIdFromRow),
  direction: Schema.Literals(["in", "out"]),
  created_at: TimestampText
})
export type MailRow = typeof MailRow.Type

/** Bytes as the driver hands them back: a Buffer on node-postgres, a Uint8Array on PGlite; null in the object store. */
const bytesOf = (value: unknown) => value instanceof Uint8Array ? value : null

const FileBytesRow = Schema.Struct({
  id: AttachmentIdFromRow,
  content: Schema.NullOr(Schema.Uint8Array),
  storage_key: Schema.NullOr(Schema.String)
})
export type FileBytesRow = typeof FileBytesRow.Type

/** Where an event's JSON is kept: the streams' log, a webhook delivery, a job's payload. */
export type EventTable = "events" | "webhook_deliveries" | "jobs"

const EventBodyRow = Schema.Struct({ id: Schema.String, body: Schema.String })

/** A stored event's JSON text, by its row. */
export interface EventBody {
  readonly table: EventTable
  readonly id: string
  readonly body: string
}

const TicketIdRow = Schema.Struct({ id: TicketIdFromRow })
const KeyRow = Schema.Struct({ storage_key: Schema.NullOr(Schema.String) })

/** Whose data an erasure removes, and what of it. */
export interface Erasure {
  readonly projectId: ProjectId
  readonly contactId: ContactId
  /** the tickets the contact filed, locked */
  readonly tickets: ReadonlyArray<TicketId>
  /** the messages the contact wrote, anywhere in the project */
  readonly messages: ReadonlyArray<MessageId>
  /** the tickets they filed or wrote on */
  readonly touched: ReadonlyArray<TicketId>
  /** lower-cased */
  readonly email: string
  readonly emailHash: string
  readonly erasedAt: string
}

/** What the rows of an erasure came to. */
export interface Erased {
  readonly attachments: number
  /** object-store keys of the deleted files, to remove once the transaction has committed */
  readonly storageKeys: ReadonlyArray<string>
}

/**
 * A contact's data across the tables, read for an export and erased in the caller's transaction:
 * their tickets are found by the sender address, which every ticket of a contact carries (the
 * contact is made from it) and which has an index, and their messages by `contact_id`.
 */
export class PrivacyRepo extends Context.Service<PrivacyRepo>()("app/Privacy/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const iso = (column: string) => Rows.isoUtc(sql, column)
    const uuids = (ids: ReadonlyArray<string>) =>
      sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`

    const projectExists = (projectId: ProjectId) => sql`SELECT 1 FROM projects WHERE id = ${projectId}`.pipe(Rows.some)

    /** The live contact with this address; `lock` holds its row to the end of the transaction. */
    const contactByEmail = (projectId: ProjectId, email: string, lock: boolean) =>
      sql`
        SELECT id, email, name, ${iso("created_at")} AS created_at, ${iso("updated_at")} AS updated_at
        FROM contacts WHERE project_id = ${projectId} AND email = ${email} AND erased_at IS NULL
        ${lock ? sql`FOR UPDATE` : sql``}`.pipe(Rows.first(ContactRow))

    /** The contact that had this address before it was erased, the latest when there were several. */
    const erasedByHash = (projectId: ProjectId, emailHash: string) =>
      sql`
        SELECT id, ${iso("erased_at")} AS erased_at FROM contacts
        WHERE project_id = ${projectId} AND email_hash = ${emailHash} AND erased_at IS NOT NULL
        ORDER BY erased_at DESC LIMIT 1`.pipe(Rows.first(ErasedRow))

    /**
     * The tickets filed from this address, locked in id order (the order merges and replies lock
     * in), so an erasure and a reply never wait on each other in a circle.
     */
    const lockTickets = (projectId: ProjectId, email: string) =>
      sql`
        SELECT id FROM tickets WHERE project_id = ${projectId} AND lower(sender_email) = ${email}
        ORDER BY id FOR NO KEY UPDATE`.pipe(
        Rows.all(TicketIdRow),
        Effect.map((rows) => rows.map((row) => row.id))
      )

    const messageIdsOf = (projectId: ProjectId, contactId: ContactId) =>
      sql`
        SELECT id FROM messages WHERE contact_id = ${contactId} AND project_id = ${projectId} AND author_type = 'contact'`.pipe(
        Rows.all(Schema.Struct({ id: MessageIdFromRow })),
        Effect.map((rows) => rows.map((row) => row.id))
      )

    const ticketsOf = (projectId: ProjectId, email: string) =>
      sql`
        SELECT t.id, t.ticket_number, t.subject, t.body, t.status, t.priority, t.category, t.source, t.sender_email,
          t.sender_name, t.sender_verified, t.visitor_sub, t.metadata, t.custom_fields, t.merged_into_id,
          ${iso("t.created_at")} AS created_at, ${iso("t.updated_at")} AS updated_at,
          (SELECT json_agg(g.name ORDER BY lower(g.name))
           FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags
        FROM tickets t WHERE t.project_id = ${projectId} AND lower(t.sender_email) = ${email}
        ORDER BY t.ticket_number`.pipe(Rows.all(TicketRow))

    /** The public conversations of `tickets`, and every message the contact wrote elsewhere; oldest first. */
    const messagesOf = (projectId: ProjectId, contactId: ContactId, tickets: ReadonlyArray<TicketId>) =>
      sql`
        SELECT m.id, m.ticket_id, t.ticket_number, m.author_type, a.name AS author_name, m.body,
          coalesce(m.contact_id = ${contactId} AND m.author_type = 'contact', false) AS by_contact,
          ${iso("m.created_at")} AS created_at
        FROM messages m JOIN tickets t ON t.id = m.ticket_id LEFT JOIN agents a ON a.id = m.agent_id
        WHERE m.project_id = ${projectId}
          AND ((m.ticket_id = ANY(${uuids(tickets)}) AND NOT m.internal)
            OR (m.contact_id = ${contactId} AND m.author_type = 'contact'))
        ORDER BY m.created_at, m.seq`.pipe(Rows.all(MessageRow))

    // the contact's files: their tickets' (but the desk's internal notes'), and their messages' elsewhere
    const theirFiles = (tickets: ReadonlyArray<TicketId>, messages: ReadonlyArray<MessageId>) =>
      sql`(
        (x.ticket_id = ANY(${uuids(tickets)})
          AND NOT EXISTS (SELECT 1 FROM messages n WHERE n.id = x.message_id AND n.internal))
        OR x.message_id = ANY(${uuids(messages)}))`

    const attachmentsOf = (projectId: ProjectId, tickets: ReadonlyArray<TicketId>, messages: ReadonlyArray<MessageId>) =>
      sql`
        SELECT x.id, x.ticket_id, x.message_id, x.filename, x.content_type, x.size, x.sha256,
          ${iso("x.created_at")} AS created_at
        FROM attachments x
        WHERE x.project_id = ${projectId} AND x.ticket_id IS NOT NULL AND ${theirFiles(tickets, messages)}
        ORDER BY x.created_at, x.id`.pipe(Rows.all(AttachmentRow))

    const bytesOfFiles = (projectId: ProjectId, ids: ReadonlyArray<string>) =>
      sql`
        SELECT id, content, storage_key FROM attachments
        WHERE project_id = ${projectId} AND id = ANY(${uuids(ids)})`.pipe(
        Effect.map((rows) => rows.map((row) => ({ ...row, content: bytesOf((row as { content: unknown }).content) }))),
        Rows.all(FileBytesRow)
      )

    const ratingsOf = (tickets: ReadonlyArray<TicketId>) =>
      sql`
        SELECT r.ticket_id, t.ticket_number, r.scale, r.rating, r.comment, ${iso("r.requested_at")} AS requested_at,
          ${iso("r.rated_at")} AS rated_at
        FROM satisfaction_requests r JOIN tickets t ON t.id = r.ticket_id
        WHERE r.ticket_id = ANY(${uuids(tickets)})
        ORDER BY r.requested_at`.pipe(Rows.all(RatingRow))

    /** Mail to the contact, and agents' notifications of the contact's messages, on `tickets`. */
    const notificationsOf = (
      contactId: ContactId,
      tickets: ReadonlyArray<TicketId>,
      messages: ReadonlyArray<MessageId>
    ) =>
      sql`
        SELECT n.id AS notification_id, n.ticket_id, n.message_id,
          CASE WHEN n.contact_id IS NULL THEN 'agent' ELSE 'contact' END AS recipient, n.reason, n.email_status,
          CASE WHEN n.contact_id IS NULL THEN NULL ELSE n.email_error END AS email_error,
          ${iso("n.created_at")} AS created_at
        FROM notifications n
        WHERE n.ticket_id = ANY(${uuids(tickets)})
          AND (n.contact_id = ${contactId} OR n.message_id = ANY(${uuids(messages)}))
        ORDER BY n.created_at, n.id`.pipe(Rows.all(NotificationRow))

    const threadsOf = (contactId: ContactId, tickets: ReadonlyArray<TicketId>) =>
      sql`
        SELECT ticket_id, ${iso("created_at")} AS created_at FROM mail_threads
        WHERE ticket_id = ANY(${uuids(tickets)}) AND contact_id = ${contactId}
        ORDER BY created_at`.pipe(Rows.all(ThreadRow))

    // the mail of the tickets the contact filed, and of the messages they wrote on others
    const theirMail = (filed: ReadonlyArray<TicketId>, messages: ReadonlyArray<MessageId>) =>
      sql`(m.ticket_id = ANY(${uuids(filed)}) OR m.message_id = ANY(${uuids(messages)}))`

    const mailOf = (
      projectId: ProjectId,
      filed: ReadonlyArray<TicketId>,
      touched: ReadonlyArray<TicketId>,
      messages: ReadonlyArray<MessageId>
    ) =>
      sql`
        SELECT m.rfc_message_id, m.ticket_id, m.message_id, m.direction, ${iso("m.created_at")} AS created_at
        FROM mail_messages m
        WHERE m.project_id = ${projectId} AND m.ticket_id = ANY(${uuids(touched)}) AND ${theirMail(filed, messages)}
        ORDER BY m.created_at, m.rfc_message_id`.pipe(Rows.all(MailRow))

    /**
     * The rows that carry event JSON about `tickets`: the streams' log, the webhook deliveries (by
     * the project's endpoints, whose index they have) and the jobs that carry an event.
     */
    const eventBodiesOf = (projectId: ProjectId, tickets: ReadonlyArray<TicketId>) =>
      Effect.gen(function*() {
        const ids = uuids(tickets)
        const events = yield* sql`
          SELECT id::text AS id, body FROM events WHERE ticket_id = ANY(${ids}) AND project_id = ${projectId}`.pipe(
          Rows.all(EventBodyRow)
        )
        const deliveries = yield* sql`
          SELECT d.id::text AS id, d.body FROM webhook_deliveries d
          WHERE d.webhook_id IN (SELECT w.id FROM webhooks w WHERE w.project_id = ${projectId})
            AND d.ticket_id = ANY(${ids})`.pipe(Rows.all(EventBodyRow))
        const jobs = yield* sql`
          SELECT id::text AS id, payload->>'body' AS body FROM jobs
          WHERE ticket_id = ANY(${ids}) AND project_id = ${projectId} AND payload->>'body' IS NOT NULL`.pipe(
          Rows.all(EventBodyRow)
        )
        return [
          ...events.map((row): EventBody => ({ table: "events", ...row })),
          ...deliveries.map((row): EventBody => ({ table: "webhook_deliveries", ...row })),
          ...jobs.map((row): EventBody => ({ table: "jobs", ...row }))
        ]
      })

    /** Writes event JSON back in place: the log's and the deliveries' text, a job's payload `body`. */
    const rewriteEventBodies = (bodies: ReadonlyArray<EventBody>) =>
      Effect.gen(function*() {
        const of = (table: EventTable) => JSON.stringify(bodies.filter((b) => b.table === table).map(({ id, body }) => ({ id, body })))
        if (bodies.some((b) => b.table === "events")) {
          yield* sql`
            UPDATE events e SET body = c.body FROM jsonb_to_recordset(${of("events")}::jsonb) AS c(id bigint, body text)
            WHERE e.id = c.id`.pipe(Rows.run)
        }
        if (bodies.some((b) => b.table === "webhook_deliveries")) {
          yield* sql`
            UPDATE webhook_deliveries d SET body = c.body
            FROM jsonb_to_recordset(${of("webhook_deliveries")}::jsonb) AS c(id uuid, body text)
            WHERE d.id = c.id`.pipe(Rows.run)
        }
        if (bodies.some((b) => b.table === "jobs")) {
          yield* sql`
            UPDATE jobs j SET payload = jsonb_set(j.payload, '{body}', to_jsonb(c.body))
            FROM jsonb_to_recordset(${of("jobs")}::jsonb) AS c(id uuid, body text)
            WHERE j.id = c.id`.pipe(Rows.run)
        }
      })

    /**
     * Erases the contact's data from every table but the event JSON (`rewriteEventBodies`), in the
     * caller's transaction, after `lockTickets` and `contactByEmail(…, true)`.
     */
    const erase = (e: Erasure) =>
      Effect.gen(function*() {
        const tickets = uuids(e.tickets)
        const messages = uuids(e.messages)
        const touched = uuids(e.touched)
        // a merge left a note on the target that quotes the merged ticket's subject (Merge/Merge.ts)
        yield* sql`
          UPDATE messages m SET body = replace(m.body, '“' || t.subject || '”', ${`“${erasedText}”`})
          FROM tickets t
          WHERE t.id = ANY(${tickets}) AND t.merged_into_id IS NOT NULL
            AND m.ticket_id = t.merged_into_id AND m.author_type = 'system'
            AND m.body LIKE 'Ticket #' || t.ticket_number || ' “%'`.pipe(Rows.run)
        // the generated search vector follows subject and body, so search finds nothing of them
        yield* sql`
          UPDATE tickets SET subject = ${erasedText}, body = ${erasedText}, sender_email = NULL, sender_name = NULL,
            metadata = NULL, visitor_sub = NULL
          WHERE id = ANY(${tickets})`.pipe(Rows.run)
        yield* sql`UPDATE messages SET body = ${erasedText} WHERE id = ANY(${messages})`.pipe(Rows.run)
        const files = yield* sql`
          DELETE FROM attachments x
          WHERE x.project_id = ${e.projectId} AND x.ticket_id IS NOT NULL AND ${theirFiles(e.tickets, e.messages)}
          RETURNING x.storage_key`.pipe(Rows.all(KeyRow))
        yield* sql`
          UPDATE satisfaction_requests SET comment = NULL
          WHERE ticket_id = ANY(${tickets}) AND comment IS NOT NULL`.pipe(Rows.run)
        // a mail server's refusal quotes the address it refused
        yield* sql`
          UPDATE notifications SET email_error = NULL
          WHERE contact_id = ${e.contactId} AND email_error IS NOT NULL`.pipe(Rows.run)
        // a Message-ID made by the contact's mail program may carry their address or domain: its hash
        // keeps the row's key unique, and replies still thread by the desk's own Message-IDs, which stay
        yield* sql`
          UPDATE mail_messages m SET rfc_message_id = 'erased:' || encode(sha256(convert_to(m.rfc_message_id, 'UTF8')), 'hex')
          WHERE m.project_id = ${e.projectId} AND m.direction = 'in' AND m.rfc_message_id NOT LIKE 'erased:%'
            AND (m.message_id = ANY(${messages}) OR (m.message_id IS NULL AND m.ticket_id = ANY(${tickets})))`.pipe(
          Rows.run
        )
        // a failed attempt's error may quote the address (a mail server's refusal, a receiver's echo)
        const address = e.email.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        yield* sql`
          UPDATE jobs SET last_error = regexp_replace(last_error, ${address}, ${erasedText}, 'gi')
          WHERE ticket_id = ANY(${touched}) AND last_error ~* ${address}`.pipe(Rows.run)
        yield* sql`
          UPDATE webhook_deliveries d SET last_error = regexp_replace(d.last_error, ${address}, ${erasedText}, 'gi')
          WHERE d.webhook_id IN (SELECT w.id FROM webhooks w WHERE w.project_id = ${e.projectId})
            AND d.ticket_id = ANY(${touched}) AND d.last_error ~* ${address}`.pipe(Rows.run)
        // the row stays, so ids that point at it stay valid: its address becomes a text that no
        // address can be (the unique (project_id, email) then lets the address write in again as a
        // new contact), no mail program accepts, and only the contact's own id finds in a search
        yield* sql`
          UPDATE contacts SET email = 'erased:' || id::text, name = NULL, email_hash = ${e.emailHash},
            erased_at = ${e.erasedAt}, updated_at = ${e.erasedAt}
          WHERE id = ${e.contactId}`.pipe(Rows.run)
        return {
          attachments: files.length,
          storageKeys: files.flatMap((row) => row.storage_key === null ? [] : [row.storage_key])
        } satisfies Erased
      })

    const ticketsOfMessages = (messages: ReadonlyArray<MessageId>) =>
      sql`SELECT DISTINCT ticket_id AS id FROM messages WHERE id = ANY(${uuids(messages)})`.pipe(
        Rows.all(TicketIdRow),
        Effect.map((rows) => rows.map((row) => row.id))
      )

    return {
      projectExists,
      contactByEmail,
      erasedByHash,
      lockTickets,
      messageIdsOf,
      ticketsOfMessages,
      ticketsOf,
      messagesOf,
      attachmentsOf,
      bytesOfFiles,
      ratingsOf,
      notificationsOf,
      threadsOf,
      mailOf,
      eventBodiesOf,
      rewriteEventBodies,
      erase,
      enqueue: (jobs: ReadonlyArray<NewJob>) => Effect.flatMap(traced(jobs), (withTraces) => enqueue(sql, withTraces)),
      withTransaction: Rows.transaction(sql)
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
