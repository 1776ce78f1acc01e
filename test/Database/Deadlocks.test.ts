/**
 * Creates and the pipeline share rows: a create takes its project's row to number its tickets,
 * and the triage and duplicate-check batches write the same new tickets, with rows (messages,
 * jobs) that point at the project. Each takes its locks in one order, so none waits on another
 * in a circle: PostgreSQL counts no deadlock in the test's database.
 *
 * The batches run on two instances of the service, as behind a load balancer: an instance sends
 * its statements over one connection until 32 are in flight on it, and statements of the same
 * connection run one after the other, never waiting on each other's locks.
 *
 * PostgreSQL only: PGlite has one connection, so nothing there ever waits on a lock.
 */
import { expect, it } from "@effect/vitest"
import { Context, DateTime, Effect, Exit, Fiber, Layer } from "effect"
import pg from "pg"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import * as Events from "../../src/Domain/Events.ts"
import { type ProjectId, TicketId } from "../../src/Domain/Ids.ts"
import { type ClaimedJob, ticketCreatedJobs } from "../../src/Domain/Jobs.ts"
import { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { JobsRepo } from "../../src/Jobs/Repo.ts"
import { Followups } from "../../src/Tickets/Followups.ts"
import { TicketsRepo } from "../../src/Tickets/TicketsRepo.ts"
import { freshDatabase, testSettings } from "../support/Databases.ts"
import { describeNeeding, postgresMissing } from "../support/Requires.ts"
import { triageMock } from "../support/TriageMock.ts"

const subjects = [
  "Refund for a double charge on my card",
  "Cannot export invoices to PDF",
  "Password reset link expired",
  "The export button spins forever"
]

/** What one instance of the service brings to this test: its own pool, creates and pipeline. */
const instanceLayer = Layer.mergeAll(
  Followups.layer.pipe(Layer.provide([triageMock().layer, ErrorTracker.none])),
  TicketsRepo.layer,
  JobsRepo.layer
).pipe(Layer.provideMerge(Database.layer))

/** Two instances on a fresh database, and a connection of the test's own to watch it with. */
const twoInstances = Effect.gen(function*() {
  const env = yield* freshDatabase("postgres")
  const config = yield* testSettings(env)
  const start = Effect.map(
    Layer.build(Layer.fresh(instanceLayer).pipe(Layer.provide(Layer.succeed(AppConfig, config)))),
    (context) => ({
      followups: Context.get(context, Followups),
      tickets: Context.get(context, TicketsRepo),
      jobs: Context.get(context, JobsRepo)
    })
  )
  const a = yield* start
  const b = yield* start
  const client = yield* Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new pg.Client({ connectionString: env.DATABASE_URL })
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end())
  )
  const query = <R extends pg.QueryResultRow>(text: string, values: Array<unknown> = []) =>
    Effect.promise(() => client.query<R>(text, values).then((result) => result.rows))
  const [project] = yield* query<{ id: ProjectId }>("INSERT INTO projects (name) VALUES ('locks') RETURNING id")
  // every create also writes a webhook delivery, as with an endpoint subscribed
  yield* query(
    "INSERT INTO webhooks (project_id, url, events, secret) VALUES ($1, 'http://127.0.0.1:9/hooks', ARRAY['ticket_created'], 's')",
    [project!.id]
  )
  const deadlocks = Effect.map(
    query<{ deadlocks: number }>(
      "SELECT deadlocks::int AS deadlocks FROM pg_stat_database WHERE datname = current_database()"
    ),
    (rows) => rows[0]!.deadlocks
  )
  return { a, b, url: env.DATABASE_URL!, projectId: project!.id, query, deadlocks }
})

type Instance = Effect.Success<typeof twoInstances>["a"]

/** Writes ticket `i` with its outbox jobs, as a create does (grouped with the creates of the moment); answers its id. */
const createTicket = (instance: Instance, projectId: ProjectId, i: number) =>
  Effect.gen(function*() {
    const id = TicketId.make(crypto.randomUUID())
    const createdAt = DateTime.formatIso(yield* DateTime.now)
    const subject = `${subjects[i % subjects.length]!} (#${i})`
    const senderEmail = `customer${i % 20}@example.com`
    const event = Events.ticketCreated({
      id,
      project_id: projectId,
      subject,
      status: "open",
      priority: "p3_medium",
      sender_email: senderEmail,
      created_at: createdAt
    })
    yield* instance.tickets.insertTicket({
      id,
      projectId,
      subject,
      body: `${subject}: it has happened twice this week, please help.`,
      priority: "p3_medium",
      priorityGiven: false,
      source: "api",
      senderEmail,
      senderName: null,
      senderVerified: true,
      metadata: null,
      createdAt,
      visitorSub: null,
      customFields: null
    }, ticketCreatedJobs(event, { errorTracker: false }))
    return id
  })

/** Claims due triage and duplicate-check jobs, as the runner does, up to `limit` of each. */
const claim = (instance: Instance, limit: number) =>
  Effect.gen(function*() {
    const now = Date.now()
    const claimed = yield* instance.jobs.claim({
      now: now + 60_000,
      leaseUntil: now + 120_000,
      owner: crypto.randomUUID(),
      limits: [{ kind: "triage", limit }, { kind: "duplicate_check", limit }]
    })
    return {
      all: claimed.jobs,
      triage: claimed.jobs.filter((job): job is ClaimedJob<"triage"> => job.kind === "triage"),
      duplicates: claimed.jobs.filter((job): job is ClaimedJob<"duplicate_check"> => job.kind === "duplicate_check")
    }
  })

