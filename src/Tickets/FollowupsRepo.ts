import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import type { Category, Priority, Sentiment } from "../Domain/Fields.ts"
import { IntFromRow } from "../Domain/Fields.ts"
import { type ProjectId, ProjectIdFromRow, type TicketId, TicketIdFromRow } from "../Domain/Ids.ts"
import type { LinkedIssue } from "../Domain/Ticket.ts"
import { candidatesPerTicket, type DuplicateCandidate, type DuplicateMatch } from "./Duplicates.ts"

/** What triage and the error tracker read: the ticket as submitted. */
const SubmittedRow = Schema.Struct({
  id: TicketIdFromRow,
  project_id: ProjectIdFromRow,
  subject: Schema.String,
  body: Schema.String,
  sender_email: Schema.NullOr(Schema.String),
  source: Schema.String,
  metadata: Schema.Unknown,
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  linked_issues: Schema.Array(Schema.Unknown)
})
export type SubmittedTicket = typeof SubmittedRow.Type

const CandidateRow = Schema.Struct({
  id: TicketIdFromRow,
  project_id: ProjectIdFromRow,
  ticket_number: IntFromRow,
  subject: Schema.String,
  body: Schema.String,
  sender_email: Schema.NullOr(Schema.String),
  created_micros: Schema.Number,
  checked: Schema.Boolean,
  candidate: Schema.Boolean
})

/** The result of triage as the ticket stores it. */
export interface TriageWrite {
  readonly category: { readonly value: Category; readonly confidence: number }
  readonly priority: { readonly value: Priority; readonly confidence: number }
  readonly sentiment: { readonly value: Sentiment; readonly confidence: number; readonly score: number }
  readonly model: string
}

/** A ticket's triage, with the automation job its ticket_created event queues once there is a category. */
export interface TriageResultWrite {
  readonly ticketId: TicketId
  readonly result: TriageWrite
  readonly automation: { readonly jobId: string; readonly payload: string | null; readonly runAt: string }
}

/**
 * What the work that follows a new ticket reads and writes: the ticket as submitted, triage
 * results, duplicate marks and error-tracker links, each with its internal note. Every write
 * keeps what is there (a person's value, an earlier mark or link), so a job may run again.
 */
export interface FollowupsRepoShape {
  readonly findSubmitted: (ticketId: TicketId) => Effect.Effect<Option.Option<SubmittedTicket>>
  /** A ticket that is gone is left out. */
  readonly findSubmittedMany: (ticketIds: ReadonlyArray<TicketId>) => Effect.Effect<ReadonlyArray<SubmittedTicket>>
  readonly applyTriage: (results: ReadonlyArray<TriageResultWrite>) => Effect.Effect<void>
  /** The tickets and every earlier open ticket each may repeat, newest first. */
  readonly duplicateCandidates: (ticketIds: ReadonlyArray<TicketId>) => Effect.Effect<ReadonlyArray<DuplicateCandidate>>
  readonly markDuplicates: (matches: ReadonlyArray<DuplicateMatch>, now: string) => Effect.Effect<void>
  /** The issues linked so far, with the ticket locked until the transaction ends. */
  readonly lockLinkedIssues: (ticketId: TicketId) => Effect.Effect<ReadonlyArray<unknown>>
  readonly linkIssues: (
    ticket: { readonly id: TicketId; readonly project_id: ProjectId },
    issues: ReadonlyArray<LinkedIssue>,
    note: string,
    now: string
  ) => Effect.Effect<void>
}

export class FollowupsRepo extends Context.Service<FollowupsRepo, FollowupsRepoShape>()("app/Tickets/FollowupsRepo") {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The tickets as submitted, for the follow-up jobs; a ticket that is gone is left out. */
    const findSubmittedMany = (ticketIds: ReadonlyArray<TicketId>) =>
      sql`
        SELECT t.id, t.project_id, t.subject, t.body, t.sender_email, t.source, t.metadata, t.linked_issues,
          (SELECT json_agg(g.name) FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags
        FROM tickets t WHERE t.id = ANY(ARRAY(SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(ticketIds)}::jsonb)))`
        .pipe(Rows.all(SubmittedRow))

    const findSubmitted = (ticketId: TicketId) =>
      Effect.map(findSubmittedMany([ticketId]), (rows) => Option.fromUndefinedOr(rows[0]))

