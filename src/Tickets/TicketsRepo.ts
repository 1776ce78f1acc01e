import { Context, Effect, Layer, Option, Schema, SchemaTransformation, Struct } from "effect"
import { SqlClient } from "effect/sql"
import * as Grouped from "../Database/Grouped.ts"
import * as Rows from "../Database/Rows.ts"
import { Attachment } from "../Domain/Attachment.ts"
import type { Cursor } from "../Domain/Cursor.ts"
import {
  Category,
  IntFromRow,
  Priority,
  Sentiment,
  Source,
  Status,
  TimestampFromRow,
  TimestampText
} from "../Domain/Fields.ts"
import {
  type AgentId,
  AgentIdFromRow,
  ContactIdFromRow,
  MessageIdFromRow,
  type ProjectId,
  type TicketId,
  TicketIdFromRow
} from "../Domain/Ids.ts"
import type { NewJob } from "../Domain/Jobs.ts"
import { adminSatisfaction, publicSatisfaction, SatisfactionRow } from "../Domain/Satisfaction.ts"
import { TicketSla } from "../Domain/Sla.ts"
import { type CheckedValues, type CustomFieldType, type CustomFieldValue, CustomFieldValues } from "../Domain/CustomField.ts"
import {
  type AdminTicket,
  AuthorType,
  EmailStatus,
  type Ticket,
  type TicketListItem,
  type TicketOwner,
  TriageSource,
  TriageStatus
} from "../Domain/Ticket.ts"
import { enqueue, outboxWrites, traced } from "../Jobs/Outbox.ts"

interface NewTicket {
  readonly row: NewTicketRow
  readonly jobs: ReadonlyArray<NewJob>
}

export interface NewTicketRow {
  readonly id: TicketId
  readonly projectId: ProjectId
  readonly subject: string
  readonly body: string
  readonly priority: Priority
  readonly priorityGiven: boolean
  readonly source: string
  readonly senderEmail: string | null
  readonly senderName: string | null
  /**
   * false when the sender fields are only what an untrusted caller (a widget key's visitor) typed:
   * such a ticket may create its contact but never changes an existing one.
   */
  readonly senderVerified: boolean
  readonly metadata: Record<string, unknown> | null
  readonly createdAt: string
  /** the verified visitor who filed it, by the site's user id */
  readonly visitorSub: string | null
  /** checked against the project's fields; null when none are given */
  readonly customFields: CustomFieldValues | null
}

const AgentRow = Schema.Struct({ id: AgentIdFromRow, email: Schema.String, name: Schema.String })

/** The owners of the tickets merged into one, as a read lists them to decide who may see it. */
const MergedOwnersRow = Schema.NullOr(Schema.Array(Schema.Struct({
  id: TicketIdFromRow,
  sender_email: Schema.NullOr(Schema.String),
  visitor_sub: Schema.NullOr(Schema.String)
})))

const mergedOwners = (rows: typeof MergedOwnersRow.Type): ReadonlyArray<TicketOwner> =>
  (rows ?? []).map((row) => ({ ticketId: row.id, senderEmail: row.sender_email, visitorSub: row.visitor_sub }))

/** A ticket as a transaction holds it locked: what changes and events are decided from. */
const LockedRow = Schema.Struct({
  merged_into_id: Schema.NullOr(TicketIdFromRow),
  merged: MergedOwnersRow,
  id: TicketIdFromRow,
  status: Status,
  priority: Priority,
  category: Schema.NullOr(Category),
  sender_email: Schema.NullOr(Schema.String),
  visitor_sub: Schema.NullOr(Schema.String),
  contact_id: Schema.NullOr(ContactIdFromRow),
  source: Source,
  body: Schema.String,
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  assignee: Schema.NullOr(AgentRow),
  custom_fields: Schema.NullOr(CustomFieldValues)
})
export type LockedTicket = typeof LockedRow.Type

/** Whose a locked ticket is, for a guard: its own owner and those of the tickets merged into it. */
export const ownerOf = (ticket: LockedTicket): TicketOwner => ({
  ticketId: ticket.id,
  senderEmail: ticket.sender_email,
  visitorSub: ticket.visitor_sub,
  merged: mergedOwners(ticket.merged)
})

const AttachmentsRow = Schema.NullOr(Schema.Array(Attachment)).pipe(
  Schema.decodeTo(Schema.Array(Attachment), SchemaTransformation.transform({ decode: (rows) => rows ?? [], encode: (rows) => rows }))
)

const MessageRow = Schema.Struct({
  id: MessageIdFromRow,
  author_type: AuthorType,
  author_name: Schema.NullOr(Schema.String),
  body: Schema.String,
  created_at: TimestampText,
  internal: Schema.Boolean,
  attachments: AttachmentsRow
})

const PublicRow = Schema.Struct({
  id: TicketIdFromRow,
  ticket_number: IntFromRow,
  subject: Schema.String,
  status: Status,
  priority: Priority,
  category: Schema.NullOr(Category),
  created_at: TimestampText,
  updated_at: TimestampText,
  custom_fields: Schema.NullOr(CustomFieldValues),
  sender_email: Schema.NullOr(Schema.String),
  body: Schema.String,
  attachments: AttachmentsRow,
  messages: Schema.NullOr(Schema.Array(MessageRow))
})

