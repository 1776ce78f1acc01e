/**
 * The job runner over the real database: the webhook schedule walked with TestClock, several
 * runners sharing one queue, a dead instance's lease, a job whose outcome could not be recorded,
 * and handing jobs back at shutdown.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import type { DatabaseOutage } from "../../src/Database/Outage.ts"
import { type JobHandler, JobFailed, type NewJob } from "../../src/Domain/Jobs.ts"
import { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { enqueue } from "../../src/Jobs/Outbox.ts"
import { pipelineLayer } from "../../src/Jobs/Pipeline.ts"
import { JobsRepo } from "../../src/Jobs/Repo.ts"
import { JobHandlers, RunnerLive } from "../../src/Jobs/Runner.ts"
import { Notifier } from "../../src/Notifier/Notifier.ts"
import { Projects } from "../../src/Projects/Projects.ts"
import { ServicesLive } from "../../src/App.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { Webhooks } from "../../src/Webhooks/Webhooks.ts"
import { databaseKinds, freshDatabase, testSettings } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { stubServer } from "../support/StubServer.ts"
import { triageMock } from "../support/TriageMock.ts"

const pause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const database = (kind: (typeof databaseKinds)[number], overrides: Record<string, string>) =>
  Effect.gen(function*() {
    const env = yield* freshDatabase(kind)
    const config = yield* testSettings({ WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", ...env, ...overrides })
    return Database.layer.pipe(Layer.provideMerge(Layer.succeed(AppConfig, config)))
  })

const edge = Layer.mergeAll(
  triageMock().layer,
  ErrorTracker.none,
  Layer.succeed(Notifier, Notifier.of({ notify: () => Effect.void }))
)

/** Done once `count` says so; the count is what a failure reports. */
const atLeast = (count: () => number, n: number) => Effect.sync(() => ({ done: count() >= n, value: count() }))

/** Done once there is a first row and `done` holds for it; that row is what a failure reports. */
const firstRow = <Row, E, R>(rows: Effect.Effect<ReadonlyArray<Row>, E, R>, done: (row: Row) => boolean) =>
  Effect.map(rows, (list) => ({ done: list[0] !== undefined && done(list[0]), value: list[0]! }))