    /**
     * One statement for a batch of triaged tickets: the results, and then the ticket_created rules
     * (if the project has any) and the SLA update (if it has a policy), now that there is a
     * category to test. A value a person set (the
     * submitter's priority, an agent's change) is theirs to keep. The rules' job id derives from
     * the triage job's, so a second run of that job queues nothing more.
     */
    const applyTriage = (results: ReadonlyArray<TriageResultWrite>) =>
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
        ), locked AS (
          -- in id order, as the duplicate check locks them: in the order of the batch, the two batches
          -- of the same tickets could each hold one the other waits for
          SELECT id FROM tickets WHERE id = ANY(ARRAY(SELECT ticket_id FROM results)) ORDER BY id FOR NO KEY UPDATE
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
          WHERE t.id = ANY(ARRAY(SELECT id FROM locked)) AND t.id = r.ticket_id
          RETURNING t.id, t.project_id, r.job_id, r.payload, r.run_at
        )
        INSERT INTO jobs (id, kind, project_id, ticket_id, payload, run_at)
        SELECT md5(triaged.job_id || ':automation')::uuid, 'automation', triaged.project_id, triaged.id,
          triaged.payload::jsonb, triaged.run_at
        FROM triaged
        WHERE triaged.payload IS NOT NULL
          AND EXISTS (SELECT 1 FROM automation_rules r WHERE r.project_id = triaged.project_id AND r.event = 'ticket_created')
        UNION ALL
        -- the ticket's due times, now that the policies can see its triaged priority and category
        SELECT md5(triaged.job_id || ':sla')::uuid, 'sla_update', triaged.project_id, triaged.id, '{}'::jsonb, triaged.run_at
        FROM triaged
        WHERE EXISTS (SELECT 1 FROM sla_policies p WHERE p.project_id = triaged.project_id)
        ON CONFLICT (id) DO NOTHING`.pipe(Rows.run)

    /**
     * A batch's tickets and every ticket one of them may repeat (Tickets/Duplicates scores them):
     * for each, the project's 100 newest open tickets not marked themselves that came before it,
     * within 30 days, newest first. One snapshot, so the tickets of a batch see each other as they
     * were when it began, as checks running side by side always did.
     */
    const duplicateCandidates = (ticketIds: ReadonlyArray<TicketId>) =>
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
        ), locked AS (
          -- in id order, as triage locks them: the matches come newest first, the other way round from triage's
          SELECT id FROM tickets WHERE id = ANY(ARRAY(SELECT ticket_id FROM best)) ORDER BY id FOR NO KEY UPDATE
        ), marked AS (
          UPDATE tickets SET duplicate_of = best.id FROM best
          WHERE tickets.id = ANY(ARRAY(SELECT id FROM locked)) AND tickets.id = best.ticket_id
            AND tickets.duplicate_of IS NULL
          RETURNING tickets.id, tickets.project_id
        )
        INSERT INTO messages (project_id, ticket_id, author_type, body, internal, created_at)
        SELECT marked.project_id, marked.id, 'system',
          'Possible duplicate of ticket #' || best.ticket_number || ' (similarity ' || to_char(best.score, 'FM0.00') || ').',
          true, ${now}
        FROM marked JOIN best ON best.ticket_id = marked.id`.pipe(Rows.run)

    /** Adds error-tracker issues to the ticket with an internal note, in one transaction. */
    const linkIssues = (
      ticket: { readonly id: TicketId; readonly project_id: ProjectId },
      issues: ReadonlyArray<LinkedIssue>,
      note: string,
      now: string
    ) =>
      sql`
        WITH linked AS (
          UPDATE tickets SET linked_issues = linked_issues || ${JSON.stringify(issues)}::jsonb WHERE id = ${ticket.id}
          RETURNING id
        )
        INSERT INTO messages (project_id, ticket_id, author_type, body, internal, created_at)
        SELECT ${ticket.project_id}, linked.id, 'system', ${note}, true, ${now} FROM linked`.pipe(Rows.run)

    /** The issues linked so far, with the ticket locked until the transaction ends. */
    const lockLinkedIssues = (ticketId: TicketId) =>
      // the mode an UPDATE takes, so a duplicate mark or a job that points at the ticket need not wait
      sql`SELECT linked_issues FROM tickets WHERE id = ${ticketId} FOR NO KEY UPDATE`.pipe(
        Rows.first(Schema.Struct({ linked_issues: Schema.Array(Schema.Unknown) })),
        Effect.map(Option.match({ onNone: () => [], onSome: (row) => row.linked_issues }))
      )

    return {
      findSubmitted,
      findSubmittedMany,
      applyTriage,
      duplicateCandidates,
      markDuplicates,
      lockLinkedIssues,
      linkIssues
    }
  })

  static readonly layer = Layer.effect(this, this.make)
}