const PublicReadRow = Schema.Struct({
  ...PublicRow.fields,
  visitor_sub: Schema.NullOr(Schema.String),
  merged_into_id: Schema.NullOr(TicketIdFromRow),
  merged: MergedOwnersRow,
  satisfaction: SatisfactionRow
})

const ContactRow = Schema.Struct({ id: ContactIdFromRow, email: Schema.String, name: Schema.NullOr(Schema.String) })

const NotificationRow = Schema.Struct({
  notification_id: Schema.String,
  agent: Schema.NullOr(AgentRow),
  contact: Schema.NullOr(ContactRow),
  reason: Schema.String,
  message_id: Schema.NullOr(MessageIdFromRow),
  email_status: EmailStatus,
  created_at: TimestampFromRow
})

const AdminRow = Schema.Struct({
  ...PublicRow.fields,
  satisfaction: SatisfactionRow,
  sla: TicketSla,
  priority_source: Schema.NullOr(TriageSource),
  priority_confidence: Schema.NullOr(Schema.Number),
  category_source: Schema.NullOr(TriageSource),
  category_confidence: Schema.NullOr(Schema.Number),
  sentiment: Schema.NullOr(Sentiment),
  sentiment_score: Schema.NullOr(Schema.Number),
  sentiment_source: Schema.NullOr(TriageSource),
  sentiment_confidence: Schema.NullOr(Schema.Number),
  triage_status: TriageStatus,
  triage_model: Schema.NullOr(Schema.String),
  source: Source,
  sender_name: Schema.NullOr(Schema.String),
  sender_verified: Schema.Boolean,
  metadata: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  duplicate_of: Schema.NullOr(TicketIdFromRow),
  linked_issues: Schema.Array(Schema.Unknown),
  assignee: Schema.NullOr(AgentRow),
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  notifications: Schema.NullOr(Schema.Array(NotificationRow)),
  merged_into_id: Schema.NullOr(TicketIdFromRow),
  merge_suggestion: Schema.NullOr(Schema.Struct({ ticket_id: TicketIdFromRow, ticket_number: IntFromRow, subject: Schema.String }))
})

/** A ticket as lists show it, with the exact sort key of the `updated` order for its cursor. */
const ListRow = Schema.Struct({
  ...Struct.omit(PublicRow.fields, ["messages", "body", "attachments", "updated_at"]),
  source: Source,
  sender_name: Schema.NullOr(Schema.String),
  sender_verified: Schema.Boolean,
  assignee: Schema.NullOr(AgentRow),
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  updated_key: Schema.String,
  custom_sort_key: Schema.NullOr(Schema.String),
  sla_state: Schema.NullOr(Schema.String),
  sla_key: Schema.NullOr(Schema.String)
})

/** The public read of a ticket, and whose it is: a contact that does not own it must not see it. */
export interface PublicRead {
  readonly ticket: Ticket
  readonly senderEmail: string | null
  readonly visitorSub: string | null
  /** the owners of the tickets merged into it, who may reach it too */
  readonly merged?: ReadonlyArray<TicketOwner> | undefined
}

/** A ticket of a list, and where the list's cursor would stand after it. */
export interface ListedTicket {
  readonly ticket: TicketListItem & { readonly ticket_id: TicketId }
  /** updated_at to the microsecond, as stored */
  readonly updatedKey: string
  /** the sorted custom field's value as text, when the page is in that order; else null */
  readonly customSortKey: string | null
  /** the next SLA due time to the microsecond, for the `sla_due` order's cursor; null when none */
  readonly slaKey: string | null
}

/** What a list of tickets keeps; every filter given must hold. */
export interface TicketFilter {
  readonly status?: Status | undefined
  readonly priority?: Priority | undefined
  readonly category?: Category | undefined
  readonly source?: Source | undefined
  /** an agent's address, or `none` for tickets nobody is assigned */
  readonly assignee?: string | undefined
  readonly tag?: string | undefined
  /** lower-cased */
  readonly contactEmail?: string | undefined
  /** a verified visitor's user id */
  readonly visitorSub?: string | undefined
  readonly text?: string | undefined
  /** a custom field's value, already read as its type */
  readonly customField?: { readonly key: string; readonly value: CustomFieldValue } | undefined
  /** tickets with a breached SLA target, or at risk: none breached and one due before `before` */
  readonly sla?: { readonly state: "breached" } | { readonly state: "at_risk"; readonly before: string } | undefined
}

/** A custom field a list is ordered by: ascending by value, tickets without one last, ties newest first. */
export interface CustomFieldOrder {
  readonly key: string
  readonly type: CustomFieldType
}

export interface TicketPage {
  readonly order: "created" | "updated" | "sla_due" | CustomFieldOrder
  /** the cursor of the previous page's last ticket, of the same order */
  readonly after: Exclude<Cursor, { readonly order: "audit" }> | undefined
  /** rows read; a caller asks one more than it shows, to know whether another page follows */
  readonly rows: number
  /** false for a list that does not show service levels (a contact's): they are not read */
  readonly sla?: boolean | undefined
}

/** A change of a ticket's fields; those left undefined keep their value, and a person's value is marked as theirs. */
export interface TicketChange {
  readonly status?: Status | undefined
  readonly priority?: Priority | undefined
  readonly category?: Category | undefined
  /** null unassigns */
  readonly assigneeId?: AgentId | null | undefined
  /** values to set and keys to remove, already checked against the project's fields */
  readonly customFields?: CheckedValues | undefined
  readonly updatedAt: string
}

