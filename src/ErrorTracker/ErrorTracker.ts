import { Context, Data, Effect, Layer } from "effect"

/** What the tracker is asked about: the ticket as submitted. */
export interface ErrorTrackerInput {
  readonly projectId: string
  readonly ticketId: string
  readonly subject: string
  readonly body: string
  readonly metadata: unknown
}

/** One issue of the error tracker that the ticket refers to, as stored in `linked_issues`. */
export interface LinkedIssue {
  readonly provider: "sentry"
  /** the tracker's issue id */
  readonly id: string
  readonly short_id: string | null
  readonly title: string | null
  readonly url: string
  /** how it was found: an issue URL in the text, an event id, or a search for the error message */
  readonly matched_by: "issue_url" | "event_id" | "search"
}

/**
 * Finds the error-tracker issues a ticket refers to. Fails only when the tracker cannot be
 * reached or answers with an error, so the job runner can retry later.
 */
export class ErrorTracker extends Context.Tag("app/ErrorTracker")<ErrorTracker, {
  readonly name: "none" | "sentry"
  readonly findIssues: (input: ErrorTrackerInput) => Effect.Effect<ReadonlyArray<LinkedIssue>, ErrorTrackerUnavailable>
}>() {
  /** `ERROR_TRACKER=none`: nothing is linked and nothing leaves the machine. */
  static readonly none = Layer.succeed(ErrorTracker, { name: "none", findIssues: () => Effect.succeed([]) })
}

export class ErrorTrackerUnavailable extends Data.TaggedError("ErrorTrackerUnavailable")<{
  readonly message: string
  readonly cause?: unknown
}> {}
