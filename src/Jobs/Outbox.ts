import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ServiceEvent } from "../Domain/Events.ts"

/** What the background pipeline does; one row in `jobs` per piece of follow-up work. */
export const JobKinds = [
  "triage",
  "duplicate_check",
  "error_link",
  // fans an event out to the project's endpoints: one webhook_delivery per endpoint
  "webhook",
  "webhook_delivery",
  "automation",
  "notify"
] as const
export type JobKind = (typeof JobKinds)[number]

export interface NewJob {
  readonly kind: JobKind
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
 * Inserts jobs with one statement. Callers run it inside the transaction of the change that
 * caused them (the transactional outbox), so the work exists exactly when the change does.
 */
export const enqueue = (sql: SqlClient.SqlClient, jobs: ReadonlyArray<NewJob>) =>
  jobs.length === 0
    ? Effect.void
    : sql`INSERT INTO jobs (kind, project_id, ticket_id, payload, run_at)
            SELECT j.kind, j.project_id, j.ticket_id, j.payload, j.run_at
            FROM jsonb_to_recordset(${jobsAsJson(jobs)}::jsonb)
              AS j(kind text, project_id uuid, ticket_id uuid, payload jsonb, run_at timestamptz)`.pipe(Effect.asVoid)