/** The tickets themselves: their rows, tags, reads and lists, and the transaction their changes share. */
export interface TicketsRepoShape {
  /** Writes the ticket, its sender as a contact and its outbox jobs in one statement; answers its number. */
  readonly insertTicket: (row: NewTicketRow, jobs: ReadonlyArray<NewJob>) => Effect.Effect<number>
  /**
   * Writes several tickets in one statement, on the caller's transaction: one lock of each
   * project's row for all of them. Answers their numbers in the order given.
   */
  readonly insertTickets: (tickets: ReadonlyArray<{ readonly row: NewTicketRow; readonly jobs: ReadonlyArray<NewJob> }>) => Effect.Effect<ReadonlyArray<number>>
  readonly tagTicket: (projectId: ProjectId, ticketId: TicketId, tags: ReadonlyArray<string>) => Effect.Effect<void>
  readonly findPublic: (projectId: ProjectId, ticketId: TicketId) => Effect.Effect<Option.Option<PublicRead>>
  readonly findAdmin: (projectId: ProjectId, ticketId: TicketId) => Effect.Effect<Option.Option<AdminTicket>>
  readonly listTickets: (
    projectId: ProjectId,
    filter: TicketFilter,
    page: TicketPage
  ) => Effect.Effect<ReadonlyArray<ListedTicket>>
  readonly findIdByNumber: (projectId: ProjectId, ticketNumber: number) => Effect.Effect<Option.Option<TicketId>>
  /** The ticket, locked until the transaction ends. */
  readonly lockTicket: (projectId: ProjectId, ticketId: TicketId) => Effect.Effect<Option.Option<LockedTicket>>
  /** The ticket and the ticket it was merged into, if any, both locked until the transaction ends. */
  readonly lockWithTarget: (projectId: ProjectId, ticketId: TicketId) => Effect.Effect<ReadonlyArray<LockedTicket>>
  readonly updateTicket: (ticketId: TicketId, change: TicketChange) => Effect.Effect<void>
  /** Gives a ticket nobody verified filed to the verified visitor `sub`. */
  readonly claimForVisitor: (ticketId: TicketId, sub: string) => Effect.Effect<void>
  /** Writes the outbox rows of the jobs, stamped with the current trace. */
  readonly enqueue: (jobs: ReadonlyArray<NewJob>) => Effect.Effect<void>
  /**
   * Runs `effect` in one transaction. The other repositories of the tickets (messages, contacts,
   * follow-ups) share this SqlClient, so their statements run inside it join it.
   */
  readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

const TicketNumberRow = Schema.Struct({ ticket_number: IntFromRow })
const NumberedRow = Schema.Struct({ id: TicketIdFromRow, ticket_number: IntFromRow })
const Id = Schema.Struct({ id: TicketIdFromRow })

/**
 * The list's SLA columns from the ticket's `sla_state` (kept by the SLA jobs beside ticket_slas):
 * null without an SLA, else `!` when a target was breached, then the next due time.
 */
const slaOfState = (state: string | null) => ({
  sla_due_at: state === null || state === "" || state === "!" ? null : state.startsWith("!") ? state.slice(1) : state,
  sla_breached: state?.startsWith("!") ?? false
})

/** The fields every read of a ticket shows. */
const ticketFields = (row: Omit<typeof PublicRow.Type, "messages" | "body" | "attachments">) => ({
  ticket_id: row.id,
  ticket_number: row.ticket_number,
  subject: row.subject,
  status: row.status,
  priority: row.priority,
  category: row.category,
  created_at: row.created_at,
  updated_at: row.updated_at,
  custom_fields: row.custom_fields ?? {}
})

const triageValue = <A>(value: A | null, confidence: number | null, source: "ai" | "human" | null) =>
  value === null || source === null ? null : { value, confidence, source }

export class TicketsRepo extends Context.Service<TicketsRepo, TicketsRepoShape>()("app/Tickets/TicketsRepo") {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * One statement, so one round trip: records the sender as a contact, takes the next ticket
     * number under the project row's lock, inserts the ticket and its outbox jobs. A failure
     * rolls all of it back, so committed numbers have no gaps.
     */
    const insertOne = ({ row, jobs }: NewTicket) =>
      sql`
        WITH contact AS (
          INSERT INTO contacts (project_id, email, name)
          SELECT ${row.projectId}::uuid, ${row.senderEmail}::text, ${row.senderName}::text
          WHERE ${row.senderEmail}::text IS NOT NULL
          ON CONFLICT (project_id, email) DO UPDATE
            SET name = coalesce(${row.senderVerified ? row.senderName : null}::text, contacts.name)
          RETURNING id
        ), seq AS (
          UPDATE projects SET ticket_seq = ticket_seq + 1 WHERE id = ${row.projectId} RETURNING ticket_seq
        ), ticket AS (
          INSERT INTO tickets (id, project_id, ticket_number, subject, body, priority, priority_source,
            priority_confidence, source, sender_email, sender_name, sender_verified, contact_id, metadata, created_at,
            updated_at, visitor_sub, custom_fields)
          SELECT ${row.id}::uuid, ${row.projectId}::uuid, seq.ticket_seq, ${row.subject}, ${row.body},
            ${row.priority}, ${row.priorityGiven ? "human" : null}, ${row.priorityGiven ? 1 : null}::float8,
            ${row.source}, ${row.senderEmail}, ${row.senderName}, ${row.senderVerified}, (SELECT id FROM contact),
            ${row.metadata === null ? null : JSON.stringify(row.metadata)}::jsonb,
            ${row.createdAt}::timestamptz, ${row.createdAt}::timestamptz, ${row.visitorSub}::text,
            ${row.customFields === null ? null : JSON.stringify(row.customFields)}::jsonb
          FROM seq
          RETURNING id, ticket_number
        ), ${outboxWrites(sql, jobs)}
        SELECT ticket_number FROM ticket`.pipe(Rows.single(TicketNumberRow), Effect.map((r) => r.ticket_number))

