import { Context, Data, Effect, Layer } from "effect"
import type { LinkedIssue } from "../Domain/Ticket.ts"

export type { LinkedIssue }

/** What the tracker is asked about: the ticket as submitted. */
export interface ErrorTrackerInput {
  readonly projectId: string
  readonly ticketId: string
  readonly subject: string
  readonly body: string
  readonly metadata: unknown
}

export class ErrorTrackerUnavailable extends Data.TaggedError("ErrorTrackerUnavailable")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/**
 * Finds the error-tracker issues a ticket refers to. Fails only when the tracker cannot be
 * reached or answers with an error, so the job runner can retry later.
 */
export class ErrorTracker extends Context.Service<ErrorTracker, {
  readonly name: "none" | "sentry"
  readonly findIssues: (input: ErrorTrackerInput) => Effect.Effect<ReadonlyArray<LinkedIssue>, ErrorTrackerUnavailable>
}>()("app/ErrorTracker") {
  /** `ERROR_TRACKER=none`: nothing is linked and nothing leaves the machine. */
  static readonly none = Layer.succeed(ErrorTracker, { name: "none", findIssues: () => Effect.succeed([]) })
}
