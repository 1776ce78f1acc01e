import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { type NewJob, NewJobEntry } from "../Domain/Jobs.ts"
import { currentTraceparent } from "../Observability/TraceContext.ts"

const encodeEntry = Schema.encodeSync(NewJobEntry)

const jobsAsJson = (jobs: ReadonlyArray<NewJob>) =>
  JSON.stringify(jobs.map((job) => ({
    kind: job.kind,
    project_id: job.projectId,
    ticket_id: job.ticketId,
    payload: encodeEntry(job).payload,
    run_at: job.runAt,
    trace_context: job.trace ?? null
  })))

/**
 * The `WITH` parts that write the outbox rows of `jobs`, for a repository to put in its
 * statement: plain jobs; automation jobs of events a rule listens to; SLA updates of projects
 * with a policy; and for each event, its
 * entry in the event log (for the streams, positioned in the order given) and one delivery per endpoint subscribed to it, with
 * the job of its first attempt. Callers run it in
 * the statement or transaction of the change that caused it (the transactional outbox), so the
 * work exists exactly when the change does.
 */
export const outboxWrites = (sql: SqlClient.SqlClient, jobs: ReadonlyArray<NewJob>) =>
  sql`outbox_entries AS (
      SELECT * FROM ROWS FROM (jsonb_to_recordset(${jobsAsJson(jobs)}::jsonb)
        AS (kind text, project_id uuid, ticket_id uuid, payload jsonb, run_at timestamptz, trace_context text))
        WITH ORDINALITY AS j(kind, project_id, ticket_id, payload, run_at, trace_context, entry)
    ), outbox_jobs AS (
      INSERT INTO jobs (kind, project_id, ticket_id, payload, run_at, trace_context)
      SELECT e.kind, e.project_id, e.ticket_id, e.payload,
        -- a rating is asked for the project's delay after the resolution
        CASE WHEN e.kind = 'satisfaction_request' THEN e.run_at + (SELECT make_interval(mins => p.satisfaction_delay_minutes)
          FROM projects p WHERE p.id = e.project_id) ELSE e.run_at END,
        e.trace_context FROM outbox_entries e
      WHERE e.kind NOT IN ('webhook', 'automation', 'sla_update')
        OR (e.kind = 'sla_update' AND EXISTS (SELECT 1 FROM sla_policies p WHERE p.project_id = e.project_id))
        OR (e.kind = 'automation' AND EXISTS (
          SELECT 1 FROM automation_rules r WHERE r.project_id = e.project_id AND r.event = e.payload->>'kind'))
    ), outbox_events AS (
      INSERT INTO events (position, project_id, ticket_id, kind, body, created_at)
      SELECT p.before + row_number() OVER (ORDER BY e.entry), e.project_id, e.ticket_id, e.payload->>'kind',
        e.payload->>'body', e.run_at
      FROM outbox_entries e, (SELECT event_position_before_next() AS before) p WHERE e.kind = 'webhook'
    ), outbox_deliveries AS (
      -- a disabled endpoint's deliveries are logged as failed, with no attempt, for a replay later
      INSERT INTO webhook_deliveries (webhook_id, project_id, ticket_id, event, body, created_at, next_attempt_at, status,
        last_error)
      SELECT w.id, w.project_id, e.ticket_id, e.payload->>'kind', e.payload->>'body', e.run_at,
        CASE WHEN w.disabled_at IS NULL THEN e.run_at END,
        CASE WHEN w.disabled_at IS NULL THEN 'pending' ELSE 'failed' END,
        CASE WHEN w.disabled_at IS NULL THEN NULL ELSE 'the webhook is disabled' END
      FROM outbox_entries e JOIN webhooks w ON w.project_id = e.project_id
        AND (w.all_events OR (e.payload->>'kind') = ANY(w.events))
      WHERE e.kind = 'webhook'
        -- an endpoint is not told that it was itself disabled
        AND NOT (e.payload->>'kind' = 'endpoint_disabled' AND w.id::text = (e.payload->>'body')::jsonb #>> '{data,webhook_id}')
      RETURNING id, project_id, ticket_id, event, created_at, status
    ), outbox_delivery_jobs AS (
      INSERT INTO jobs (kind, project_id, ticket_id, payload, run_at, trace_context)
      SELECT 'webhook_delivery', d.project_id, d.ticket_id, jsonb_build_object('delivery_id', d.id), d.created_at,
        -- the trace of the event's entry: one statement can write the events of many requests
        (SELECT e.trace_context FROM outbox_entries e
         WHERE e.kind = 'webhook' AND e.ticket_id = d.ticket_id AND e.payload->>'kind' = d.event LIMIT 1)
      FROM outbox_deliveries d WHERE d.status = 'pending'
    )`

/**
 * `jobs` stamped with the trace of the work that causes them (the request, or the job), so that
 * each job's run joins it; as they are when tracing is off.
 */
export const traced = (jobs: ReadonlyArray<NewJob>): Effect.Effect<ReadonlyArray<NewJob>> =>
  Effect.map(currentTraceparent, (trace) => trace === null ? jobs : jobs.map((job) => ({ ...job, trace: job.trace ?? trace })))

/** Writes the outbox rows of `jobs` with one statement. */
export const enqueue = (sql: SqlClient.SqlClient, jobs: ReadonlyArray<NewJob>) =>
  jobs.length === 0 ? Effect.void : sql`WITH ${outboxWrites(sql, jobs)} SELECT 1`.pipe(Rows.run)