    /**
     * The same as `insertOne` for many tickets, of any projects, in one statement: each project
     * row is locked once (in id order, so two batches never wait on each other in a circle) and
     * its counter moves by the batch's count; the tickets take the numbers in the order given. A
     * sender who appears twice is one contact, named as one ticket after the other would leave it:
     * by the last name a verified ticket gave, else as it was, or, when new, by the first ticket.
     * Answers the numbers in the order of `tickets`.
     */
    const insertMany = (tickets: ReadonlyArray<NewTicket>) =>
      sql`
        WITH entry AS (
          SELECT * FROM jsonb_to_recordset(${
        JSON.stringify(tickets.map(({ row }, ord) => ({
          ord,
          id: row.id,
          project_id: row.projectId,
          subject: row.subject,
          body: row.body,
          priority: row.priority,
          priority_given: row.priorityGiven,
          source: row.source,
          sender_email: row.senderEmail,
          sender_name: row.senderName,
          sender_verified: row.senderVerified,
          metadata: row.metadata,
          created_at: row.createdAt,
          visitor_sub: row.visitorSub,
          custom_fields: row.customFields
        })))
      }::jsonb) AS e(ord int, id uuid, project_id uuid, subject text, body text, priority text, priority_given boolean,
            source text, sender_email text, sender_name text, sender_verified boolean, metadata jsonb,
            created_at timestamptz, visitor_sub text, custom_fields jsonb)
        ), sender AS (
          SELECT project_id, sender_email,
            (array_agg(sender_name ORDER BY ord DESC) FILTER (WHERE sender_verified AND sender_name IS NOT NULL))[1]
              AS verified_name,
            (array_agg(sender_name ORDER BY ord))[1] AS first_name
          FROM entry WHERE sender_email IS NOT NULL
          GROUP BY project_id, sender_email
        ), contact AS (
          INSERT INTO contacts (project_id, email, name)
          SELECT project_id, sender_email, coalesce(verified_name, first_name) FROM sender
          ON CONFLICT (project_id, email) DO UPDATE SET name = coalesce(
            (SELECT s.verified_name FROM sender s WHERE s.project_id = EXCLUDED.project_id AND s.sender_email = EXCLUDED.email),
            contacts.name)
          RETURNING id, project_id, email
        ), taken AS (
          SELECT project_id, count(*)::int AS n FROM entry GROUP BY project_id
        ), locked AS (
          -- the mode insertOne's UPDATE takes: FOR UPDATE would also block the key-share lock that every
          -- write pointing at the project takes (the pipeline's messages and jobs), making batches that
          -- hold ticket rows wait on creates, and creates on them
          SELECT id FROM projects WHERE id = ANY(ARRAY(SELECT project_id FROM taken)) ORDER BY id FOR NO KEY UPDATE
        ), seq AS (
          UPDATE projects SET ticket_seq = projects.ticket_seq + taken.n FROM taken
          WHERE projects.id = taken.project_id AND projects.id = ANY(ARRAY(SELECT id FROM locked))
          RETURNING projects.id, projects.ticket_seq - taken.n AS before
        ), ticket AS (
          INSERT INTO tickets (id, project_id, ticket_number, subject, body, priority, priority_source,
            priority_confidence, source, sender_email, sender_name, sender_verified, contact_id, metadata, created_at,
            updated_at, visitor_sub, custom_fields)
          SELECT e.id, e.project_id, seq.before + row_number() OVER (PARTITION BY e.project_id ORDER BY e.ord),
            e.subject, e.body, e.priority, CASE WHEN e.priority_given THEN 'human' END,
            CASE WHEN e.priority_given THEN 1::float8 END, e.source, e.sender_email, e.sender_name, e.sender_verified,
            (SELECT c.id FROM contact c WHERE c.project_id = e.project_id AND c.email = e.sender_email),
            e.metadata, e.created_at, e.created_at, e.visitor_sub, e.custom_fields
          -- a project that is gone leaves its tickets without a number: the statement fails whole
          FROM entry e LEFT JOIN seq ON seq.id = e.project_id
          RETURNING id, ticket_number
        ), ${outboxWrites(sql, tickets.flatMap(({ jobs }) => jobs))}
        SELECT id, ticket_number FROM ticket`.pipe(
        Rows.all(NumberedRow),
        Effect.flatMap((rows) => {
          const numbers = new Map(rows.map((r) => [r.id, r.ticket_number]))
          return tickets.every(({ row }) => numbers.has(row.id))
            ? Effect.succeed(tickets.map(({ row }) => numbers.get(row.id)!))
            : Effect.die(new Error("a ticket of the batch was not written"))
        })
      )

