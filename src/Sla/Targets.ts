import { addBusinessTime, type BusinessHours, businessTimeBetween } from "../Domain/BusinessHours.ts"
import type { SlaTarget } from "../Domain/Events.ts"
import type { SlaState, StoredPolicy, TicketFacts } from "./Repo.ts"

/** How a policy counts time: every millisecond, or only those inside the project's business hours. */
export interface Measure {
  readonly add: (from: number, millis: number) => number
  readonly between: (a: number, b: number) => number
}

export const calendarTime: Measure = { add: (from, millis) => from + millis, between: (a, b) => Math.max(0, b - a) }

export const businessTime = (hours: BusinessHours): Measure => ({
  add: (from, millis) => addBusinessTime(hours, from, millis),
  between: (a, b) => businessTimeBetween(hours, a, b)
})

export interface Breach {
  readonly target: SlaTarget
  readonly dueAt: number
  readonly breachedAt: number
}

export interface Check {
  readonly target: SlaTarget
  readonly dueAt: number
}

export interface NextState {
  readonly state: SlaState
  /** targets breached by this step: each fires its event once, here */
  readonly breaches: ReadonlyArray<Breach>
  /** due times set or moved by this step, to look at again when they fall due */
  readonly checks: ReadonlyArray<Check>
}

const minute = 60_000

/**
 * A ticket's service level after a change (or at a due time), from the policy that matches it,
 * what it was before and the time now. Due times count from the ticket's creation, so working
 * them out a moment later changes nothing. The first public agent reply meets the first-response
 * target, as resolving or closing the ticket does if no reply came first; resolving or closing
 * meets the resolution target, and reopening unmeets it against the same due time. Waiting on
 * the customer stops the resolution clock when the policy says so (and the target is not due
 * yet): the time it stood still moves the due time on when it runs again. A target is breached
 * once its due time has passed unmet; a due time that moves clears an earlier breach, which was
 * a breach of the old one.
 */
export const nextState = (
  policy: StoredPolicy,
  measure: Measure,
  facts: TicketFacts,
  previous: SlaState | undefined,
  now: number
): NextState => {
  const done = facts.status === "resolved" || facts.status === "closed"
  // the last change to the ticket is when it went waiting, was resolved, or came back
  const changedAt = facts.updatedAt
  const breaches: Array<Breach> = []
  const checks: Array<Check> = []

  const settle = <T extends { readonly dueAt: number; readonly metAt: number | null; readonly breachedAt: number | null }>(
    target: SlaTarget,
    next: T,
    before: { readonly dueAt: number } | null | undefined,
    paused: boolean
  ): T => {
    const moved = before == null || before.dueAt !== next.dueAt
    const late = next.metAt === null || next.metAt > next.dueAt
    if (!paused && next.breachedAt === null && late && next.dueAt <= now) {
      breaches.push({ target, dueAt: next.dueAt, breachedAt: next.dueAt })
      return { ...next, breachedAt: next.dueAt }
    }
    if (!paused && next.metAt === null && next.breachedAt === null && next.dueAt > now && moved) {
      checks.push({ target, dueAt: next.dueAt })
    }
    return next
  }

  const firstResponse = (() => {
    if (policy.first_response_minutes === null) return null
    const before = previous?.firstResponse
    const dueAt = measure.add(facts.createdAt, policy.first_response_minutes * minute)
    const metAt = facts.firstReplyAt ?? (done ? (before?.metAt ?? changedAt) : null)
    const breachedAt = before != null && before.dueAt === dueAt ? before.breachedAt : null
    return settle("first_response", { dueAt, metAt, breachedAt }, before, false)
  })()

  const resolution = (() => {
    if (policy.resolution_minutes === null) return null
    const before = previous?.resolution
    const target = policy.resolution_minutes * minute
    const pausing = facts.status === "waiting" && policy.pause_when_waiting
    let credit = before?.creditMillis ?? 0
    let pausedAt = before?.pausedAt ?? null
    if (pausedAt !== null && !pausing) {
      credit += measure.between(pausedAt, Math.max(pausedAt, changedAt))
      pausedAt = null
    }
    const dueAt = measure.add(facts.createdAt, target + credit)
    if (pausedAt === null && pausing && changedAt < dueAt && (before?.breachedAt ?? null) === null) pausedAt = changedAt
    const metAt = done ? (before?.metAt ?? changedAt) : null
    const breachedAt = before != null && before.dueAt === dueAt ? before.breachedAt : null
    const resumed = (before?.pausedAt ?? null) !== null && pausedAt === null
    const next = settle(
      "resolution",
      { dueAt, metAt, breachedAt, pausedAt, creditMillis: credit },
      resumed ? null : before,
      pausedAt !== null
    )
    return next
  })()

  return {
    state: { policyId: policy.id, policyName: policy.name, firstResponse, resolution },
    breaches,
    checks
  }
}
