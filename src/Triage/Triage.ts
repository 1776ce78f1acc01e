import { Context, type Effect } from "effect"
import type { Category, Priority, Sentiment } from "../Domain/Fields.ts"

export type { Sentiment }

/** What triage reads: the ticket as submitted. */
export interface TriageInput {
  readonly subject: string
  readonly body: string
  readonly senderEmail: string | null
  readonly source: string
  readonly tags: ReadonlyArray<string>
  readonly metadata: unknown
}

/** A judgement and how sure of it the model is, in [0, 1]. */
export interface Judged<A> {
  readonly value: A
  readonly confidence: number
}

export interface TriageResult {
  readonly category: Judged<Category>
  readonly priority: Judged<Priority>
  /** `score` in [-1, 1]: negative below zero */
  readonly sentiment: Judged<Sentiment> & { readonly score: number }
  /** which model decided, as shown in the admin read's `triage.model` (`local-nb-1`, `openai:gpt-4o-mini`) */
  readonly model: string
}

/**
 * Category, priority and sentiment of a ticket. Never fails: a provider that cannot answer
 * falls back to the local model, so a ticket is always triaged.
 */
export class Triage extends Context.Service<Triage, {
  readonly classify: (input: TriageInput) => Effect.Effect<TriageResult>
}>()("app/Triage") {}
