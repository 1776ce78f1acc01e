import { Context, DateTime, Effect, Layer, Option } from "effect"
import { AppConfig } from "../Config.ts"
import { JobFailed, type JobHandler } from "../Domain/Jobs.ts"
import type { LinkedIssue } from "../Domain/Ticket.ts"
import { ErrorTracker } from "../ErrorTracker/ErrorTracker.ts"
import { Triage } from "../Triage/Triage.ts"
import { TicketsRepo } from "./Repo.ts"

const nowIso = Effect.map(DateTime.now, DateTime.formatIso)

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
    const repo = yield* TicketsRepo
    const triage = yield* Triage
    const tracker = yield* ErrorTracker
    const config = yield* AppConfig

    const runTriage: JobHandler = (job) =>
      Effect.gen(function*() {
        const found = yield* repo.findSubmitted(job.ticketId ?? "")
        if (Option.isNone(found)) return
        const ticket = found.value
        const result = yield* triage.classify({
          subject: ticket.subject,
          body: ticket.body,
          senderEmail: ticket.sender_email,
          source: ticket.source,
          tags: ticket.tags ?? [],
          metadata: ticket.metadata
        })
        yield* repo.applyTriage(ticket.id, result, {
          jobId: job.id,
          payload: job.payload.body === undefined ? null : JSON.stringify(job.payload),
          runAt: yield* nowIso
        })
      })

    const checkDuplicate: JobHandler = (job) =>
      Effect.flatMap(nowIso, (now) => repo.markDuplicate(job.ticketId ?? "", config.duplicateThreshold, now))

    const linkIssues: JobHandler = (job) =>
      Effect.gen(function*() {
        const found = yield* repo.findSubmitted(job.ticketId ?? "")
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
        yield* repo.withTransaction(Effect.gen(function*() {
          const known = new Set((yield* repo.lockLinkedIssues(ticket.id)).map((issue) => issueKey(issue as LinkedIssue)))
          const fresh = issues.filter((issue) => !known.has(issueKey(issue)))
          if (fresh.length > 0) yield* repo.linkIssues(ticket, fresh, linkNote(fresh), now)
        }))
      })

    return { runTriage, checkDuplicate, linkIssues }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(TicketsRepo.layer))
}