    // the creates of concurrent requests go out together while the previous statement is on its way
    const insertGrouped = yield* Grouped.statements({
      inFlight: 2,
      maxBatch: 100,
      one: insertOne,
      many: insertMany
    })

    /**
     * One statement, so one round trip, for a ticket and its outbox jobs: alone, or together with
     * the tickets other requests create at the same moment (`insertMany`). Inside a transaction it
     * is written on the transaction's own connection, alone.
     */
    const insertTicket = (row: NewTicketRow, untraced: ReadonlyArray<NewJob>) =>
      Effect.flatMap(traced(untraced), (jobs) =>
        Effect.flatMap(
          Effect.serviceOption(sql.transactionService),
          (transaction) => Option.isSome(transaction) ? insertOne({ row, jobs }) : insertGrouped({ row, jobs })
        ))

    const tagTicket = (projectId: ProjectId, ticketId: TicketId, tags: ReadonlyArray<string>) =>
      sql`
        WITH wanted AS (
          SELECT value AS name FROM jsonb_array_elements_text(${JSON.stringify(tags)}::jsonb) AS value
        ), created AS (
          INSERT INTO tags (project_id, name) SELECT ${projectId}::uuid, name FROM wanted
          ON CONFLICT (project_id, lower(name)) DO NOTHING
          RETURNING id
        )
        INSERT INTO ticket_tags (ticket_id, tag_id)
        SELECT ${ticketId}::uuid, id FROM created
        UNION
        SELECT ${ticketId}::uuid, tags.id FROM tags JOIN wanted ON lower(tags.name) = lower(wanted.name)
        WHERE tags.project_id = ${projectId}
        ON CONFLICT DO NOTHING`.pipe(Rows.run)

    /** A ticket's conversation as one JSON array, oldest first; `public` leaves out internal notes. */
    /** The files of the messages `where` picks, as one JSON array in the order they were stored. */
    const filesOf = (where: ReturnType<typeof sql.literal>) =>
      sql`(SELECT json_agg(json_build_object('id', x.id, 'filename', x.filename, 'content_type', x.content_type,
              'size', x.size, 'sha256', x.sha256, 'url', '/v1/attachments/' || x.id) ORDER BY x.created_at, x.id)
           FROM attachments x WHERE ${where})`

    const messagesOf = (options: { readonly public: boolean }) =>
      sql`(SELECT json_agg(json_build_object('id', m.id, 'author_type', m.author_type, 'author_name', a.name,
              'body', m.body, 'created_at', ${Rows.isoUtc(sql, "m.created_at")}, 'internal', m.internal,
              'attachments', ${filesOf(sql.literal("x.message_id = m.id"))})
              ORDER BY m.created_at, m.seq)
           FROM messages m LEFT JOIN agents a ON a.id = m.agent_id
           WHERE m.ticket_id = t.id ${options.public ? sql`AND NOT m.internal` : sql``})`

    // the opening message's files: the ticket's, with no message of their own
    const openingFiles = filesOf(sql.literal("x.ticket_id = t.id AND x.message_id IS NULL"))

    // the parts that never change, built once rather than on every read
    const publicConversation = messagesOf({ public: true })
    const wholeConversation = messagesOf({ public: false })
    const createdAt = Rows.isoUtc(sql, "t.created_at")
    const updatedAt = Rows.isoUtc(sql, "t.updated_at")
    const ticketTimes = sql`${createdAt} AS created_at, ${updatedAt} AS updated_at`
    // the due times the sla_update and sla_check jobs keep, in the operator read's shape
    const slaTarget = (target: string, extra: string) =>
      sql.literal(`CASE WHEN s.${target}_due_at IS NULL THEN NULL ELSE json_build_object(
        'due_at', to_char(s.${target}_due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'met_at', to_char(s.${target}_met_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'breached_at', to_char(s.${target}_breached_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')${extra}) END`)
    const slaOf = sql`(SELECT json_build_object('policy_id', s.policy_id, 'policy_name', s.policy_name,
        'first_response', ${slaTarget("first_response", "")},
        'resolution', ${slaTarget("resolution", ", 'paused', s.resolution_paused_at IS NOT NULL")})
      FROM ticket_slas s WHERE s.ticket_id = t.id)`
    // the contact's rating request, one per ticket at most
    const satisfactionOf = sql`(SELECT json_build_object('scale', r.scale, 'rating', r.rating, 'comment', r.comment,
        'rated_at', ${Rows.isoUtc(sql, "r.rated_at")}, 'requested_at', ${Rows.isoUtc(sql, "r.requested_at")})
      FROM satisfaction_requests r WHERE r.ticket_id = t.id)`
    // whose the tickets merged into `t` were: their owners may reach `t`, where their conversation went
    const mergedInto = sql`(SELECT json_agg(json_build_object('id', s.id, 'sender_email', s.sender_email,
        'visitor_sub', s.visitor_sub)) FROM tickets s WHERE s.merged_into_id = t.id)`