/** Three runners with `handlers` on one database, and 60 due jobs of `kind` for them in a new project. */
const threeRunnersWithJobs = (
  shared: Context.Context<SqlClient.SqlClient | AppConfig | Database.DatabaseInfo | DatabaseOutage>,
  handlers: Context.Service.Shape<typeof JobHandlers>,
  kind: "error_link" | "duplicate_check"
) =>
  Effect.gen(function*() {
    const runner = RunnerLive.pipe(
      Layer.provide(Layer.succeed(JobHandlers, handlers)),
      Layer.provide(JobsRepo.layer),
      Layer.provide(Layer.succeedContext(shared))
    )
    for (let i = 0; i < 3; i++) yield* Layer.build(runner)
    const sql = Context.get(shared, SqlClient.SqlClient)
    const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('queue') RETURNING id`
    const jobs: Array<NewJob> = Array.from({ length: 60 }, () => ({
      kind,
      projectId: project!.id,
      ticketId: null as unknown as string,
      payload: {},
      runAt: new Date().toISOString()
    }))
    return { sql, jobs }
  })

describe.each(databaseKinds)("the job runner on %s", (kind) => {
  it.effect("walks the 1m / 5m / 30m webhook schedule on the Clock, then gives up", () =>
    Effect.gen(function*() {
      const hook = yield* stubServer(() => ({ status: 503 }))
      // no poll in between: the runner must wake for each retry by itself, exactly when it is due
      const db = yield* database(kind, { JOB_POLL_INTERVAL: "24h", JOB_LEASE: "1h" })
      // built inside the test, so every fiber of the runner sleeps on this test's TestClock
      const context = yield* Layer.build(
        pipelineLayer(edge).pipe(Layer.provideMerge(ServicesLive), Layer.provideMerge(db))
      )
      const projects = Context.get(context, Projects)
      const webhooks = Context.get(context, Webhooks)
      const tickets = Context.get(context, Tickets)
      const project = yield* projects.create("Schedule")
      const webhook = yield* webhooks.register(project.project_id, { url: `${hook.url}/hooks` })
      yield* tickets.create(project.project_id, { subject: "Clockwork", body: "Retries on the TestClock" })
      const log = webhooks.deliveries(project.project_id, webhook.webhook_id).pipe(Effect.map((l) => l.deliveries))
      const received = () => hook.requests.length
      const sql = Context.get(context, SqlClient.SqlClient)
      const deliveryJob = sql<{ status: string; attempts: number }>`
        SELECT status, attempts FROM jobs WHERE kind = 'webhook_delivery'`

      const expectNext = (attempt: number, delay: Duration.Input) =>
        Effect.gen(function*() {
          yield* eventually(`attempt ${attempt}`, atLeast(received, attempt))
          const entry = yield* eventually(`attempt ${attempt} logged`, firstRow(log, (e) => e.attempts === attempt))
          // the runner schedules the retry from its own reading of the clock, just after the
          // attempt is logged: moving the clock before then would put the retry later by as much
          yield* eventually(
            `attempt ${attempt}'s retry scheduled`,
            firstRow(deliveryJob, (job) => job.status === "pending" && job.attempts === attempt)
          )
          expect(hook.requests).toHaveLength(attempt)
          const now = yield* Clock.currentTimeMillis
          const wait = new Date(entry.next_attempt_at!).getTime() - now
          const millis = Duration.toMillis(delay)
          // jitter only ever adds, at most 10%
          expect(wait).toBeGreaterThanOrEqual(millis)
          expect(wait).toBeLessThanOrEqual(millis * 1.1)
          yield* TestClock.adjust(Duration.millis(wait - 1_000))
          yield* pause(300)
          expect(hook.requests, "no attempt a second before it is due").toHaveLength(attempt)
          // the last step is short, so the attempt starts at its final time: a long jump past it
          // would also expire the attempt's own 10 s time box while its request is in flight
          yield* TestClock.adjust("1 second")
        })
      yield* expectNext(1, "1 minute")
      yield* expectNext(2, "5 minutes")
      yield* expectNext(3, "30 minutes")
      yield* eventually("attempt 4", atLeast(received, 4))
      const last = yield* eventually("the delivery to fail", firstRow(log, (e) => e.status === "failed"))
      expect(last).toMatchObject({ attempts: 4, status: "failed", next_attempt_at: null, last_status_code: 503 })
      yield* TestClock.adjust("2 hours")
      yield* pause(300)
      expect(hook.requests).toHaveLength(4)
      expect(new Set(hook.requests.map((r) => r.headers["x-service-delivery"])).size).toBe(1)
    }), { timeout: 60_000 })

  it.live("runs each job once with three runners on one queue, at most JOB_CONCURRENCY at a time each", () =>
    Effect.gen(function*() {
      const db = yield* database(kind, { JOB_CONCURRENCY: "error_link=3", JOB_POLL_INTERVAL: "200ms" })
      const shared = yield* Layer.build(db)
      const runs: Array<string> = []
      let inFlight = 0
      let mostInFlight = 0
      const handlers: Context.Service.Shape<typeof JobHandlers> = {
        error_link: (job) =>
          Effect.sync(() => {
            inFlight++
            mostInFlight = Math.max(mostInFlight, inFlight)
          }).pipe(
            Effect.andThen(Effect.sleep("20 millis")),
            Effect.andThen(Effect.sync(() => void runs.push(job.id))),
            Effect.ensuring(Effect.sync(() => void inFlight--))
          )
      }
      const { jobs, sql } = yield* threeRunnersWithJobs(shared, handlers, "error_link")
      yield* enqueue(sql, jobs.slice(0, 30))
      yield* enqueue(sql, jobs.slice(30))
      yield* eventually("every job to run", atLeast(() => runs.length, 60))
      const rows = yield* sql<{ id: string; status: string; attempts: number }>`SELECT id, status, attempts FROM jobs`
      yield* eventually(
        "every job to be done",
        firstRow(sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE status <> 'done'`, (r) => r.n === 0)
      )
      // JOB_CONCURRENCY=error_link=3 on each of the three runners
      expect(mostInFlight).toBeLessThanOrEqual(9)
      expect(mostInFlight, "jobs ran side by side").toBeGreaterThan(1)
      expect(new Set(runs).size).toBe(60)
      expect(runs).toHaveLength(60)
      expect(rows.every((row) => Number(row.attempts) === 1)).toBe(true)
    }), { timeout: 60_000 })

  it.live("runs batch jobs once with three runners on one queue, in batches of at most their size", () =>
    Effect.gen(function*() {
      const db = yield* database(kind, { JOB_CONCURRENCY: "duplicate_check=8", JOB_POLL_INTERVAL: "200ms" })
      const shared = yield* Layer.build(db)
      const runs: Array<string> = []
      const batchSizes: Array<number> = []
      let failedOnce = false
      const handlers: Context.Service.Shape<typeof JobHandlers> = {
        duplicate_check: {
          size: 5,
          batch: (jobs) =>
            Effect.gen(function*() {
              batchSizes.push(jobs.length)
              // one whole batch fails: each of its jobs must come back on its own schedule
              const fails = !failedOnce && jobs.length > 1
              if (fails) failedOnce = true
              yield* Effect.sleep("20 millis")
              if (fails) return yield* new JobFailed({ message: "the batch's statement failed" })
              runs.push(...jobs.map((job) => job.id))
            })
        }
      }
      const { jobs, sql } = yield* threeRunnersWithJobs(shared, handlers, "duplicate_check")
      yield* enqueue(sql, jobs)
      yield* eventually("every job to run", atLeast(() => runs.length, 60))
      yield* eventually(
        "every job to be done",
        firstRow(sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE status <> 'done'`, (r) => r.n === 0)
      )
      const retried = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE attempts = 2`
      expect(new Set(runs).size).toBe(60)
      expect(runs).toHaveLength(60)
      expect(Math.max(...batchSizes)).toBeLessThanOrEqual(5)
      expect(batchSizes.some((size) => size > 1), "jobs ran in batches").toBe(true)
      // the failed batch's jobs, and only those, took a second attempt
      expect(retried[0]!.n).toBe(batchSizes.find((size) => size > 1))
    }), { timeout: 60_000 })

  it.effect("takes over the job of an instance that died, once its lease ran out", () =>
    Effect.gen(function*() {
      const db = yield* database(kind, { JOB_POLL_INTERVAL: "200ms" })
      const shared = yield* Layer.build(db)
      const sql = Context.get(shared, SqlClient.SqlClient)
      const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('lease') RETURNING id`
      // the runner reads the time from the Clock, this test's TestClock, and so does the lease
      const start = yield* Clock.currentTimeMillis
      const leaseEnds = start + 1_000
      // what a SIGKILLed instance leaves behind: a running job whose lease holds for another second
      yield* sql`INSERT INTO jobs (kind, project_id, status, attempts, lease, locked_by, locked_until, run_at)
                 VALUES ('error_link', ${project!.id}, 'running', 1, gen_random_uuid(), 'dead instance',
                   ${new Date(leaseEnds).toISOString()}, ${new Date(start - 60_000).toISOString()})`
      // each claim the runner made: the time it claimed at, and how many jobs it took
      const claims: Array<{ readonly at: number; readonly took: number }> = []
      const recordingRepo = Layer.effect(
        JobsRepo,
        Effect.map(JobsRepo.make, (repo) =>
          JobsRepo.of({
            ...repo,
            claim: (options) =>
              Effect.tap(repo.claim(options), (claimed) =>
                Effect.sync(() => void claims.push({ at: options.now, took: claimed.jobs.length })))
          }))
      )
      const ran: Array<number> = []
      const handler: JobHandler<"error_link"> = (job) => Effect.sync(() => void ran.push(job.attempts))
      yield* Layer.build(RunnerLive.pipe(
        Layer.provide(Layer.succeed(JobHandlers, { error_link: handler })),
        Layer.provide(recordingRepo),
        Layer.provide(Layer.succeedContext(shared))
      ))
      // the clock moves a tenth of a second at a time, each step once the runner has answered the last
      const claimTaking = eventually(
        "a claim that takes the job",
        Effect.gen(function*() {
          const taking = claims.find((claim) => claim.took > 0)
          if (taking === undefined) yield* TestClock.adjust("100 millis")
          return { done: taking !== undefined, value: taking ?? claims.at(-1) }
        })
      ).pipe(Effect.map((claim) => claim!))
      const taking = yield* claimTaking
      expect(claims.filter((claim) => claim.at <= leaseEnds).length, "claims while the lease held").toBeGreaterThan(0)
      expect(taking.at, "not while the dead instance's lease holds").toBeGreaterThan(leaseEnds)
      yield* eventually("the takeover", atLeast(() => ran.length, 1))
      expect(ran).toEqual([2])
      yield* eventually("the job to be done", firstRow(sql<{ status: string }>`SELECT status FROM jobs`, (r) => r.status === "done"))
    }), { timeout: 30_000 })

  it.live("runs a job again when its outcome could not be recorded, rather than keeping its lease", () =>
    Effect.gen(function*() {
      // heartbeats every third of a second: one that kept renewing the lease would hold the job forever
      const db = yield* database(kind, { JOB_POLL_INTERVAL: "200ms", JOB_LEASE: "1s" })
      const shared = yield* Layer.build(db)
      const sql = Context.get(shared, SqlClient.SqlClient)
      const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('lost outcome') RETURNING id`
      let completions = 0
      // the database goes away while the first outcome is written
      const flakyRepo = Layer.effect(
        JobsRepo,
        Effect.map(JobsRepo.make, (repo) =>
          JobsRepo.of({
            ...repo,
            complete: (jobs, now) => ++completions === 1 ? Effect.die(new Error("connection lost")) : repo.complete(jobs, now)
          }))
      )
      const ran: Array<number> = []
      const handler: JobHandler<"error_link"> = (job) => Effect.sync(() => void ran.push(job.attempts))
      yield* Layer.build(RunnerLive.pipe(
        Layer.provide(Layer.succeed(JobHandlers, { error_link: handler })),
        Layer.provide(flakyRepo),
        Layer.provide(Layer.succeedContext(shared))
      ))
      yield* enqueue(sql, [{ kind: "error_link", projectId: project!.id, ticketId: null as unknown as string, payload: {}, runAt: new Date().toISOString() }])
      yield* eventually("the second run, once the lease ran out", atLeast(() => ran.length, 2))
      expect(ran).toEqual([1, 2])
      yield* eventually("the job to be done", firstRow(sql<{ status: string }>`SELECT status FROM jobs`, (r) => r.status === "done"))
    }), { timeout: 30_000 })

  it.live("hands unfinished jobs back when it stops, without counting the attempt", () =>
    Effect.gen(function*() {
      const db = yield* database(kind, { JOB_SHUTDOWN_GRACE: "200ms" })
      const shared = yield* Layer.build(db)
      const sql = Context.get(shared, SqlClient.SqlClient)
      const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('stop') RETURNING id`
      const started: Array<string> = []
      const stuck: JobHandler<"error_link"> = (job) => Effect.andThen(Effect.sync(() => void started.push(job.id)), Effect.never)
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(RunnerLive.pipe(
          Layer.provide(Layer.succeed(JobHandlers, { error_link: stuck })),
          Layer.provide(JobsRepo.layer),
          Layer.provide(Layer.succeedContext(shared))
        ))
        yield* enqueue(sql, [{ kind: "error_link", projectId: project!.id, ticketId: null as unknown as string, payload: {}, runAt: new Date().toISOString() }])
        yield* eventually("the job to start", atLeast(() => started.length, 1))
      }))
      const [row] = yield* sql<{ status: string; attempts: number; locked_by: string | null }>`
        SELECT status, attempts, locked_by FROM jobs`
      expect(row).toEqual({ status: "pending", attempts: 0, locked_by: null })
    }), { timeout: 30_000 })
})
