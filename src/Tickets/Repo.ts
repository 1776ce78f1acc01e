import { Context, Effect, Layer, Option, Schema, Struct } from "effect"
import { SqlClient } from "effect/sql"
import * as Grouped from "../Database/Grouped.ts"
import * as Rows from "../Database/Rows.ts"
import { candidatesPerTicket, type DuplicateCandidate, type DuplicateMatch } from "./Duplicates.ts"
import type { AgentRef } from "../Domain/Events.ts"
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
import type { Cursor } from "../Domain/Cursor.ts"
import type { NewJob } from "../Domain/Jobs.ts"
import {
  type AdminTicket,
  AuthorType,
  type LinkedIssue,
  EmailStatus,
  type Ticket,
  type TicketListItem,
  TriageSource,
  TriageStatus
} from "../Domain/Ticket.ts"
import { enqueue, outboxWrites, traced } from "../Jobs/Outbox.ts"

interface NewTicket {
  readonly row: NewTicketRow
  readonly jobs: ReadonlyArray<NewJob>
}

export interface NewTicketRow {
  readonly id: string
  readonly projectId: string
  readonly subject: string
  readonly body: string
  readonly priority: Priority
  readonly priorityGiven: boolean
  readonly source: string
  readonly senderEmail: string | null
  readonly senderName: string | null
  readonly metadata: Record<string, unknown> | null
  readonly createdAt: string
}

const AgentRow = Schema.Struct({ id: Schema.String, email: Schema.String, name: Schema.String })

/** A ticket as a transaction holds it locked: what changes and events are decided from. */
const LockedRow = Schema.Struct({
  id: Schema.String,
  status: Status,
  priority: Priority,
  category: Schema.NullOr(Category),
  sender_email: Schema.NullOr(Schema.String),
  contact_id: Schema.NullOr(Schema.String),
  source: Source,
  body: Schema.String,
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  assignee: Schema.NullOr(AgentRow)
})
export type LockedTicket = typeof LockedRow.Type

const MessageRow = Schema.Struct({
  id: Schema.String,
  author_type: AuthorType,
  body: Schema.String,
  created_at: TimestampText,
  internal: Schema.Boolean
})

const PublicRow = Schema.Struct({
  id: Schema.String,
  ticket_number: IntFromRow,
  subject: Schema.String,
  status: Status,
  priority: Priority,
  category: Schema.NullOr(Category),
  created_at: TimestampText,
  updated_at: TimestampText,
  sender_email: Schema.NullOr(Schema.String),
  messages: Schema.NullOr(Schema.Array(MessageRow))
})

const ContactRow = Schema.Struct({ id: Schema.String, email: Schema.String, name: Schema.NullOr(Schema.String) })

const NotificationRow = Schema.Struct({
  notification_id: Schema.String,
  agent: Schema.NullOr(AgentRow),
  contact: Schema.NullOr(ContactRow),
  reason: Schema.String,
  message_id: Schema.NullOr(Schema.String),
  email_status: EmailStatus,
  created_at: TimestampFromRow
})

const AdminRow = Schema.Struct({
  ...PublicRow.fields,
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
  metadata: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  duplicate_of: Schema.NullOr(Schema.String),
  linked_issues: Schema.Array(Schema.Unknown),
  assignee: Schema.NullOr(AgentRow),
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  notifications: Schema.NullOr(Schema.Array(NotificationRow))
})

/** What triage and the error tracker read: the ticket as submitted. */
const SubmittedRow = Schema.Struct({
  id: Schema.String,
  project_id: Schema.String,
  subject: Schema.String,
  body: Schema.String,
  sender_email: Schema.NullOr(Schema.String),
  source: Schema.String,
  metadata: Schema.Unknown,
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  linked_issues: Schema.Array(Schema.Unknown)
})
export type SubmittedTicket = typeof SubmittedRow.Type

/** A ticket as lists show it, with the exact sort key of the `updated` order for its cursor. */
const ListRow = Schema.Struct({
  ...Struct.omit(PublicRow.fields, ["messages"]),
  source: Source,
  sender_name: Schema.NullOr(Schema.String),
  assignee: Schema.NullOr(AgentRow),
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  updated_key: Schema.String
})

