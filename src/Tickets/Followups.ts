import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { AppConfig } from "../Config.ts"
import { ErrorTracker, type LinkedIssue } from "../ErrorTracker/ErrorTracker.ts"
import { type JobHandler, JobFailed } from "../Jobs/Runner.ts"
import { Triage } from "../Triage/Triage.ts"

const iso = (millis: number) => new Date(millis).toISOString()

/**
 * The work that follows a new ticket: triage, duplicate detection and error-tracker links.
 * Each is a job handler that may run more than once (at-least-once), so each writes only what
 * is not there yet: triage never overwrites a person's value, a duplicate is marked once, an
 * issue is linked once.
 */
export class Followups extends Effect.Service<Followups>()("app/Tickets/Followups", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const triage = yield* Triage
    const tracker = yield* ErrorTracker
    const config = yield* AppConfig

    const ticketOf = (ticketId: string) =>
      sql<{
        id: string
        project_id: string
        subject: string
        body: string
        sender_email: string | null
        source: string
        metadata: unknown
        tags: ReadonlyArray<string> | null
      }>`
        SELECT t.id, t.project_id, t.subject, t.body, t.sender_email, t.source, t.metadata,
          (SELECT json_agg(g.name) FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags
        FROM tickets t WHERE t.id = ${ticketId}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    const systemNote = (ticket: { readonly id: string; readonly project_id: string }, body: string, now: number) =>
      sql`INSERT INTO messages (project_id, ticket_id, author_type, body, internal, created_at)
          VALUES (${ticket.project_id}, ${ticket.id}, 'system', ${body}, true, ${iso(now)})`

    const runTriage: JobHandler = (job) =>
      Effect.gen(function*() {
        const ticket = yield* ticketOf(job.ticketId!)
        if (ticket === undefined) return
        const result = yield* triage.classify({
          subject: ticket.subject,
          body: ticket.body,
          senderEmail: ticket.sender_email,
          source: ticket.source,
          tags: ticket.tags ?? [],
          metadata: ticket.metadata
        })
        const automation = job.payload.body === undefined ? null : JSON.stringify(job.payload)
        const now = iso(yield* Clock.currentTimeMillis)
        // one statement: the results, and then the ticket_created rules (if the project has any),
        // now that there is a category to test. A value a person set (the submitter's priority,
        // an agent's change) is theirs to keep. The rules' job id derives from this job's, so a
        // second run of this job queues nothing more.
        yield* sql`
          WITH triaged AS (
            UPDATE tickets SET
              category = CASE WHEN category_source = 'human' THEN category ELSE ${result.category.value} END,
              category_confidence = CASE WHEN category_source = 'human' THEN category_confidence
                                    ELSE ${result.category.confidence} END,
              category_source = CASE WHEN category_source = 'human' THEN 'human' ELSE 'ai' END,
              priority = CASE WHEN priority_source = 'human' THEN priority ELSE ${result.priority.value} END,
              priority_confidence = CASE WHEN priority_source = 'human' THEN priority_confidence
                                    ELSE ${result.priority.confidence} END,
              priority_source = CASE WHEN priority_source = 'human' THEN 'human' ELSE 'ai' END,
              sentiment = CASE WHEN sentiment_source = 'human' THEN sentiment ELSE ${result.sentiment.value} END,
              sentiment_score = CASE WHEN sentiment_source = 'human' THEN sentiment_score ELSE ${result.sentiment.score} END,
              sentiment_confidence = CASE WHEN sentiment_source = 'human' THEN sentiment_confidence
                                     ELSE ${result.sentiment.confidence} END,
              sentiment_source = CASE WHEN sentiment_source = 'human' THEN 'human' ELSE 'ai' END,
              triage_status = 'done',
              triage_model = ${result.model}
            WHERE id = ${ticket.id}
            RETURNING id, project_id
          )
          INSERT INTO jobs (id, kind, project_id, ticket_id, payload, run_at)
          SELECT md5(${job.id} || ':automation')::uuid, 'automation', triaged.project_id, triaged.id,
            ${automation}::jsonb, ${now}
          FROM triaged
          WHERE ${automation}::jsonb IS NOT NULL
            AND EXISTS (SELECT 1 FROM automation_rules r WHERE r.project_id = triaged.project_id AND r.event = 'ticket_created')
          ON CONFLICT (id) DO NOTHING`.pipe(Effect.orDie)
      })

    /**
     * Compares the ticket with the project's 100 most recent unresolved tickets that came before
     * it: trigram similarity of subjects, and of the start of the bodies for the five closest,
     * with a bonus for the same sender. Only earlier tickets qualify, so two tickets never point
     * at each other.
     */
    const checkDuplicate: JobHandler = (job) =>
      Effect.gen(function*() {
        const now = iso(yield* Clock.currentTimeMillis)
        // one statement: find the closest earlier ticket and, when it is close enough, mark the
        // ticket (only if it is not marked yet, so a second run adds no second note) and note it
        yield* sql`
          WITH t AS (
            SELECT id, project_id, ticket_number, subject, left(body, 300) AS body, sender_email, created_at
            FROM tickets WHERE id = ${job.ticketId}
          ), recent AS (
            SELECT c.id, c.ticket_number, c.subject, c.body, c.sender_email
            FROM tickets c, t
            WHERE c.project_id = t.project_id AND c.ticket_number < t.ticket_number
              AND c.status NOT IN ('resolved', 'closed') AND c.duplicate_of IS NULL
              AND c.created_at > t.created_at - interval '30 days'
            ORDER BY c.ticket_number DESC
            LIMIT 100
          ), shortlist AS (
            -- subjects are short and cheap to compare; bodies only for the few closest
            SELECT r.*, similarity(r.subject, t.subject) AS subject_similarity,
              CASE WHEN r.sender_email IS NOT NULL AND r.sender_email = t.sender_email THEN 0.15 ELSE 0 END AS same_sender
            FROM recent r, t
            ORDER BY similarity(r.subject, t.subject)
              + CASE WHEN r.sender_email IS NOT NULL AND r.sender_email = t.sender_email THEN 0.15 ELSE 0 END DESC
            LIMIT 5
          ), best AS (
            SELECT s.id, s.ticket_number,
              (0.55 * s.subject_similarity + 0.45 * similarity(left(s.body, 300), t.body) + s.same_sender)::float8 AS score
            FROM shortlist s, t
            ORDER BY score DESC
            LIMIT 1
          ), marked AS (
            UPDATE tickets SET duplicate_of = best.id FROM best
            WHERE tickets.id = ${job.ticketId} AND tickets.duplicate_of IS NULL AND best.score >= ${config.duplicateThreshold}
            RETURNING tickets.id, tickets.project_id
          )
          INSERT INTO messages (project_id, ticket_id, author_type, body, internal, created_at)
          SELECT marked.project_id, marked.id, 'system',
            'Possible duplicate of ticket #' || best.ticket_number || ' (similarity ' || to_char(best.score, 'FM0.00') || ').',
            true, ${now}
          FROM marked, best`.pipe(Effect.orDie)
      })

    const linkIssues: JobHandler = (job) =>
      Effect.gen(function*() {
        const ticket = yield* ticketOf(job.ticketId!)
        if (ticket === undefined) return
        const found = yield* tracker.findIssues({
          projectId: ticket.project_id,
          ticketId: ticket.id,
          subject: ticket.subject,
          body: ticket.body,
          metadata: ticket.metadata
        }).pipe(Effect.mapError((error) => new JobFailed({ message: error.message, cause: error })))
        if (found.length === 0) return
        const now = yield* Clock.currentTimeMillis
        yield* sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql<{ linked_issues: ReadonlyArray<LinkedIssue> }>`
            SELECT linked_issues FROM tickets WHERE id = ${ticket.id} FOR UPDATE`
          const known = new Set((rows[0]?.linked_issues ?? []).map((issue) => `${issue.provider}:${issue.id}`))
          const fresh = found.filter((issue) => !known.has(`${issue.provider}:${issue.id}`))
          if (fresh.length === 0) return
          yield* sql`UPDATE tickets SET linked_issues = linked_issues || ${JSON.stringify(fresh)}::jsonb
                     WHERE id = ${ticket.id}`
          yield* systemNote(
            ticket,
            [
              `Linked ${fresh.length === 1 ? "an error-tracker issue" : `${fresh.length} error-tracker issues`}:`,
              ...fresh.map((issue) => `- ${issue.short_id ?? issue.id}${issue.title ? ` ${issue.title}` : ""} (${issue.url})`)
            ].join("\n"),
            now
          )
        })).pipe(Effect.orDie)
      })

    return { runTriage, checkDuplicate, linkIssues } as const
  })
}) {}
