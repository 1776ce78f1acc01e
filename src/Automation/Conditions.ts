import { type Condition, type ConditionField, customFieldCondition } from "../Domain/Automation.ts"

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
  /** the ticket's custom field values by key (`{}` when none) */
  readonly custom_fields: Readonly<Record<string, unknown>>
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
    // on text a rule is never made with them (they are for number and date custom fields)
    case "gt":
    case "lt":
      return false
  }
}

/**
 * A custom field's value against a condition whose value was read as the field's type when the
 * rule was made (`12.5`, `true`, `2026-01-31`): numbers compare by size, dates (YYYY-MM-DD) as
 * text, which orders them; a ticket without a value meets only `neq`.
 */
const holdsCustom = (actual: unknown, op: Condition["op"], value: Condition["value"]) => {
  if (actual === undefined || actual === null) return op === "neq"
  if (op === "gt" || op === "lt") {
    const wanted = value as string
    const above = typeof actual === "number" ? actual > Number(wanted) : String(actual) > wanted
    const below = typeof actual === "number" ? actual < Number(wanted) : String(actual) < wanted
    return op === "gt" ? above : below
  }
  return holds(String(actual), op, value)
}

/**
 * Every condition must hold (an empty list always does). Text compares case-insensitively.
 * On `tags`, `eq`/`in`/`contains` ask whether some tag matches and `neq` whether none does.
 */
export const matches = (conditions: ReadonlyArray<Condition>, facts: TicketFacts) =>
  conditions.every((condition) => {
    if (condition.field.startsWith(customFieldCondition)) {
      const key = condition.field.slice(customFieldCondition.length)
      // own keys only: `constructor` is a valid key, and every object inherits one
      const actual = Object.hasOwn(facts.custom_fields, key) ? facts.custom_fields[key] : undefined
      return holdsCustom(actual, condition.op, condition.value)
    }
    if (condition.field === "tags") {
      const positive = condition.op === "neq" ? "eq" : condition.op
      const some = facts.tags.some((tag) => holds(tag, positive, condition.value))
      return condition.op === "neq" ? !some : some
    }
    return holds(facts[condition.field as Exclude<ConditionField, "tags">] ?? null, condition.op, condition.value)
  })