/** A ticket of a list, and where the list's cursor would stand after it. */
export interface ListedTicket {
  readonly ticket: TicketListItem
  /** updated_at to the microsecond, as stored */
  readonly updatedKey: string
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
  readonly text?: string | undefined
}

export interface TicketPage {
  readonly order: "created" | "updated"
  /** the cursor of the previous page's last ticket, of the same order */
  readonly after: Cursor | undefined
  /** rows read; a caller asks one more than it shows, to know whether another page follows */
  readonly rows: number
}

const TicketNumberRow = Schema.Struct({ ticket_number: IntFromRow })
const NumberedRow = Schema.Struct({ id: Schema.String, ticket_number: IntFromRow })
const Id = Schema.Struct({ id: Schema.String })

const CandidateRow = Schema.Struct({
  id: Schema.String,
  project_id: Schema.String,
  ticket_number: IntFromRow,
  subject: Schema.String,
  body: Schema.String,
  sender_email: Schema.NullOr(Schema.String),
  created_micros: Schema.Number,
  checked: Schema.Boolean,
  candidate: Schema.Boolean
})

/** The fields every read of a ticket shows. */
const ticketFields = (row: Omit<typeof PublicRow.Type, "messages">) => ({
  ticket_id: row.id,
  ticket_number: row.ticket_number,
  subject: row.subject,
  status: row.status,
  priority: row.priority,
  category: row.category,
  created_at: row.created_at,
  updated_at: row.updated_at
})

const triageValue = <A>(value: A | null, confidence: number | null, source: "ai" | "human" | null) =>
  value === null || source === null ? null : { value, confidence, source }

/** The result of triage as the ticket stores it. */
export interface TriageWrite {
  readonly category: { readonly value: Category; readonly confidence: number }
  readonly priority: { readonly value: Priority; readonly confidence: number }
  readonly sentiment: { readonly value: Sentiment; readonly confidence: number; readonly score: number }
  readonly model: string
}

