import { Cause, Clock, Context, Duration, Effect, Exit, Fiber, FiberSet, Layer, Option, Queue, References, Schedule, Stream, Tracer } from "effect"
import { AppConfig } from "../Config.ts"
import { DatabaseInfo } from "../Database/Database.ts"
import { DatabaseOutage } from "../Database/Outage.ts"
import { type BatchJobHandler, type ClaimedJob, type HeldJob, type JobHandler, type JobKind, JobFailed, JobKinds } from "../Domain/Jobs.ts"
import { recordJobOutcome, recordJobRun } from "../Observability/Metrics.ts"
import { parentOf } from "../Observability/TraceContext.ts"
import { JobsRepo, type UndecodableJob } from "./Repo.ts"
import { backoffPolicy, delayAfter, oncePolicy, webhookPolicy } from "./Retry.ts"

/**
 * What each kind of job does, one job at a time or in batches, given that kind's payload. A kind
 * without a handler is never claimed by this instance.
 */
export class JobHandlers extends Context.Service<
  JobHandlers,
  { readonly [K in JobKind]?: JobHandler<K> | BatchJobHandler<K> }
>()("app/Jobs/JobHandlers") {}

/**
 * Jobs of a kind one instance has in hand at once, unless JOB_CONCURRENCY says otherwise. Batched
 * kinds (32 a batch) hold a few batches each, so the pipeline keeps pace with a steady flood of
 * tickets instead of building a backlog; no more, since the jobs share the process with the
 * requests and more batches in flight raised the creates' p99 and memory (`npm run bench`; the
 * figures are in the commits that set these numbers).
 */
const defaultConcurrency: Record<JobKind, number> = {
  triage: 96,
  duplicate_check: 48,
  error_link: 4,
  // an attempt mostly waits on the receiver: many in flight cost little
  webhook_delivery: 256,
  automation: 2,
  notify: 4,
  contact_notify: 4,
  sla_update: 8,
  sla_check: 8,
  satisfaction_request: 4,
  // each replay sends in order, one at a time; this many replays go on at once
  webhook_replay: 4,
  endpoint_disabled_mail: 2
}

const coalesceWindow = Duration.millis(5)
const wallClock = Clock.Clock.defaultValue()

/** A hung handler must not hold its slot forever; every edge call has a shorter time box of its own. */
const handlerTimeBox = Duration.minutes(5)

const describe = (cause: Cause.Cause<JobFailed>) =>
  Option.match(Cause.findErrorOption(cause), {
    onNone: () => Cause.pretty(cause),
    onSome: (failure) => failure.message
  })

/**
 * The worker of this instance, started as a scoped layer. One claimer fiber takes due jobs for
 * every kind with free slots in a single statement, woken by NOTIFY at commit (a slow poll when
 * notifications are lost) and by the next job falling due; each job runs in its own fiber. A
 * heartbeat keeps the leases of the jobs in hand, so a live instance never loses a job and a
 * dead one's jobs return after one lease. On shutdown the claimer stops, the jobs in hand get
 * a grace period to finish, and the rest are handed back for another instance.
 */
