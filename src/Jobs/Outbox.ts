import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ServiceEvent } from "../Domain/Events.ts"

/** What the background pipeline does; one row in `jobs` per piece of follow-up work. */
export type JobKind = "triage" | "duplicate_check" | "error_link" | "webhook" | "automation" | "notify"

export interface NewJob {
  readonly kind: JobKind
  readonly projectId: string
  readonly ticketId: string
  readonly payload: Record<string, unknown>
}

/** Every event goes out as webhooks and runs the project's automation rules. */
export const eventJobs = (event: ServiceEvent): ReadonlyArray<NewJob> => [
  { kind: "webhook", projectId: event.data.project_id, ticketId: event.data.id, payload: { event } },
  { kind: "automation", projectId: event.data.project_id, ticketId: event.data.id, payload: { event } }
]

/** The work that follows a new ticket, written in the ticket's own transaction. */
export const ticketCreatedJobs = (
  event: ServiceEvent,
  options: { readonly errorTracker: boolean }
): ReadonlyArray<NewJob> => {
  const ticket = { projectId: event.data.project_id, ticketId: event.data.id, payload: {} }
  return [
    { kind: "triage", ...ticket },
    { kind: "duplicate_check", ...ticket },
    ...(options.errorTracker ? [{ kind: "error_link" as const, ...ticket }] : []),
    ...eventJobs(event)
  ]
}

export const jobsAsJson = (jobs: ReadonlyArray<NewJob>) =>
  JSON.stringify(jobs.map((job) => ({
    kind: job.kind,
    project_id: job.projectId,
    ticket_id: job.ticketId,
    payload: job.payload
  })))

/**
 * Inserts jobs with one statement. Callers run it inside the transaction of the change that
 * caused them (the transactional outbox), so the work exists exactly when the change does.
 */
export const enqueue = (sql: SqlClient.SqlClient, jobs: ReadonlyArray<NewJob>) =>
  jobs.length === 0
    ? Effect.void
    : sql`INSERT INTO jobs (kind, project_id, ticket_id, payload)
            SELECT j.kind, j.project_id, j.ticket_id, j.payload
            FROM jsonb_to_recordset(${jobsAsJson(jobs)}::jsonb)
              AS j(kind text, project_id uuid, ticket_id uuid, payload jsonb)`.pipe(Effect.asVoid)
