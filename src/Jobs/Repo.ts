import { Context, Effect, Layer, Result, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow } from "../Domain/Fields.ts"
import { ProjectIdFromRow, TicketIdFromRow } from "../Domain/Ids.ts"
import { type ClaimedJob, type HeldJob, Job, JobKinds, type JobKind } from "../Domain/Jobs.ts"

// the payload is decoded row by row (decodeJob): one that does not decode fails its job, not the claim
const ClaimRow = Schema.Struct({
  id: Schema.NullOr(Schema.String),
  kind: Schema.NullOr(Schema.Literals(JobKinds)),
  project_id: Schema.NullOr(ProjectIdFromRow),
  ticket_id: Schema.NullOr(TicketIdFromRow),
  payload: Schema.Unknown,
  attempts: Schema.NullOr(IntFromRow),
  lease: Schema.NullOr(Schema.String),
  trace_context: Schema.NullOr(Schema.String),
  next_due: Schema.NullOr(Schema.Date)
})

const QueueRow = Schema.Struct({
  kind: Schema.Literals(JobKinds),
  pending: IntFromRow,
  running: IntFromRow,
  oldest_due_seconds: Schema.Number
})

const decodeJob = Schema.decodeUnknownResult(Job)

/** A claimed job whose payload does not decode as its kind's (written by hand, or by a later version). */
export interface UndecodableJob {
  readonly job: HeldJob
  readonly error: string
}

const iso = (millis: number) => new Date(millis).toISOString()

