import { Context, DateTime, Effect, Layer, Option } from "effect"
import { AppConfig } from "../Config.ts"
import { type BatchJobHandler, JobFailed, type HeldJob, type JobHandler } from "../Domain/Jobs.ts"
import type { LinkedIssue } from "../Domain/Ticket.ts"
import { ErrorTracker } from "../ErrorTracker/ErrorTracker.ts"
import { Triage } from "../Triage/Triage.ts"
import { type DuplicateMatch, duplicateScorer } from "./Duplicates.ts"
import { FollowupsRepo } from "./FollowupsRepo.ts"
import { TicketsRepo } from "./TicketsRepo.ts"

const nowIso = Effect.map(DateTime.now, DateTime.formatIso)

/** The tickets a batch of jobs is about; a job without one has nothing to do. */
const ticketsOf = (jobs: ReadonlyArray<HeldJob>) => jobs.flatMap((job) => job.ticketId === null ? [] : [job.ticketId])

/**
 * Tickets a triage or duplicate-check statement takes at once: large enough that a flood costs a
 * statement per batch rather than per ticket, small enough that one batch stays a short query.
 */
const batchSize = 32

/** Classifications of a batch in flight at once: a network model answers each in its own time. */
const classifyConcurrency = 8

/**
 * How long the batches' CPU work (the built-in model, the duplicate scores) holds the event loop
 * before it gives it back. A whole batch worked in one go held requests up for tens of
 * milliseconds, enough to reach the creates' p99; giving the loop back before every ticket made
 * each ticket wait a whole turn of request work and the pipeline fall behind. A slice of a few
 * milliseconds keeps both short.
 */
const sliceMillis = 4

/** When the current slice began (`performance.now()`): one for all the batches of the process. */
let sliceStartedAt = Number.NEGATIVE_INFINITY

/**
 * `work`, in the current slice while it lasts, else after the requests that arrived meanwhile.
 * Of the fibers given the loop back together, the first to run again starts the next slice; the
 * others run in it while it lasts and give the loop back again after.
 */
export const inTurn = <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    if (performance.now() - sliceStartedAt < sliceMillis) return work
    const gaveBackAt = performance.now()
    return Effect.andThen(
      Effect.yieldNow,
      Effect.suspend(() => {
        if (sliceStartedAt > gaveBackAt) return inTurn(work)
        sliceStartedAt = performance.now()
        return work
      })
    )
  })

const issueKey = (issue: { readonly provider?: unknown; readonly id?: unknown }) => `${issue.provider}:${issue.id}`

const linkNote = (fresh: ReadonlyArray<LinkedIssue>) =>
  [
    `Linked ${fresh.length === 1 ? "an error-tracker issue" : `${fresh.length} error-tracker issues`}:`,
    ...fresh.map((issue) => `- ${issue.short_id ?? issue.id}${issue.title ? ` ${issue.title}` : ""} (${issue.url})`)
  ].join("\n")

/**
 * The work that follows a new ticket: triage, duplicate detection and error-tracker links.
 * Each is a job handler that may run more than once (at-least-once), so each writes only what
 * is not there yet: triage never overwrites a person's value, a duplicate is marked once, an
 * issue is linked once.
 */
export class Followups extends Context.Service<Followups>()("app/Tickets/Followups", {
  make: Effect.gen(function*() {
    const repo = yield* FollowupsRepo
    const tickets = yield* TicketsRepo
    const triage = yield* Triage
    const tracker = yield* ErrorTracker
    const config = yield* AppConfig

    /**
     * Triage of a batch: the tickets read in one query, classified (a network model a few at a
     * time), and the results written in one statement. A ticket deleted meanwhile is skipped.
     */
    const runTriage: BatchJobHandler<"triage"> = {
      size: batchSize,
      batch: (jobs) =>
        Effect.gen(function*() {
          const tickets = yield* repo.findSubmittedMany(ticketsOf(jobs))
          const jobOf = new Map(jobs.map((job) => [job.ticketId, job]))
          const runAt = yield* nowIso
          const results = yield* Effect.forEach(tickets, (ticket) =>
            inTurn(Effect.map(
              triage.classify({
                subject: ticket.subject,
                body: ticket.body,
                senderEmail: ticket.sender_email,
                source: ticket.source,
                tags: ticket.tags ?? [],
                metadata: ticket.metadata
              }),
              (result) => {
                const job = jobOf.get(ticket.id)!
                return {
                  ticketId: ticket.id,
                  result,
                  automation: {
                    jobId: job.id,
                    // the automation job carries the event as triage got it: the same text
                    payload: JSON.stringify(job.payload),
                    runAt
                  }
                }
              }
            )), { concurrency: classifyConcurrency })
          yield* repo.applyTriage(results)
        })
    }

    const checkDuplicate: BatchJobHandler<"duplicate_check"> = {
      size: batchSize,
      batch: (jobs) =>
        Effect.gen(function*() {
          const scorer = duplicateScorer(yield* repo.duplicateCandidates(ticketsOf(jobs)), config.duplicateThreshold)
          const found = yield* Effect.forEach(scorer.checked, (ticket) => inTurn(Effect.sync(() => scorer.closestTo(ticket))))
          const matches = found.filter((match): match is DuplicateMatch => match !== undefined)
          if (matches.length > 0) yield* repo.markDuplicates(matches, yield* nowIso)
        })
    }

    const linkIssues: JobHandler<"error_link"> = (job) =>
      Effect.gen(function*() {
        if (job.ticketId === null) return
        const found = yield* repo.findSubmitted(job.ticketId)
        if (Option.isNone(found)) return
        const ticket = found.value
        const issues = yield* tracker.findIssues({
          projectId: ticket.project_id,
          ticketId: ticket.id,
          subject: ticket.subject,
          body: ticket.body,
          metadata: ticket.metadata
        }).pipe(Effect.mapError((error) => new JobFailed({ message: error.message, cause: error })))
        if (issues.length === 0) return
        const now = yield* nowIso
        yield* tickets.withTransaction(Effect.gen(function*() {
          const known = new Set((yield* repo.lockLinkedIssues(ticket.id)).map((issue) => issueKey(issue as LinkedIssue)))
          const fresh = issues.filter((issue) => !known.has(issueKey(issue)))
          if (fresh.length > 0) yield* repo.linkIssues(ticket, fresh, linkNote(fresh), now)
        }))
      })

    return { runTriage, checkDuplicate, linkIssues }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([FollowupsRepo.layer, TicketsRepo.layer]))
}
