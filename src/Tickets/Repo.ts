import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { AgentRef } from "../Domain/Events.ts"
import type { Category, Priority, Status } from "../Domain/Fields.ts"
import { isoTimestamp } from "../Domain/Fields.ts"
import type { AdminTicket, Ticket } from "../Domain/Ticket.ts"
import { enqueue, type NewJob, outboxWrites } from "../Jobs/Outbox.ts"

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

export interface LockedTicket {
  readonly id: string
  readonly status: Status
  readonly priority: Priority
  readonly category: Category | null
  readonly sender_email: string | null
  readonly assignee: AgentRef | null
}

interface MessageJson {
  readonly id: string
  readonly author_type: "contact" | "agent" | "system"
  readonly body: string
  readonly created_at: string
  readonly internal: boolean
}

const messagesOf = (rows: ReadonlyArray<MessageJson> | null) =>
  (rows ?? []).map((m) => ({ ...m, created_at: isoTimestamp(m.created_at) }))

const triageValue = <A>(value: A | null, confidence: number | null, source: "ai" | "human" | null) =>
  value === null || source === null ? null : { value, confidence, source }

export class TicketsRepo extends Effect.Service<TicketsRepo>()("app/Tickets/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The contact with this address, created on first sight; a given name refreshes the stored one. */
    const upsertContact = (projectId: string, email: string, name: string | null) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ id: string }>`
          WITH upserted AS (
            INSERT INTO contacts (project_id, email, name) VALUES (${projectId}, ${email}, ${name})
            ON CONFLICT (project_id, email) DO UPDATE SET name = EXCLUDED.name, updated_at = now()
              WHERE EXCLUDED.name IS NOT NULL AND contacts.name IS DISTINCT FROM EXCLUDED.name
            RETURNING id
          )
          SELECT id FROM upserted
          UNION ALL
          SELECT id FROM contacts WHERE project_id = ${projectId} AND email = ${email}
          LIMIT 1`
        if (rows[0] !== undefined) return rows[0].id
        // a concurrent insert committed after this statement's snapshot: now it is visible
        const again = yield* sql<{ id: string }>`
          SELECT id FROM contacts WHERE project_id = ${projectId} AND email = ${email}`
        return again[0]!.id
      })

    /**
     * One statement, so one round trip: records the sender as a contact, takes the next ticket
     * number under the project row's lock, inserts the ticket and its outbox jobs. A failure
     * rolls all of it back, so committed numbers have no gaps.
     */
    const insertTicket = (row: NewTicketRow, jobs: ReadonlyArray<NewJob>) =>
      sql<{ ticket_number: number }>`
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
        SELECT ticket_number FROM ticket`.pipe(Effect.map((rows) => Number(rows[0]!.ticket_number)))

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
        ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)

    const findPublic = (projectId: string, ticketId: string) =>
      sql<{
        id: string
        ticket_number: number
        subject: string
        status: Status
        priority: Priority
        category: Category | null
        created_at: Date
        updated_at: Date
        sender_email: string | null
        messages: ReadonlyArray<MessageJson> | null
      }>`
        SELECT t.id, t.ticket_number, t.subject, t.status, t.priority, t.category, t.created_at,
          t.updated_at, t.sender_email,
          (SELECT json_agg(json_build_object('id', m.id, 'author_type', m.author_type, 'body', m.body,
              'created_at', m.created_at) ORDER BY m.created_at, m.seq)
           FROM messages m WHERE m.ticket_id = t.id AND NOT m.internal) AS messages
        FROM tickets t WHERE t.id = ${ticketId} AND t.project_id = ${projectId}`.pipe(
        Effect.map((rows) => {
          const row = rows[0]
          if (row === undefined) return undefined
          const ticket: Ticket = {
            ticket_id: row.id,
            ticket_number: Number(row.ticket_number),
            subject: row.subject,
            status: row.status,
            priority: row.priority,
            category: row.category,
            created_at: isoTimestamp(row.created_at),
            updated_at: isoTimestamp(row.updated_at),
            messages: messagesOf(row.messages).map(({ internal: _, ...m }) => m)
          }
          return { ticket, senderEmail: row.sender_email }
        })
      )

    const findAdmin = (projectId: string, ticketId: string) =>
      sql<{
        id: string
        ticket_number: number
        subject: string
        status: Status
        priority: Priority
        priority_source: "ai" | "human" | null
        priority_confidence: number | null
        category: Category | null
        category_source: "ai" | "human" | null
        category_confidence: number | null
        sentiment: "negative" | "neutral" | "positive" | null
        sentiment_score: number | null
        sentiment_source: "ai" | "human" | null
        sentiment_confidence: number | null
        triage_status: "pending" | "done" | "failed"
        triage_model: string | null
        source: "api" | "widget" | "email" | "form"
        sender_email: string | null
        sender_name: string | null
        metadata: Record<string, unknown> | null
        duplicate_of: string | null
        linked_issues: ReadonlyArray<unknown>
        created_at: Date
        updated_at: Date
        assignee: AgentRef | null
        tags: ReadonlyArray<string> | null
        messages: ReadonlyArray<MessageJson> | null
        notifications: ReadonlyArray<AdminTicket["notifications"][number]> | null
      }>`
        SELECT t.*,
          (SELECT json_build_object('id', a.id, 'email', a.email, 'name', a.name)
           FROM agents a WHERE a.id = t.assignee_id) AS assignee,
          (SELECT json_agg(g.name ORDER BY lower(g.name))
           FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags,
          (SELECT json_agg(json_build_object('id', m.id, 'author_type', m.author_type, 'body', m.body,
              'created_at', m.created_at, 'internal', m.internal) ORDER BY m.created_at, m.seq)
           FROM messages m WHERE m.ticket_id = t.id) AS messages,
          (SELECT json_agg(json_build_object('notification_id', n.id, 'reason', n.reason, 'message_id', n.message_id,
              'email_status', n.email_status, 'created_at', n.created_at,
              'agent', json_build_object('id', a.id, 'email', a.email, 'name', a.name)) ORDER BY n.created_at, n.id)
           FROM notifications n JOIN agents a ON a.id = n.agent_id WHERE n.ticket_id = t.id) AS notifications
        FROM tickets t WHERE t.id = ${ticketId} AND t.project_id = ${projectId}`.pipe(
        Effect.map((rows): AdminTicket | undefined => {
          const row = rows[0]
          if (row === undefined) return undefined
          return {
            ticket_id: row.id,
            ticket_number: Number(row.ticket_number),
            subject: row.subject,
            status: row.status,
            priority: row.priority,
            category: row.category,
            created_at: isoTimestamp(row.created_at),
            updated_at: isoTimestamp(row.updated_at),
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
            messages: messagesOf(row.messages),
            notifications: (row.notifications ?? []).map((n) => ({ ...n, created_at: isoTimestamp(n.created_at) }))
          }
        })
      )

    /** Locks the ticket for the rest of the transaction, so concurrent changes apply in turn. */
    const lockTicket = (projectId: string, ticketId: string) =>
      sql<LockedTicket>`
        SELECT t.id, t.status, t.priority, t.category, t.sender_email,
          (SELECT json_build_object('id', a.id, 'email', a.email, 'name', a.name)
           FROM agents a WHERE a.id = t.assignee_id) AS assignee
        FROM tickets t WHERE t.id = ${ticketId} AND t.project_id = ${projectId}
        FOR UPDATE OF t`.pipe(Effect.map((rows): LockedTicket | undefined => rows[0]))

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
      sql<{ id: string }>`
        INSERT INTO messages (project_id, ticket_id, author_type, contact_id, agent_id, body, internal, created_at)
        VALUES (${message.projectId}, ${message.ticketId}, ${message.authorType}, ${message.contactId},
          ${message.agentId}, ${message.body}, ${message.internal}, ${message.createdAt})
        RETURNING id`.pipe(Effect.map((rows) => rows[0]!.id))

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
          WHERE id = ${ticketId}`.pipe(Effect.asVoid)

    const findAgent = (projectId: string, email: string) =>
      sql<AgentRef>`SELECT id, email, name FROM agents WHERE project_id = ${projectId} AND email = ${email}`.pipe(
        Effect.map((rows): AgentRef | undefined => rows[0])
      )

    return {
      upsertContact: (projectId: string, email: string, name: string | null) =>
        Effect.orDie(upsertContact(projectId, email, name)),
      insertTicket: (row: NewTicketRow, jobs: ReadonlyArray<NewJob>) => Effect.orDie(insertTicket(row, jobs)),
      tagTicket: (projectId: string, ticketId: string, tags: ReadonlyArray<string>) =>
        Effect.orDie(tagTicket(projectId, ticketId, tags)),
      findPublic: (projectId: string, ticketId: string) => Effect.orDie(findPublic(projectId, ticketId)),
      findAdmin: (projectId: string, ticketId: string) => Effect.orDie(findAdmin(projectId, ticketId)),
      lockTicket: (projectId: string, ticketId: string) => Effect.orDie(lockTicket(projectId, ticketId)),
      insertMessage: (message: Parameters<typeof insertMessage>[0]) => Effect.orDie(insertMessage(message)),
      updateTicket: (ticketId: string, change: Parameters<typeof updateTicket>[1]) =>
        Effect.orDie(updateTicket(ticketId, change)),
      findAgent: (projectId: string, email: string) => Effect.orDie(findAgent(projectId, email)),
      enqueue: (jobs: ReadonlyArray<NewJob>) => Effect.orDie(enqueue(sql, jobs)),
      /** The database failing to commit is a defect here, like every other SqlError. */
      withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        sql.withTransaction(effect).pipe(
          Effect.catchIf((error): error is SqlError => error instanceof SqlError, Effect.die)
        ) as Effect.Effect<A, E, R>
    } as const
  })
}) {}