/** Triage of the batch on one instance and the duplicate check of the same tickets on the other, at once. */
const bothBatches = (a: Instance, b: Instance, claimed: Effect.Success<ReturnType<typeof claim>>) =>
  Effect.map(
    Effect.all([
      Effect.exit(a.followups.runTriage.batch(claimed.triage)),
      Effect.exit(b.followups.checkDuplicate.batch(claimed.duplicates))
    ], { concurrency: "unbounded" }),
    (exits) => exits.filter(Exit.isFailure).length
  )

// the server's counters reach the statistics once the failed session is idle again, within a second
const settled = Effect.sleep("1500 millis")

describeNeeding(postgresMissing, "locks on postgres", () => {
  it.live("the triage and duplicate-check batches of the same tickets lock them in one order", () =>
    Effect.gen(function*() {
      const { a, b, deadlocks, projectId, query, url } = yield* twoInstances
      const before = yield* deadlocks
      // one after the other, each newer than the last; all but the first few repeat an earlier one
      const ids: Array<TicketId> = []
      for (let i = 0; i < 8; i++) {
        ids.push(yield* createTicket(a, projectId, i))
        yield* Effect.sleep("2 millis")
      }
      const claimed = yield* claim(a, 8)
      expect([claimed.triage.length, claimed.duplicates.length]).toEqual([8, 8])

      // a transaction that holds a ticket of the middle for a while, as a batch waiting on another
      // one does: each batch locks what it can meanwhile, then waits for that ticket
      const holder = new pg.Client({ connectionString: url })
      yield* Effect.promise(() => holder.connect())
      yield* Effect.addFinalizer(() => Effect.promise(() => holder.end()))
      yield* Effect.promise(() => holder.query("BEGIN"))
      yield* Effect.promise(() => holder.query("SELECT id FROM tickets WHERE id = $1 FOR NO KEY UPDATE", [ids[4]]))
      const waiting = (sessions: number) =>
        Effect.gen(function*() {
          for (let i = 0; i < 500; i++) {
            const [row] = yield* query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if (row!.n >= sessions) return row!.n
            yield* Effect.sleep("10 millis")
          }
          return yield* Effect.die(new Error(`fewer than ${sessions} sessions came to wait on a lock`))
        })
      // triage first, so it is the one to take that ticket once it is free
      const triage = yield* Effect.forkChild(Effect.exit(a.followups.runTriage.batch(claimed.triage)))
      yield* waiting(1)
      const duplicates = yield* Effect.forkChild(Effect.exit(b.followups.checkDuplicate.batch(claimed.duplicates)))
      expect(yield* waiting(2)).toBe(2)
      yield* Effect.promise(() => holder.query("COMMIT"))
      const failedBatches = [yield* Fiber.join(triage), yield* Fiber.join(duplicates)].filter(Exit.isFailure).length
      yield* settled
      expect({ failedBatches, deadlocks: (yield* deadlocks) - before }).toEqual({ failedBatches: 0, deadlocks: 0 })
      const [written] = yield* query<{ triaged: number; marked: number }>(
        `SELECT count(*) FILTER (WHERE triage_status = 'done')::int AS triaged,
          count(*) FILTER (WHERE duplicate_of IS NOT NULL)::int AS marked FROM tickets`
      )
      expect(written!.triaged).toBe(8)
      expect(written!.marked).toBeGreaterThanOrEqual(4)
    }), 60_000)

  it.live("creates beside the triage and duplicate-check batches of the same tickets deadlock nowhere", () =>
    Effect.gen(function*() {
      const { a, b, deadlocks, projectId, query } = yield* twoInstances
      const before = yield* deadlocks
      // a batch of each kind holds 32 tickets; concurrent creates go out grouped, as under load
      const perRound = 32
      const rounds = 40
      let n = 0
      const createRound = Effect.forEach(
        Array.from({ length: perRound }),
        (_, i) => createTicket(i % 2 === 0 ? a : b, projectId, n++),
        { concurrency: "unbounded", discard: true }
      )
      const pipelineRound = Effect.gen(function*() {
        const claimed = yield* claim(a, perRound)
        const failed = yield* bothBatches(a, b, claimed)
        yield* a.jobs.complete(claimed.all, Date.now())
        return { failed, claimed: claimed.all.length }
      })

      yield* createRound
      let failedBatches = 0
      for (let round = 0; round < rounds; round++) {
        const [, { failed }] = yield* Effect.all([createRound, pipelineRound], { concurrency: "unbounded" })
        failedBatches += failed
      }
      // what the rounds left is worked off
      for (let claimed = 1; claimed > 0;) {
        const round = yield* pipelineRound
        failedBatches += round.failed
        claimed = round.claimed
      }
      yield* settled
      expect({ failedBatches, deadlocks: (yield* deadlocks) - before }).toEqual({ failedBatches: 0, deadlocks: 0 })
      const [written] = yield* query<{ tickets: number; triaged: number; marked: number }>(
        `SELECT count(*)::int AS tickets, count(*) FILTER (WHERE triage_status = 'done')::int AS triaged,
          count(*) FILTER (WHERE duplicate_of IS NOT NULL)::int AS marked FROM tickets`
      )
      // the test did what it is about: every ticket written and triaged, and most marked
      expect(written!.tickets).toBe(perRound * (rounds + 1))
      expect(written!.triaged).toBe(written!.tickets)
      expect(written!.marked).toBeGreaterThan(written!.tickets / 2)
    }), 120_000)
})