export class JobsRepo extends Context.Service<JobsRepo>()("app/Jobs/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Takes up to `limit` due jobs of each kind, in one statement: pending ones whose time has
     * come, and running ones whose lease expired (their instance died). `SKIP LOCKED` lets
     * instances claim side by side without waiting on each other or taking the same job. Also
     * answers when the next pending job falls due, so an idle worker knows how long to sleep. A
     * job whose payload does not decode comes back apart, with why, for the worker to fail.
     *
     * Rows named by a list in the statement are matched with `= ANY(ARRAY(…))`, here and below:
     * joined instead, the planner guesses the list at a hundred rows or more and hashes the whole
     * table against it, a scan of every job ever kept on each claim (14 ms at 30,000 rows).
     */
    const claim = (options: {
      readonly now: number
      readonly leaseUntil: number
      readonly owner: string
      readonly limits: ReadonlyArray<{ readonly kind: JobKind; readonly limit: number }>
    }) =>
      sql`
        WITH limits AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(options.limits)}::jsonb) AS l(kind text, "limit" int)
        ), picked AS (
          SELECT due.id FROM limits CROSS JOIN LATERAL (
            SELECT id FROM jobs
            WHERE kind = limits.kind
              AND ((status = 'pending' AND run_at <= ${iso(options.now)})
                OR (status = 'running' AND locked_until < ${iso(options.now)}))
            ORDER BY run_at
            LIMIT limits."limit"
            FOR UPDATE SKIP LOCKED
          ) due
        ), claimed AS (
          UPDATE jobs SET status = 'running', attempts = jobs.attempts + 1, lease = gen_random_uuid(),
            locked_by = ${options.owner}, locked_until = ${iso(options.leaseUntil)}, updated_at = ${iso(options.now)}
          WHERE jobs.id = ANY(ARRAY(SELECT id FROM picked))
          RETURNING jobs.id, jobs.kind, jobs.project_id, jobs.ticket_id, jobs.payload, jobs.attempts, jobs.lease,
            jobs.trace_context
        )
        SELECT claimed.*, soon.next_due FROM (
          SELECT min(run_at) AS next_due FROM jobs
          WHERE status = 'pending' AND run_at > ${iso(options.now)}
        ) soon LEFT JOIN claimed ON true`.pipe(
        Rows.all(ClaimRow),
        Effect.map((rows) => {
          const jobs: Array<ClaimedJob> = []
          const undecodable: Array<UndecodableJob> = []
          for (const row of rows) {
            if (row.id === null) continue
            const held: HeldJob = {
              id: row.id,
              kind: row.kind!,
              projectId: row.project_id!,
              ticketId: row.ticket_id,
              attempts: row.attempts ?? 1,
              lease: row.lease!,
              trace: row.trace_context
            }
            const decoded = decodeJob({ kind: held.kind, payload: row.payload })
            if (Result.isSuccess(decoded)) jobs.push({ ...held, ...decoded.success })
            else undecodable.push({ job: held, error: `its payload does not decode: ${decoded.failure.message}` })
          }
          return { jobs, undecodable, nextDue: rows[0]?.next_due == null ? undefined : rows[0].next_due.getTime() }
        })
      )

    /**
     * Finishes jobs in one statement; a job whose lease was lost meanwhile is left to its new
     * holder. Rows are locked in id order, so two batches never wait on each other in a circle.
     */
    const complete = (jobs: ReadonlyArray<HeldJob>, now: number) =>
      sql`WITH held AS (
            SELECT * FROM jsonb_to_recordset(${JSON.stringify(jobs.map((job) => ({ id: job.id, lease: job.lease })))}::jsonb)
              AS f(id uuid, lease uuid)
          ), finished AS (
            SELECT jobs.id FROM jobs
            WHERE jobs.id = ANY(ARRAY(SELECT id FROM held)) AND (jobs.id, jobs.lease) IN (SELECT id, lease FROM held)
            ORDER BY jobs.id
            FOR UPDATE OF jobs
          )
          UPDATE jobs SET status = 'done', lease = NULL, locked_by = NULL, locked_until = NULL,
            last_error = NULL, updated_at = ${iso(now)}
          WHERE jobs.id = ANY(ARRAY(SELECT id FROM finished))`.pipe(Rows.run)

    /** After a failed attempt: due again at `retryAt`, or `failed` for good when there is none. */
    const fail = (job: HeldJob, now: number, error: string, retryAt: number | undefined) =>
      sql`UPDATE jobs SET status = ${retryAt === undefined ? "failed" : "pending"},
            run_at = ${retryAt === undefined ? iso(now) : iso(retryAt)},
            lease = NULL, locked_by = NULL, locked_until = NULL, last_error = ${error.slice(0, 2000)},
            updated_at = ${iso(now)}
          WHERE id = ${job.id} AND lease = ${job.lease}`.pipe(Rows.run)

    /**
     * Hands back a job this instance will not finish (it is shutting down, or a throttle said
     * wait): due at `dueAt`, and the attempt does not count. The NOTIFY wakes another instance.
     */
    const release = (job: HeldJob, now: number, dueAt: number = now) =>
      sql`WITH released AS (
            UPDATE jobs SET status = 'pending', attempts = greatest(jobs.attempts - 1, 0), run_at = ${iso(dueAt)},
              lease = NULL, locked_by = NULL, locked_until = NULL, updated_at = ${iso(now)}
            WHERE id = ${job.id} AND lease = ${job.lease}
            RETURNING id
          )
          SELECT pg_notify('jobs', 'due') FROM released`.pipe(Rows.run)

    /**
     * Extends the leases of the jobs this instance has in hand; a live instance never loses one.
     * Only those it names: a job whose outcome could not be recorded is no longer in hand, and its
     * lease must run out for the job to run again. A row being finished at this moment is skipped,
     * not waited for: two statements locking the same rows in different orders would deadlock, and
     * that job needs no lease any more.
     */
    const renewLeases = (owner: string, leaseUntil: number, jobIds: ReadonlyArray<string>) =>
      jobIds.length === 0 ? Effect.void : sql`UPDATE jobs SET locked_until = ${iso(leaseUntil)}
          WHERE id IN (
            SELECT id FROM jobs
            WHERE id = ANY(ARRAY(SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(jobIds)}::jsonb)))
              AND status = 'running' AND locked_by = ${owner}
            FOR UPDATE SKIP LOCKED
          )`.pipe(Rows.run)

    /** Forgets finished work: done jobs after a day, failed ones after 30, idempotency keys after 24 h. */
    const prune = (now: number) =>
      Effect.all([
        sql`DELETE FROM jobs WHERE status = 'done' AND updated_at < ${iso(now - 86_400_000)}`,
        sql`DELETE FROM jobs WHERE status = 'failed' AND updated_at < ${iso(now - 30 * 86_400_000)}`,
        sql`DELETE FROM idempotency_keys WHERE created_at < ${iso(now - 86_400_000)}`
      ], { discard: true }).pipe(Rows.run)

    /**
     * What waits, by kind, for the metrics scrape: jobs pending (due now or later), jobs in hand,
     * and how long past its due time the oldest due one is (a job whose lease ran out is due
     * from then). Reads only unfinished jobs, through the partial index the claims use.
     */
    const queueFigures = (now: number) =>
      sql`SELECT kind,
            count(*) FILTER (WHERE status = 'pending') AS pending,
            count(*) FILTER (WHERE status = 'running') AS running,
            coalesce(extract(epoch FROM ${iso(now)}::timestamptz - min(CASE
              WHEN status = 'pending' AND run_at <= ${iso(now)} THEN run_at
              WHEN status = 'running' AND locked_until < ${iso(now)} THEN locked_until
            END)), 0)::float8 AS oldest_due_seconds
          FROM jobs WHERE status IN ('pending', 'running')
          GROUP BY kind`.pipe(Rows.all(QueueRow))

    return { claim, complete, fail, release, renewLeases, prune, queueFigures }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