export const RunnerLive = Layer.effectDiscard(Effect.gen(function*() {
  const repo = yield* JobsRepo
  const handlers = yield* JobHandlers
  const config = yield* AppConfig
  const database = yield* DatabaseInfo
  const outage = yield* DatabaseOutage
  const owner = crypto.randomUUID()
  const tracing = yield* References.TracerEnabled
  const leaseMillis = Duration.toMillis(config.jobLease)
  const pollMillis = Duration.toMillis(config.jobPollInterval)

  const kinds = JobKinds.filter((kind) => handlers[kind] !== undefined)
  const capacity = Object.fromEntries(
    kinds.map((kind) => [kind, config.jobConcurrency[kind] ?? defaultConcurrency[kind]])
  ) as Record<JobKind, number>
  const busy = Object.fromEntries(kinds.map((kind) => [kind, 0])) as Record<JobKind, number>
  // a kind whose last claim filled every free slot may have more due: a freed slot claims again
  const backlog = Object.fromEntries(kinds.map((kind) => [kind, false])) as Record<JobKind, boolean>

  const webhookRetries = webhookPolicy(config.webhookRetrySchedule)
  const policyOf = (job: ClaimedJob): Schedule.Schedule<unknown, unknown> =>
    job.kind === "webhook_delivery"
      ? (job.payload.once === true ? oncePolicy : webhookRetries)
      : backoffPolicy

  const wake = yield* Queue.sliding<void>(1)

  // the jobs whose leases the heartbeat keeps: from their claim until their outcome is recorded,
  // or could not be; a job let go with its outcome unrecorded runs again once its lease runs out
  const inHand = new Set<string>()
  const letGo = (jobs: ReadonlyArray<HeldJob>) => Effect.sync(() => jobs.forEach((job) => inHand.delete(job.id)))

  // finished jobs are marked done in batches: one statement for all that finished meanwhile
  const finished = yield* Queue.unbounded<HeldJob>()
  const markDone = (jobs: ReadonlyArray<HeldJob>) =>
    jobs.length === 0
      ? Effect.void
      : Effect.flatMap(Clock.currentTimeMillis, (now) => repo.complete(jobs, now)).pipe(Effect.ensuring(letGo(jobs)))
  const logBookkeeping = Effect.catchCause(outage.logUnlessAway("recording finished jobs failed; they will run again"))
  // registered first, so it runs last: what finished during the shutdown grace is recorded too
  yield* Effect.addFinalizer(() => Effect.flatMap(Queue.clear(finished), markDone).pipe(logBookkeeping))
  yield* Queue.takeBetween(finished, 1, 500).pipe(
    // once taken from the queue, a batch is written even when the runner is stopping
    Effect.flatMap((jobs) => Effect.uninterruptible(markDone(jobs))),
    logBookkeeping,
    Effect.forever,
    Effect.withTracerEnabled(false),
    Effect.forkScoped
  )
  const running = yield* FiberSet.make<void>()

  /** Records how an attempt ended: done, due again on its schedule, or failed for good. */
  const settle = (job: HeldJob, retryDelay: Option.Option<Duration.Duration>, exit: Exit.Exit<void, JobFailed>) =>
    Effect.gen(function*() {
      const context = yield* Effect.context<never>()
      if (exit._tag === "Success") {
        recordJobOutcome(context, job.kind, "succeeded")
        return yield* Queue.offer(finished, job)
      }
      const now = yield* Clock.currentTimeMillis
      // the database went away under it: no fault of the job's, so it is handed back with its attempt
      if (yield* outage.absorbs(exit.cause, "background")) {
        return yield* repo.release(job, now).pipe(Effect.ensuring(letGo([job])))
      }
      const failure = Cause.findErrorOption(exit.cause)
      const postponeFor = Option.isSome(failure) ? failure.value.postponeFor : undefined
      if (postponeFor !== undefined) {
        yield* repo.release(job, now, now + Duration.toMillis(postponeFor)).pipe(Effect.ensuring(letGo([job])))
        return yield* Queue.offer(wake, undefined)
      }
      const error = describe(exit.cause)
      const decided = Option.isSome(failure) ? failure.value.retryDelay : undefined
      const retryAt = Option.map(decided ?? retryDelay, (delay) => now + Duration.toMillis(delay))
      recordJobOutcome(context, job.kind, Option.isSome(retryAt) ? "retried" : "failed")
      yield* Effect.logWarning(
        Option.isSome(retryAt)
          ? `job failed (attempt ${job.attempts}); retrying at ${new Date(retryAt.value).toISOString()}: ${error}`
          : `job failed for good after ${job.attempts} attempts: ${error}`
      ).pipe(Effect.annotateLogs({ job_id: job.id, job_kind: job.kind }))
      yield* repo.fail(job, now, error, Option.getOrUndefined(retryAt)).pipe(Effect.ensuring(letGo([job])))
      // the claimer's sleep was set before this retry existed: let it look again
      if (Option.isSome(retryAt)) yield* Queue.offer(wake, undefined)
    })

  const timeBoxed = (kind: JobKind, attempt: Effect.Effect<void, JobFailed>) =>
    Effect.withFiber((fiber) => {
      const clock = fiber.getRef(Clock.Clock)
      const start = clock.currentTimeNanosUnsafe()
      return attempt.pipe(
        Effect.timeoutOrElse({
          duration: handlerTimeBox,
          orElse: () => Effect.fail(new JobFailed({ message: `no outcome within ${Duration.format(handlerTimeBox)}` }))
        }),
        Effect.exit,
        Effect.tap(() => Effect.sync(() => recordJobRun(fiber.context, kind, Number(clock.currentTimeNanosUnsafe() - start) / 1e9)))
      )
    })

  const spanOptions = (job: HeldJob) => ({
    parent: parentOf(job.trace ?? null),
    // without a stored trace, a trace of its own
    root: true,
    kind: "consumer" as const,
    attributes: { "job.id": job.id, "job.kind": job.kind, "job.attempt": job.attempts }
  })

  /**
   * A job whose trace is not kept runs without spans, as a request that is not kept does, under
   * its stored trace: the jobs it writes carry the same decision.
   */
  const notKept = (jobs: ReadonlyArray<HeldJob>) => {
    const parents = jobs.map((job) => parentOf(job.trace ?? null))
    return parents.every((parent) => parent !== undefined && !parent.sampled) ? parents[0] : undefined
  }
  const untracedUnder = (parent: Tracer.AnySpan) => <A, E, R>(run: Effect.Effect<A, E, R>) =>
    run.pipe(Effect.provideService(Tracer.ParentSpan, parent), Effect.withTracerEnabled(false))

  const tracedJob = (kind: JobKind, job: HeldJob, run: Effect.Effect<void, JobFailed>) => {
    const parent = notKept([job])
    return parent === undefined ? Effect.withSpan(run, `job ${kind}`, spanOptions(job)) : untracedUnder(parent)(run)
  }

  /**
   * A batch's jobs came from different requests: each gets a span of its own in its own trace,
   * for the batch's whole run. The batch's statements go in one span under the first of them
   * that is kept, linked to the others.
   */
  const tracedBatch = (kind: JobKind, jobs: ReadonlyArray<HeldJob>, run: Effect.Effect<void, JobFailed>) =>
    Effect.gen(function*() {
      const parent = notKept(jobs)
      if (parent !== undefined) return yield* untracedUnder(parent)(run)
      const spans = yield* Effect.forEach(jobs, (job) => Effect.makeSpan(`job ${kind}`, spanOptions(job)))
      const kept = spans.find((span) => span.sampled)
      const exit = yield* Effect.exit(
        kept === undefined ? untracedUnder(spans[0]!)(run) : run.pipe(
          Effect.withSpan(`job ${kind} batch`, {
            parent: kept,
            attributes: { "job.kind": kind, "job.batch_size": jobs.length },
            links: spans.filter((span) => span !== kept).map((span) => ({ span, attributes: {} }))
          })
        )
      )
      const end = yield* Clock.currentTimeNanos
      for (const span of spans) span.end(end, exit)
      return yield* exit
    })

  /** Runs jobs of one kind, by themselves or as one batch, and gives their slots back after. */
  const runJobs = <K extends JobKind>(kind: K, jobs: ReadonlyArray<ClaimedJob<K>>, handler: JobHandler<K> | BatchJobHandler<K>) =>
    Effect.gen(function*() {
      const retryDelays = yield* Effect.forEach(jobs, (job) => delayAfter(policyOf(job), job.attempts))
      if (typeof handler === "function") {
        const job = jobs[0]!
        const exit = yield* timeBoxed(
          kind,
          tracedJob(kind, job, handler(job, { retryDelay: retryDelays[0]! }))
        )
        return yield* settle(job, retryDelays[0]!, exit)
      }
      const exit = yield* timeBoxed(kind, tracing ? tracedBatch(kind, jobs, handler.batch(jobs)) : handler.batch(jobs))
      yield* Effect.forEach(jobs, (job, i) => settle(job, retryDelays[i]!, exit), { discard: true })
    }).pipe(
      // the claimer that forks this runs untraced; a job's run is traced when tracing is on
      Effect.withTracerEnabled(tracing),
      Effect.onInterrupt(() =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.forEach(jobs, (job) => repo.release(job, now), { discard: true }))
          .pipe(Effect.ensuring(letGo(jobs)))
      ),
      Effect.catchCause((cause) =>
        Effect.andThen(letGo(jobs), outage.logUnlessAway("job bookkeeping failed; it runs again once its lease runs out")(cause))
      ),
      Effect.ensuring(Effect.suspend(() => {
        busy[kind] -= jobs.length
        return backlog[kind] ? Queue.offer(wake, undefined) : Effect.void
      })),
      Effect.annotateLogs(jobs.length === 1 ? { job_id: jobs[0]!.id, job_kind: kind } : { job_kind: kind })
    )

  /** A job no handler can read would fail the same way on every attempt: it fails for good at once. */
  const failUndecodable = ({ error, job }: UndecodableJob) =>
    settle(job, Option.none(), Exit.fail(new JobFailed({ message: error }))).pipe(
      Effect.catchCause(
        outage.logUnlessAway("could not record an undecodable job as failed; it is claimed again once its lease runs out")
      ),
      // it took a slot of the claim without holding one after: more of its kind may be due
      Effect.ensuring(Effect.suspend(() => backlog[job.kind] ? Queue.offer(wake, undefined) : Effect.void)),
      Effect.annotateLogs({ job_id: job.id, job_kind: job.kind })
    )

  /** Starts the claimed jobs of `kind`, alone or in batches, and fails those that do not decode. */
  const start = <K extends JobKind>(
    kind: K,
    limit: number,
    claimed: { readonly jobs: ReadonlyArray<ClaimedJob>; readonly undecodable: ReadonlyArray<UndecodableJob> }
  ) =>
    Effect.gen(function*() {
      const jobs = claimed.jobs.filter((job): job is ClaimedJob<K> => job.kind === kind)
      const undecodable = claimed.undecodable.filter(({ job }) => job.kind === kind)
      backlog[kind] = jobs.length + undecodable.length === limit
      const handler = handlers[kind]!
      const size = typeof handler === "function" ? 1 : handler.size
      busy[kind] += jobs.length
      for (const job of jobs) inHand.add(job.id)
      for (let first = 0; first < jobs.length; first += size) {
        yield* FiberSet.run(running, runJobs(kind, jobs.slice(first, first + size), handler))
      }
      for (const entry of undecodable) yield* FiberSet.run(running, failUndecodable(entry))
    })

  const claimOnce = Effect.gen(function*() {
    const limits = kinds
      .filter((kind) => busy[kind] < capacity[kind])
      .map((kind) => ({ kind, limit: capacity[kind] - busy[kind] }))
    const now = yield* Clock.currentTimeMillis
    if (limits.length === 0) return now + pollMillis
    const claimed = yield* repo.claim({ now, leaseUntil: now + leaseMillis, owner, limits })
    for (const { kind, limit } of limits) yield* start(kind, limit, claimed)
    return Math.min(now + pollMillis, claimed.nextDue ?? Infinity)
  })

  const claimLoop = Effect.gen(function*() {
    const wakeAt = yield* claimOnce
    const now = yield* Clock.currentTimeMillis
    yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(Duration.millis(Math.max(0, wakeAt - now))))
    // under a stream of commits, one claim per NOTIFY would be a query per ticket: gather the
    // commits of a few milliseconds into one claim. Wall-clock on purpose: it batches real I/O
    // and is no delay a test steps through, so TestClock has no say in it.
    yield* Effect.sleep(coalesceWindow).pipe(Effect.provideService(Clock.Clock, wallClock))
  }).pipe(
    Effect.catchCause((cause) =>
      Effect.andThen(outage.logUnlessAway("claiming jobs failed; trying again")(cause), Effect.sleep("1 second"))
    ),
    Effect.forever,
    // a claim every few milliseconds would be a trace of its own each time
    Effect.withTracerEnabled(false)
  )

  if (kinds.length === 0) return
  yield* database.listen("jobs").pipe(
    Stream.runForEach(() => Queue.offer(wake, undefined)),
    Effect.withTracerEnabled(false),
    Effect.forkScoped
  )
  yield* Effect.flatMap(Clock.currentTimeMillis, (now) => repo.renewLeases(owner, now + leaseMillis, [...inHand])).pipe(
    Effect.catchCause(outage.logUnlessAway("renewing job leases failed")),
    Effect.repeat(Schedule.spaced(Duration.millis(leaseMillis / 3))),
    Effect.withTracerEnabled(false),
    Effect.forkScoped
  )
  yield* Effect.flatMap(Clock.currentTimeMillis, repo.prune).pipe(
    Effect.catchCause(outage.logUnlessAway("pruning finished jobs failed")),
    Effect.repeat(Schedule.spaced("1 hour")),
    Effect.delay("1 minute"),
    Effect.withTracerEnabled(false),
    Effect.forkScoped
  )
  const claimer = yield* Effect.forkScoped(claimLoop)
  // runs before the FiberSet closes (finalizers run in reverse), while the heartbeat still beats
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      yield* Fiber.interrupt(claimer)
      const size = yield* FiberSet.size(running)
      if (size === 0) return
      yield* Effect.logInfo(`waiting up to ${Duration.format(config.jobShutdownGrace)} for ${size} ${size === 1 ? "job" : "jobs"} in hand`)
      // a finalizer is uninterruptible: without this the time box could not stop the wait
      const done = yield* FiberSet.awaitEmpty(running).pipe(
        Effect.interruptible,
        Effect.timeoutOption(config.jobShutdownGrace)
      )
      if (Option.isNone(done)) {
        yield* Effect.logWarning(`handing back ${yield* FiberSet.size(running)} unfinished jobs`)
      }
    })
  )
}))