    // every ticket read of the published API runs this one
    const publicTicket = Rows.compiledOnce(sql, (projectId: ProjectId, ticketId: TicketId) =>
      sql`
        SELECT t.id, t.ticket_number, t.subject, t.status, t.priority, t.category,
          ${ticketTimes}, t.custom_fields, t.sender_email, t.visitor_sub, t.body, ${openingFiles} AS attachments,
          ${publicConversation} AS messages, t.merged_into_id, ${mergedInto} AS merged, ${satisfactionOf} AS satisfaction
        FROM tickets t WHERE t.id = ${ticketId} AND t.project_id = ${projectId}`)

    const findPublic = (projectId: ProjectId, ticketId: TicketId) =>
      publicTicket(projectId, ticketId).pipe(
        Rows.first(PublicReadRow),
        Effect.map(Option.map((row) => ({
          ticket: {
            ...ticketFields(row),
            body: row.body,
            attachments: row.attachments,
            messages: (row.messages ?? []).map(({ internal: _, ...message }) => message),
            merged_into_id: row.merged_into_id,
            satisfaction: publicSatisfaction(row.satisfaction)
          } satisfies Ticket,
          senderEmail: row.sender_email,
          visitorSub: row.visitor_sub,
          merged: mergedOwners(row.merged)
        })))
      )

    const findAdmin = (projectId: ProjectId, ticketId: TicketId) =>
      sql`
        SELECT t.id, t.ticket_number, t.subject, t.status, t.priority, t.category,
          ${ticketTimes}, t.custom_fields, t.sender_email, t.body, t.sender_name, t.sender_verified, t.source, t.metadata, t.duplicate_of,
          t.linked_issues,
          t.priority_source, t.priority_confidence, t.category_source, t.category_confidence,
          t.sentiment, t.sentiment_score, t.sentiment_source, t.sentiment_confidence, t.triage_status, t.triage_model,
          (SELECT json_build_object('id', a.id, 'email', a.email, 'name', a.name)
           FROM agents a WHERE a.id = t.assignee_id) AS assignee,
          (SELECT json_agg(g.name ORDER BY lower(g.name))
           FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags,
          ${openingFiles} AS attachments, ${wholeConversation} AS messages,
          (SELECT json_agg(json_build_object('notification_id', n.id, 'reason', n.reason, 'message_id', n.message_id,
              'email_status', n.email_status, 'created_at', n.created_at,
              'agent', CASE WHEN a.id IS NULL THEN NULL ELSE json_build_object('id', a.id, 'email', a.email, 'name', a.name) END,
              'contact', CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('id', c.id, 'email', c.email, 'name', c.name) END)
              ORDER BY n.created_at, n.id)
           FROM notifications n LEFT JOIN agents a ON a.id = n.agent_id LEFT JOIN contacts c ON c.id = n.contact_id
           WHERE n.ticket_id = t.id) AS notifications,
          t.merged_into_id,
          -- a detected duplicate is offered for merging while neither ticket has been merged
          (SELECT json_build_object('ticket_id', d.id, 'ticket_number', d.ticket_number, 'subject', d.subject)
           FROM tickets d WHERE d.id = t.duplicate_of AND d.project_id = t.project_id
             AND d.merged_into_id IS NULL AND t.merged_into_id IS NULL) AS merge_suggestion,
          ${satisfactionOf} AS satisfaction, ${slaOf} AS sla
        FROM tickets t WHERE t.id = ${ticketId} AND t.project_id = ${projectId}`.pipe(
        Rows.first(AdminRow),
        Effect.map(Option.map((row): AdminTicket => ({
          ...ticketFields(row),
          body: row.body,
          attachments: row.attachments,
          sentiment: row.sentiment,
          sentiment_score: row.sentiment_score,
          tags: row.tags ?? [],
          metadata: row.metadata,
          source: row.source,
          sender_email: row.sender_email,
          sender_name: row.sender_name,
          sender_verified: row.sender_verified,
          assignee: row.assignee,
          duplicate_of: row.duplicate_of,
          merge_suggestion: row.merge_suggestion,
          merged_into_id: row.merged_into_id,
          linked_issues: row.linked_issues,
          triage: {
            status: row.triage_status,
            model: row.triage_model,
            category: triageValue(row.category, row.category_confidence, row.category_source),
            priority: triageValue(row.priority, row.priority_confidence, row.priority_source),
            sentiment: triageValue(row.sentiment, row.sentiment_confidence, row.sentiment_source)
          },
          messages: row.messages ?? [],
          notifications: row.notifications ?? [],
          satisfaction: adminSatisfaction(row.satisfaction),
          sla: row.sla
        })))
      )

    // updated_at to the microsecond, as it is stored: a cursor that kept milliseconds would skip
    // or repeat tickets updated within the same millisecond
    const exactUpdatedAt = sql.literal(`to_char(t.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`)
    const exactSlaDue = sql.literal(`to_char(s.next_due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`)

    // a custom field's value as its type orders it: numbers by size, false before true, dates
    // (YYYY-MM-DD) and text as text; the type never changes, so every stored value casts
    const castOf = (type: CustomFieldType) =>
      sql.literal(type === "number" ? "numeric" : type === "boolean" ? "boolean" : "text")
    const customValue = (order: CustomFieldOrder) => sql`(t.custom_fields ->> ${order.key}::text)::${castOf(order.type)}`

