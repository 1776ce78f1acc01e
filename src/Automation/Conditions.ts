import type { Condition } from "../Domain/Automation.ts"

/** What a rule's conditions can see of a ticket when its event fires. */
export interface TicketFacts {
  readonly status: string
  readonly priority: string
  readonly category: string | null
  readonly source: string
  readonly tags: ReadonlyArray<string>
  readonly sender_email: string | null
  /** the message of a `ticket_replied` event, the ticket's body for `ticket_created`, else null */
  readonly message_body: string | null
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

const holds = (actual: string | null, op: Condition["op"], value: Condition["value"]) => {
  if (actual === null) return op === "neq"
  switch (op) {
    case "eq":
      return same(actual, value as string)
    case "neq":
      return !same(actual, value as string)
    case "in":
      return (value as ReadonlyArray<string>).some((candidate) => same(actual, candidate))
    case "contains":
      return actual.toLowerCase().includes((value as string).toLowerCase())
  }
}

/**
 * Every condition must hold (an empty list always does). Text compares case-insensitively.
 * On `tags`, `eq`/`in`/`contains` ask whether some tag matches and `neq` whether none does.
 */
export const matches = (conditions: ReadonlyArray<Condition>, facts: TicketFacts) =>
  conditions.every((condition) => {
    if (condition.field === "tags") {
      const positive = condition.op === "neq" ? "eq" : condition.op
      const some = facts.tags.some((tag) => holds(tag, positive, condition.value))
      return condition.op === "neq" ? !some : some
    }
    return holds(facts[condition.field], condition.op, condition.value)
  })