export class TicketsRepo extends Context.Service<TicketsRepo>()("app/Tickets/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The contact with this address, created on first sight; a given name refreshes the stored one. */
    const upsertContact = (projectId: string, email: string, name: string | null) =>
      Effect.gen(function*() {
        const found = yield* sql`
          WITH upserted AS (
            INSERT INTO contacts (project_id, email, name) VALUES (${projectId}, ${email}, ${name})
            ON CONFLICT (project_id, email) DO UPDATE SET name = EXCLUDED.name, updated_at = now()
              WHERE EXCLUDED.name IS NOT NULL AND contacts.name IS DISTINCT FROM EXCLUDED.name
            RETURNING id
          )
          SELECT id FROM upserted
          UNION ALL
          SELECT id FROM contacts WHERE project_id = ${projectId} AND email = ${email}
          LIMIT 1`.pipe(Rows.first(Id))
        if (Option.isSome(found)) return found.value.id
        // a concurrent insert committed after this statement's snapshot: now it is visible
        const again = yield* sql`SELECT id FROM contacts WHERE project_id = ${projectId} AND email = ${email}`.pipe(
          Rows.single(Id)
        )
        return again.id
      })

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
          ON CONFLICT (project_id, email) DO UPDATE SET name = coalesce(EXCLUDED.name, contacts.name)
          RETURNING id
        ), seq AS (
          UPDATE projects SET ticket_seq = ticket_seq + 1 WHERE id = ${row.projectId} RETURNING ticket_seq
        ), ticket AS (
          INSERT INTO tickets (id, project_id, ticket_number, subject, body, priority, priority_source,
            priority_confidence, source, sender_email, sender_name, contact_id, metadata, created_at, updated_at)
          SELECT ${row.id}::uuid, ${row.projectId}::uuid, seq.ticket_seq, ${row.subject}, ${row.body},
            ${row.priority}, ${row.priorityGiven ? "human" : null}, ${row.priorityGiven ? 1 : null}::float8,
            ${row.source}, ${row.senderEmail}, ${row.senderName}, (SELECT id FROM contact),
            ${row.metadata === null ? null : JSON.stringify(row.metadata)}::jsonb,
            ${row.createdAt}::timestamptz, ${row.createdAt}::timestamptz
          FROM seq
          RETURNING id, ticket_number
        ), ${outboxWrites(sql, jobs)}
        SELECT ticket_number FROM ticket`.pipe(Rows.single(TicketNumberRow), Effect.map((r) => r.ticket_number))

    /**
     * The same as `insertOne` for many tickets, of any projects, in one statement: each project
     * row is locked once (in id order, so two batches never wait on each other in a circle) and
     * its counter moves by the batch's count; the tickets take the numbers in the order given. A
     * sender who appears twice is one contact, with the last name given, as one after the other
     * would leave it. Answers the numbers in the order of `tickets`.
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
          metadata: row.metadata,
          created_at: row.createdAt
        })))
      }::jsonb) AS e(ord int, id uuid, project_id uuid, subject text, body text, priority text, priority_given boolean,
            source text, sender_email text, sender_name text, metadata jsonb, created_at timestamptz)
        ), sender AS (
          SELECT DISTINCT ON (project_id, sender_email) project_id, sender_email, sender_name FROM entry
          WHERE sender_email IS NOT NULL
          ORDER BY project_id, sender_email, sender_name IS NULL, ord DESC
        ), contact AS (
          INSERT INTO contacts (project_id, email, name) SELECT project_id, sender_email, sender_name FROM sender
          ON CONFLICT (project_id, email) DO UPDATE SET name = coalesce(EXCLUDED.name, contacts.name)
          RETURNING id, project_id, email
        ), taken AS (
          SELECT project_id, count(*)::int AS n FROM entry GROUP BY project_id
        ), locked AS (
          SELECT id FROM projects WHERE id = ANY(ARRAY(SELECT project_id FROM taken)) ORDER BY id FOR UPDATE
        ), seq AS (
          UPDATE projects SET ticket_seq = projects.ticket_seq + taken.n FROM taken
          WHERE projects.id = taken.project_id AND projects.id = ANY(ARRAY(SELECT id FROM locked))
          RETURNING projects.id, projects.ticket_seq - taken.n AS before
        ), ticket AS (
          INSERT INTO tickets (id, project_id, ticket_number, subject, body, priority, priority_source,
            priority_confidence, source, sender_email, sender_name, contact_id, metadata, created_at, updated_at)
          SELECT e.id, e.project_id, seq.before + row_number() OVER (PARTITION BY e.project_id ORDER BY e.ord),
            e.subject, e.body, e.priority, CASE WHEN e.priority_given THEN 'human' END,
            CASE WHEN e.priority_given THEN 1::float8 END, e.source, e.sender_email, e.sender_name,
            (SELECT c.id FROM contact c WHERE c.project_id = e.project_id AND c.email = e.sender_email),
            e.metadata, e.created_at, e.created_at
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

    const tagTicket = (projectId: string, ticketId: string, tags: ReadonlyArray<string>) =>
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
    const messagesOf = (options: { readonly public: boolean }) =>
      sql`(SELECT json_agg(json_build_object('id', m.id, 'author_type', m.author_type, 'body', m.body,
              'created_at', ${Rows.isoUtc(sql, "m.created_at")}, 'internal', m.internal) ORDER BY m.created_at, m.seq)
           FROM messages m WHERE m.ticket_id = t.id ${options.public ? sql`AND NOT m.internal` : sql``})`

    // the parts that never change, built once rather than on every read
    const publicConversation = messagesOf({ public: true })
    const wholeConversation = messagesOf({ public: false })
    const createdAt = Rows.isoUtc(sql, "t.created_at")
    const updatedAt = Rows.isoUtc(sql, "t.updated_at")
    const ticketTimes = sql`${createdAt} AS created_at, ${updatedAt} AS updated_at`

    // every ticket read of the published API runs this one
    const publicTicket = Rows.compiledOnce(sql, (projectId: string, ticketId: string) =>
      sql`
        SELECT t.id, t.ticket_number, t.subject, t.status, t.priority, t.category,
          ${ticketTimes}, t.sender_email, ${publicConversation} AS messages
        FROM tickets t WHERE t.id = ${ticketId} AND t.project_id = ${projectId}`)

    const findPublic = (projectId: string, ticketId: string) =>
      publicTicket(projectId, ticketId).pipe(
        Rows.first(PublicRow),
        Effect.map(Option.map((row) => ({
          ticket: {
            ...ticketFields(row),
            messages: (row.messages ?? []).map(({ internal: _, ...message }) => message)
          } satisfies Ticket,
          senderEmail: row.sender_email
        })))
      )

    const findAdmin = (projectId: string, ticketId: string) =>
      sql`
        SELECT t.id, t.ticket_number, t.subject, t.status, t.priority, t.category,
          ${ticketTimes}, t.sender_email, t.sender_name, t.source, t.metadata, t.duplicate_of, t.linked_issues,
          t.priority_source, t.priority_confidence, t.category_source, t.category_confidence,
          t.sentiment, t.sentiment_score, t.sentiment_source, t.sentiment_confidence, t.triage_status, t.triage_model,
          (SELECT json_build_object('id', a.id, 'email', a.email, 'name', a.name)
           FROM agents a WHERE a.id = t.assignee_id) AS assignee,
          (SELECT json_agg(g.name ORDER BY lower(g.name))
           FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags,
          ${wholeConversation} AS messages,
          (SELECT json_agg(json_build_object('notification_id', n.id, 'reason', n.reason, 'message_id', n.message_id,
              'email_status', n.email_status, 'created_at', n.created_at,
              'agent', CASE WHEN a.id IS NULL THEN NULL ELSE json_build_object('id', a.id, 'email', a.email, 'name', a.name) END,
              'contact', CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('id', c.id, 'email', c.email, 'name', c.name) END)
              ORDER BY n.created_at, n.id)
           FROM notifications n LEFT JOIN agents a ON a.id = n.agent_id LEFT JOIN contacts c ON c.id = n.contact_id
           WHERE n.ticket_id = t.id) AS notifications
        FROM tickets t WHERE t.id = ${ticketId} AND t.project_id = ${projectId}`.pipe(
        Rows.first(AdminRow),
        Effect.map(Option.map((row): AdminTicket => ({
          ...ticketFields(row),
          sentiment: row.sentiment,
          sentiment_score: row.sentiment_score,
          tags: row.tags ?? [],
          metadata: row.metadata,
          source: row.source,
          sender_email: row.sender_email,
          sender_name: row.sender_name,
          assignee: row.assignee,
          duplicate_of: row.duplicate_of,
          linked_issues: row.linked_issues,
          triage: {
            status: row.triage_status,
            model: row.triage_model,
            category: triageValue(row.category, row.category_confidence, row.category_source),
            priority: triageValue(row.priority, row.priority_confidence, row.priority_source),
            sentiment: triageValue(row.sentiment, row.sentiment_confidence, row.sentiment_source)
          },
          messages: row.messages ?? [],
          notifications: row.notifications ?? []
        })))
      )

    // updated_at to the microsecond, as it is stored: a cursor that kept milliseconds would skip
    // or repeat tickets updated within the same millisecond
    const exactUpdatedAt = sql.literal(`to_char(t.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`)

    /**
     * A page of the project's tickets, newest (or most recently updated) first, after the cursor:
     * keyset paging on a unique key, so tickets created between two pages never shift the pages
     * that follow. Ticket numbers are unique per project and committed in order (the project row
     * is locked from taking a number to the commit), so the `created` order pages on them alone;
     * several tickets can share a created_at when their creates were written in one statement.
     */
    const listTickets = (projectId: string, filter: TicketFilter, page: TicketPage) => {
      const after = page.after
      return sql`
        SELECT t.id, t.ticket_number, t.subject, t.status, t.priority, t.category, t.source,
          t.sender_email, t.sender_name, ${ticketTimes}, ${exactUpdatedAt} AS updated_key,
          (SELECT json_build_object('id', a.id, 'email', a.email, 'name', a.name)
           FROM agents a WHERE a.id = t.assignee_id) AS assignee,
          (SELECT json_agg(g.name ORDER BY lower(g.name))
           FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags
        FROM tickets t
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
          ${filter.text === undefined ? sql`` : sql`AND t.search @@ websearch_to_tsquery('english', ${filter.text})`}
          ${
        after === undefined
          ? sql``
          : after.order === "created"
          ? sql`AND t.ticket_number < ${after.number}`
          : sql`AND (t.updated_at, t.id) < (${after.at}::timestamptz, ${after.id}::uuid)`
      }
        ORDER BY ${page.order === "created" ? sql`t.ticket_number DESC` : sql`t.updated_at DESC, t.id DESC`}
        LIMIT ${page.rows}`.pipe(
        Rows.all(ListRow),
        Effect.map((rows) =>
          rows.map((row): ListedTicket => ({
            ticket: {
              ...ticketFields(row),
              source: row.source,
              sender_email: row.sender_email,
              sender_name: row.sender_name,
              assignee: row.assignee,
              tags: row.tags ?? []
            },
            updatedKey: row.updated_key
          }))
        )
      )
    }

    const findIdByNumber = (projectId: string, ticketNumber: number) =>
      sql`SELECT id FROM tickets WHERE project_id = ${projectId} AND ticket_number = ${ticketNumber}`.pipe(
        Rows.first(Id),
        Effect.map(Option.map((row) => row.id))
      )

    /** Locks the ticket for the rest of the transaction, so concurrent changes apply in turn. */
    const lockTicket = (projectId: string, ticketId: string) =>
      sql`
        SELECT t.id, t.status, t.priority, t.category, t.sender_email, t.contact_id, t.source, t.body,
          (SELECT json_agg(g.name) FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags,
          (SELECT json_build_object('id', a.id, 'email', a.email, 'name', a.name)
           FROM agents a WHERE a.id = t.assignee_id) AS assignee
        FROM tickets t WHERE t.id = ${ticketId} AND t.project_id = ${projectId}
        FOR UPDATE OF t`.pipe(Rows.first(LockedRow))

    const insertMessage = (message: {
      readonly projectId: string
      readonly ticketId: string
      readonly authorType: "contact" | "agent" | "system"
      readonly contactId: string | null
      readonly agentId: string | null
      readonly body: string
      readonly internal: boolean
      readonly createdAt: string
    }) =>
      sql`
        INSERT INTO messages (project_id, ticket_id, author_type, contact_id, agent_id, body, internal, created_at)
        VALUES (${message.projectId}, ${message.ticketId}, ${message.authorType}, ${message.contactId},
          ${message.agentId}, ${message.body}, ${message.internal}, ${message.createdAt})
        RETURNING id`.pipe(Rows.single(Id), Effect.map((row) => row.id))

    const updateTicket = (ticketId: string, change: {
      readonly status?: Status | undefined
      readonly priority?: Priority | undefined
      readonly category?: Category | undefined
      readonly assigneeId?: string | null | undefined
      readonly updatedAt: string
    }) =>
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
            updated_at = ${change.updatedAt}
          WHERE id = ${ticketId}`.pipe(Rows.run)

    const findAgent = (projectId: string, email: string) =>
      sql`SELECT id, email, name FROM agents WHERE project_id = ${projectId} AND email = ${email}`.pipe(
        Rows.first(AgentRow),
        Effect.map((found): Option.Option<AgentRef> => found)
      )

    /** The tickets as submitted, for the follow-up jobs; a ticket that is gone is left out. */
    const findSubmittedMany = (ticketIds: ReadonlyArray<string>) =>
      sql`
        SELECT t.id, t.project_id, t.subject, t.body, t.sender_email, t.source, t.metadata, t.linked_issues,
          (SELECT json_agg(g.name) FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags
        FROM tickets t WHERE t.id = ANY(ARRAY(SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(ticketIds)}::jsonb)))`
        .pipe(Rows.all(SubmittedRow))

    const findSubmitted = (ticketId: string) =>
      Effect.map(findSubmittedMany([ticketId]), (rows) => Option.fromUndefinedOr(rows[0]))

    /**
     * One statement for a batch of triaged tickets: the results, and then the ticket_created rules
     * (if the project has any), now that there is a category to test. A value a person set (the
     * submitter's priority, an agent's change) is theirs to keep. The rules' job id derives from
     * the triage job's, so a second run of that job queues nothing more.
     */
    const applyTriage = (results: ReadonlyArray<{
      readonly ticketId: string
      readonly result: TriageWrite
      readonly automation: { readonly jobId: string; readonly payload: string | null; readonly runAt: string }
    }>) =>
      results.length === 0 ? Effect.void : sql`
        WITH results AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(results.map(({ automation, result, ticketId }) => ({
        ticket_id: ticketId,
        category: result.category.value,
        category_confidence: result.category.confidence,
        priority: result.priority.value,
        priority_confidence: result.priority.confidence,
        sentiment: result.sentiment.value,
        sentiment_score: result.sentiment.score,
        sentiment_confidence: result.sentiment.confidence,
        model: result.model,
        job_id: automation.jobId,
        payload: automation.payload,
        run_at: automation.runAt
      })))}::jsonb) AS r(ticket_id uuid, category text, category_confidence float8, priority text,
            priority_confidence float8, sentiment text, sentiment_score float8, sentiment_confidence float8,
            model text, job_id text, payload text, run_at timestamptz)
        ), triaged AS (
          UPDATE tickets t SET
            category = CASE WHEN t.category_source = 'human' THEN t.category ELSE r.category END,
            category_confidence = CASE WHEN t.category_source = 'human' THEN t.category_confidence
                                  ELSE r.category_confidence END,
            category_source = CASE WHEN t.category_source = 'human' THEN 'human' ELSE 'ai' END,
            priority = CASE WHEN t.priority_source = 'human' THEN t.priority ELSE r.priority END,
            priority_confidence = CASE WHEN t.priority_source = 'human' THEN t.priority_confidence
                                  ELSE r.priority_confidence END,
            priority_source = CASE WHEN t.priority_source = 'human' THEN 'human' ELSE 'ai' END,
            sentiment = CASE WHEN t.sentiment_source = 'human' THEN t.sentiment ELSE r.sentiment END,
            sentiment_score = CASE WHEN t.sentiment_source = 'human' THEN t.sentiment_score ELSE r.sentiment_score END,
            sentiment_confidence = CASE WHEN t.sentiment_source = 'human' THEN t.sentiment_confidence
                                   ELSE r.sentiment_confidence END,
            sentiment_source = CASE WHEN t.sentiment_source = 'human' THEN 'human' ELSE 'ai' END,
            triage_status = 'done',
            triage_model = r.model
          FROM results r
          WHERE t.id = ANY(ARRAY(SELECT ticket_id FROM results)) AND t.id = r.ticket_id
          RETURNING t.id, t.project_id, r.job_id, r.payload, r.run_at
        )
        INSERT INTO jobs (id, kind, project_id, ticket_id, payload, run_at)
        SELECT md5(triaged.job_id || ':automation')::uuid, 'automation', triaged.project_id, triaged.id,
          triaged.payload::jsonb, triaged.run_at
        FROM triaged
        WHERE triaged.payload IS NOT NULL
          AND EXISTS (SELECT 1 FROM automation_rules r WHERE r.project_id = triaged.project_id AND r.event = 'ticket_created')
        ON CONFLICT (id) DO NOTHING`.pipe(Rows.run)

    /**
     * A batch's tickets and every ticket one of them may repeat (Tickets/Duplicates scores them):
     * for each, the project's 100 newest open tickets not marked themselves that came before it,
     * within 30 days, newest first. One snapshot, so the tickets of a batch see each other as they
     * were when it began, as checks running side by side always did.
     */
    const duplicateCandidates = (ticketIds: ReadonlyArray<string>) =>
      ticketIds.length === 0 ? Effect.succeed([]) : sql`
        WITH t AS (
          SELECT id, project_id, ticket_number, created_at FROM tickets
          WHERE id = ANY(ARRAY(SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(ticketIds)}::jsonb)))
        ), candidates AS (
          SELECT c.id FROM t CROSS JOIN LATERAL (
            SELECT c.id FROM tickets c
            WHERE c.project_id = t.project_id AND c.ticket_number < t.ticket_number
              AND c.status NOT IN ('resolved', 'closed') AND c.duplicate_of IS NULL
              AND c.created_at <= t.created_at AND c.created_at > t.created_at - interval '30 days'
            ORDER BY c.created_at DESC, c.ticket_number DESC
            LIMIT ${candidatesPerTicket}
          ) c
        )
        SELECT x.id, x.project_id, x.ticket_number, x.subject, left(x.body, 300) AS body, x.sender_email,
          (extract(epoch FROM x.created_at) * 1000000)::float8 AS created_micros,
          x.id IN (SELECT id FROM t) AS checked, x.id IN (SELECT id FROM candidates) AS candidate
        FROM tickets x
        WHERE x.id = ANY(ARRAY(SELECT id FROM t UNION SELECT id FROM candidates))
        ORDER BY x.created_at DESC, x.ticket_number DESC`.pipe(
        Rows.all(CandidateRow),
        Effect.map((rows) =>
          rows.map((row): DuplicateCandidate => ({
            id: row.id,
            projectId: row.project_id,
            ticketNumber: row.ticket_number,
            subject: row.subject,
            body: row.body,
            senderEmail: row.sender_email,
            createdMicros: row.created_micros,
            checked: row.checked,
            candidate: row.candidate
          }))
        )
      )

    /**
     * Marks each ticket as a duplicate of its match, with an internal note, in one statement; a
     * ticket marked already (a second run of its check) gets no second mark and no second note.
     */
    const markDuplicates = (matches: ReadonlyArray<DuplicateMatch>, now: string) =>
      matches.length === 0 ? Effect.void : sql`
        WITH best AS (
          SELECT * FROM jsonb_to_recordset(${
        JSON.stringify(matches.map((match) => ({
          ticket_id: match.ticketId,
          id: match.duplicateOf,
          ticket_number: match.duplicateOfNumber,
          score: match.score
        })))
      }::jsonb) AS b(ticket_id uuid, id uuid, ticket_number int, score float8)
        ), marked AS (
          UPDATE tickets SET duplicate_of = best.id FROM best
          WHERE tickets.id = ANY(ARRAY(SELECT ticket_id FROM best)) AND tickets.id = best.ticket_id
            AND tickets.duplicate_of IS NULL
          RETURNING tickets.id, tickets.project_id
        )
        INSERT INTO messages (project_id, ticket_id, author_type, body, internal, created_at)
        SELECT marked.project_id, marked.id, 'system',
          'Possible duplicate of ticket #' || best.ticket_number || ' (similarity ' || to_char(best.score, 'FM0.00') || ').',
          true, ${now}
        FROM marked JOIN best ON best.ticket_id = marked.id`.pipe(Rows.run)

    /** Adds error-tracker issues to the ticket with an internal note, in one transaction. */
    const linkIssues = (ticket: { readonly id: string; readonly project_id: string }, issues: ReadonlyArray<LinkedIssue>, note: string, now: string) =>
      sql`
        WITH linked AS (
          UPDATE tickets SET linked_issues = linked_issues || ${JSON.stringify(issues)}::jsonb WHERE id = ${ticket.id}
          RETURNING id
        )
        INSERT INTO messages (project_id, ticket_id, author_type, body, internal, created_at)
        SELECT ${ticket.project_id}, linked.id, 'system', ${note}, true, ${now} FROM linked`.pipe(Rows.run)

    /** The issues linked so far, with the ticket locked until the transaction ends. */
    const lockLinkedIssues = (ticketId: string) =>
      sql`SELECT linked_issues FROM tickets WHERE id = ${ticketId} FOR UPDATE`.pipe(
        Rows.first(Schema.Struct({ linked_issues: Schema.Array(Schema.Unknown) })),
        Effect.map(Option.match({ onNone: () => [], onSome: (row) => row.linked_issues }))
      )

    return {
      upsertContact,
      insertTicket,
      tagTicket,
      findPublic,
      findAdmin,
      listTickets,
      findIdByNumber,
      lockTicket,
      insertMessage,
      updateTicket,
      findAgent,
      findSubmitted,
      findSubmittedMany,
      applyTriage,
      duplicateCandidates,
      markDuplicates,
      linkIssues,
      lockLinkedIssues,
      enqueue: (jobs: ReadonlyArray<NewJob>) => Effect.flatMap(traced(jobs), (withTraces) => enqueue(sql, withTraces)),
      withTransaction: Rows.transaction(sql)
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