    /** After a cursor of the custom field order: a greater value, the same one and older, or no value at all. */
    const afterCustomField = (
      order: CustomFieldOrder | undefined,
      after: Extract<Cursor, { readonly order: "custom_field" }>
    ) => {
      if (order === undefined) return sql`AND false`
      const value = customValue(order)
      return after.value === null
        ? sql`AND ${value} IS NULL AND t.ticket_number < ${after.number}`
        : sql`AND (${value} > ${after.value}::${castOf(order.type)}
            OR (${value} = ${after.value}::${castOf(order.type)} AND t.ticket_number < ${after.number})
            OR ${value} IS NULL)`
    }

    /**
     * A page of the project's tickets, newest (or most recently updated) first, after the cursor:
     * keyset paging on a unique key, so tickets created between two pages never shift the pages
     * that follow. Ticket numbers are unique per project and committed in order (the project row
     * is locked from taking a number to the commit), so the `created` order pages on them alone;
     * several tickets can share a created_at when their creates were written in one statement.
     */
    const listTickets = (projectId: ProjectId, filter: TicketFilter, page: TicketPage) => {
      const after = page.after
      const customOrder = typeof page.order === "object" ? page.order : undefined
      // joined only when the SLA filters or orders the list: otherwise a page reads its due times
      // row by row, and the join cannot change how the tickets themselves are found
      const joinsSla = filter.sla !== undefined || page.order === "sla_due"
      return sql`
        SELECT t.id, t.ticket_number, t.subject, t.status, t.priority, t.category, t.source,
          t.sender_email, t.sender_name, t.sender_verified, ${createdAt} AS created_at, ${exactUpdatedAt} AS updated_key,
          t.custom_fields, ${customOrder === undefined ? sql`NULL::text` : sql`t.custom_fields ->> ${customOrder.key}::text`} AS custom_sort_key,
          -- an unassigned ticket (most of a list) skips the lookup
          CASE WHEN t.assignee_id IS NOT NULL THEN (SELECT json_build_object('id', a.id, 'email', a.email, 'name', a.name)
           FROM agents a WHERE a.id = t.assignee_id) END AS assignee,
          (SELECT json_agg(g.name ORDER BY lower(g.name))
           FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags,
          ${
        page.sla === false ? sql`NULL::text AS sla_state` : sql`t.sla_state`
      },
          ${page.order === "sla_due" ? exactSlaDue : sql`NULL::text`} AS sla_key
        FROM tickets t ${joinsSla ? sql`LEFT JOIN ticket_slas s ON s.ticket_id = t.id` : sql``}
        WHERE t.project_id = ${projectId}
          ${filter.status === undefined ? sql`` : sql`AND t.status = ${filter.status}`}
          ${filter.priority === undefined ? sql`` : sql`AND t.priority = ${filter.priority}`}
          ${filter.category === undefined ? sql`` : sql`AND t.category = ${filter.category}`}
          ${filter.source === undefined ? sql`` : sql`AND t.source = ${filter.source}`}
          ${
        filter.assignee === undefined
          ? sql``
          : filter.assignee === "none"
          ? sql`AND t.assignee_id IS NULL`
          : sql`AND t.assignee_id = (SELECT id FROM agents WHERE project_id = ${projectId} AND email = ${filter.assignee})`
      }
          ${
        filter.tag === undefined ? sql`` : sql`AND t.id IN (
            SELECT tt.ticket_id FROM tags g JOIN ticket_tags tt ON tt.tag_id = g.id
            WHERE g.project_id = ${projectId} AND lower(g.name) = lower(${filter.tag}))`
      }
          ${filter.contactEmail === undefined ? sql`` : sql`AND lower(t.sender_email) = ${filter.contactEmail}`}
          ${filter.visitorSub === undefined ? sql`` : sql`AND t.visitor_sub = ${filter.visitorSub}`}
          ${filter.text === undefined ? sql`` : sql`AND t.search @@ websearch_to_tsquery('english', ${filter.text})`}
          ${
        filter.customField === undefined
          ? sql``
          : sql`AND t.custom_fields @> ${JSON.stringify({ [filter.customField.key]: filter.customField.value })}::jsonb`
      }
          ${
        filter.sla === undefined
          ? sql``
          : filter.sla.state === "breached"
          ? sql`AND s.breached`
          : sql`AND NOT s.breached AND s.next_due_at < ${filter.sla.before}::timestamptz`
      }
          ${
        after === undefined
          ? sql``
          : after.order === "created"
          ? sql`AND t.ticket_number < ${after.number}`
          : after.order === "custom_field"
          ? afterCustomField(customOrder, after)
          : after.order === "sla_due"
          ? (after.at === null
            ? sql`AND s.next_due_at IS NULL AND t.id > ${after.id}::uuid`
            : sql`AND ((s.next_due_at, t.id) > (${after.at}::timestamptz, ${after.id}::uuid) OR s.next_due_at IS NULL)`)
          : sql`AND (t.updated_at, t.id) < (${after.at}::timestamptz, ${after.id}::uuid)`
      }
        ORDER BY ${
        page.order === "created"
          ? sql`t.ticket_number DESC`
          : customOrder !== undefined
          ? sql`${customValue(customOrder)} ASC NULLS LAST, t.ticket_number DESC`
          : page.order === "sla_due"
          ? sql`s.next_due_at ASC NULLS LAST, t.id ASC`
          : sql`t.updated_at DESC, t.id DESC`
      }
        LIMIT ${page.rows}`.pipe(
        Rows.all(ListRow),
        Effect.map((rows) =>
          rows.map((row): ListedTicket => ({
            ticket: {
              // the exact key to the millisecond, as to_char's MS truncates: one formatting a row fewer
              ...ticketFields({ ...row, updated_at: `${row.updated_key.slice(0, 23)}Z` }),
              source: row.source,
              sender_email: row.sender_email,
              sender_name: row.sender_name,
              sender_verified: row.sender_verified,
              assignee: row.assignee,
              tags: row.tags ?? [],
              ...slaOfState(row.sla_state)
            },
            updatedKey: row.updated_key,
            customSortKey: row.custom_sort_key,
            slaKey: row.sla_key
          }))
        )
      )
    }

