import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ServiceEvent } from "../Domain/Events.ts"

/** What the background pipeline does; one row in `jobs` per piece of follow-up work. */
export const JobKinds = [
  "triage",
  "duplicate_check",
  "error_link",
  "webhook_delivery",
  "automation",
  "notify"
] as const
export type JobKind = (typeof JobKinds)[number]

/**
 * A piece of follow-up work as the API writes it. A `webhook` entry is an event to send: it
 * becomes a delivery (and its job) per subscribed endpoint in the same statement. An
 * `automation` entry becomes a job only when the project has a rule for its event.
 */
export interface NewJob {
  readonly kind: JobKind | "webhook"
  readonly projectId: string
  readonly ticketId: string
  readonly payload: Record<string, unknown>
  /** when it falls due: the time of the change that caused it, from the Clock like every time */
  readonly runAt: string
}

/**
 * An event rides in its job as the JSON text that will be sent: a jsonb object would come back
 * with its keys reordered, and receivers should see `event`, `timestamp`, `data` in that order.
 */
const eventPayload = (event: ServiceEvent) => ({ kind: event.event, body: JSON.stringify(event) })

export const eventOf = (payload: Record<string, unknown>) => ({
  event: JSON.parse(String(payload.body)) as ServiceEvent,
  body: String(payload.body)
})

/**
 * Every event goes out as webhooks and runs the project's automation rules, except an event
 * caused by a rule's own action: it goes out as webhooks only, so rules cannot trigger each
 * other in a loop.
 */
export const eventJobs = (
  event: ServiceEvent,
  options: { readonly automation: boolean } = { automation: true }
): ReadonlyArray<NewJob> => {
  const job = { projectId: event.data.project_id, ticketId: event.data.id, payload: eventPayload(event), runAt: event.timestamp }
  return options.automation
    ? [{ kind: "webhook", ...job }, { kind: "automation", ...job }]
    : [{ kind: "webhook", ...job }]
}

/** The work that follows a new ticket, written in the ticket's own transaction. */
export const ticketCreatedJobs = (
  event: ServiceEvent,
  options: { readonly errorTracker: boolean }
): ReadonlyArray<NewJob> => {
  const ticket = { projectId: event.data.project_id, ticketId: event.data.id, payload: {}, runAt: event.timestamp }
  return [
    // triage queues the event's automation job when it is done, so rules on category or
    // priority see the triaged ticket rather than race triage to it
    { kind: "triage", ...ticket, payload: eventPayload(event) },
    { kind: "duplicate_check", ...ticket },
    ...(options.errorTracker ? [{ kind: "error_link" as const, ...ticket }] : []),
    ...eventJobs(event, { automation: false })
  ]
}

export const jobsAsJson = (jobs: ReadonlyArray<NewJob>) =>
  JSON.stringify(jobs.map((job) => ({
    kind: job.kind,
    project_id: job.projectId,
    ticket_id: job.ticketId,
    payload: job.payload,
    run_at: job.runAt
  })))

/**
 * The `WITH` parts that write the outbox rows of `jobs`, for a caller to put in its statement:
 * plain jobs; automation jobs of events a rule listens to; and for each event, one delivery per
 * endpoint subscribed to it, with the job of its first attempt. Callers run it in the statement
 * or transaction of the change that caused it (the transactional outbox), so the work exists
 * exactly when the change does.
 */
export const outboxWrites = (sql: SqlClient.SqlClient, jobs: ReadonlyArray<NewJob>) =>
  sql`outbox_entries AS (
      SELECT * FROM jsonb_to_recordset(${jobsAsJson(jobs)}::jsonb)
        AS j(kind text, project_id uuid, ticket_id uuid, payload jsonb, run_at timestamptz)
    ), outbox_jobs AS (
      INSERT INTO jobs (kind, project_id, ticket_id, payload, run_at)
      SELECT e.kind, e.project_id, e.ticket_id, e.payload, e.run_at FROM outbox_entries e
      WHERE e.kind NOT IN ('webhook', 'automation')
        OR (e.kind = 'automation' AND EXISTS (
          SELECT 1 FROM automation_rules r WHERE r.project_id = e.project_id AND r.event = e.payload->>'kind'))
    ), outbox_deliveries AS (
      INSERT INTO webhook_deliveries (webhook_id, project_id, ticket_id, event, body, created_at, next_attempt_at)
      SELECT w.id, w.project_id, e.ticket_id, e.payload->>'kind', e.payload->>'body', e.run_at, e.run_at
      FROM outbox_entries e JOIN webhooks w ON w.project_id = e.project_id AND (e.payload->>'kind') = ANY(w.events)
      WHERE e.kind = 'webhook'
      RETURNING id, project_id, ticket_id, created_at
    ), outbox_delivery_jobs AS (
      INSERT INTO jobs (kind, project_id, ticket_id, payload, run_at)
      SELECT 'webhook_delivery', d.project_id, d.ticket_id, jsonb_build_object('delivery_id', d.id), d.created_at
      FROM outbox_deliveries d
    )`

/** Writes the outbox rows of `jobs` with one statement. */
export const enqueue = (sql: SqlClient.SqlClient, jobs: ReadonlyArray<NewJob>) =>
  jobs.length === 0 ? Effect.void : sql`WITH ${outboxWrites(sql, jobs)} SELECT 1`.pipe(Effect.asVoid)