    const findIdByNumber = (projectId: ProjectId, ticketNumber: number) =>
      sql`SELECT id FROM tickets WHERE project_id = ${projectId} AND ticket_number = ${ticketNumber}`.pipe(
        Rows.first(Id),
        Effect.map(Option.map((row) => row.id))
      )

    // what a locked ticket's row holds, as LockedRow decodes it
    const lockedColumns = sql`t.id, t.status, t.priority, t.category, t.sender_email, t.contact_id, t.source, t.body,
      t.visitor_sub, t.custom_fields,
      (SELECT json_agg(g.name) FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags,
      (SELECT json_build_object('id', a.id, 'email', a.email, 'name', a.name)
       FROM agents a WHERE a.id = t.assignee_id) AS assignee,
      t.merged_into_id, ${mergedInto} AS merged`

    /**
     * Locks the ticket for the rest of the transaction, so concurrent changes apply in turn; in the
     * mode an UPDATE takes, which leaves alone the key-share locks of writes that point at the
     * ticket (a duplicate mark, a job), so those never wait on a reply in progress.
     */
    const lockTicket = (projectId: ProjectId, ticketId: TicketId) =>
      sql`
        SELECT ${lockedColumns}
        FROM tickets t WHERE t.id = ${ticketId} AND t.project_id = ${projectId}
        FOR NO KEY UPDATE OF t`.pipe(Rows.first(LockedRow))

    /**
     * The ticket and, when it was merged, the ticket it went into, locked in one statement in id
     * order, the order a merge locks in: a message to a merged ticket and a merge of its target
     * never wait on each other in a circle.
     */
    const lockWithTarget = (projectId: ProjectId, ticketId: TicketId) =>
      sql`
        SELECT ${lockedColumns}
        FROM tickets t
        WHERE t.project_id = ${projectId} AND (t.id = ${ticketId} OR t.id = (
          SELECT s.merged_into_id FROM tickets s WHERE s.id = ${ticketId} AND s.project_id = ${projectId}))
        ORDER BY t.id
        FOR NO KEY UPDATE OF t`.pipe(Rows.all(LockedRow))

    const claimForVisitor = (ticketId: TicketId, sub: string) =>
      sql`UPDATE tickets SET visitor_sub = ${sub} WHERE id = ${ticketId} AND visitor_sub IS NULL`.pipe(Rows.run)

    const updateTicket = (ticketId: TicketId, change: TicketChange) =>
      sql`UPDATE tickets SET
            status = coalesce(${change.status ?? null}, status),
            priority = coalesce(${change.priority ?? null}, priority),
            priority_source = CASE WHEN ${change.priority ?? null}::text IS NULL THEN priority_source ELSE 'human' END,
            priority_confidence = CASE WHEN ${change.priority ?? null}::text IS NULL THEN priority_confidence ELSE 1 END,
            category = coalesce(${change.category ?? null}, category),
            category_source = CASE WHEN ${change.category ?? null}::text IS NULL THEN category_source ELSE 'human' END,
            category_confidence = CASE WHEN ${change.category ?? null}::text IS NULL THEN category_confidence ELSE 1 END,
            assignee_id = CASE WHEN ${change.assigneeId !== undefined}::boolean THEN ${change.assigneeId ?? null}::uuid
                          ELSE assignee_id END,
            ${
        change.customFields === undefined
          ? sql``
          : sql`custom_fields = nullif((coalesce(custom_fields, '{}'::jsonb) || ${JSON.stringify(change.customFields.set)}::jsonb)
              - ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(change.customFields.unset)}::jsonb)), '{}'::jsonb),`
      }
            updated_at = ${change.updatedAt}
          WHERE id = ${ticketId}`.pipe(Rows.run)

    const insertTickets = (tickets: ReadonlyArray<NewTicket>) =>
      Effect.flatMap(
        Effect.forEach(tickets, ({ row, jobs }) => Effect.map(traced(jobs), (withTraces) => ({ row, jobs: withTraces }))),
        (withTraces) => withTraces.length === 1 ? Effect.map(insertOne(withTraces[0]!), (n) => [n]) : insertMany(withTraces)
      )

    return {
      insertTicket,
      insertTickets,
      claimForVisitor,
      tagTicket,
      findPublic,
      findAdmin,
      listTickets,
      findIdByNumber,
      lockTicket,
      lockWithTarget,
      updateTicket,
      enqueue: (jobs: ReadonlyArray<NewJob>) => Effect.flatMap(traced(jobs), (withTraces) => enqueue(sql, withTraces)),
      withTransaction: Rows.transaction(sql)
    }
  })

  static readonly layer = Layer.effect(this, this.make)
}
