import { Schema } from "effect"
import { EventKinds } from "./Events.ts"
import { OneOf, RequiredText } from "./Fields.ts"

const bodyMustBeObject = { message: () => ({ message: "request body must be a JSON object", override: false }) }

export const ConditionFields = ["status", "priority", "category", "source", "tags", "sender_email", "message_body"] as const
export const ActionTypes = ["set_status", "set_priority", "add_tag", "assign"] as const

const Text = Schema.String.annotations({ message: () => ({ message: "value must be a string", override: true }) })

export const Condition = Schema.Struct({
  field: OneOf("conditions[].field", ConditionFields),
  op: OneOf("conditions[].op", ["eq", "neq", "in", "contains"]),
  value: Schema.Union(Text, Schema.Array(Text)).annotations({
    message: () => ({ message: "conditions[].value must be a string, or an array of strings for op in", override: true })
  })
}).pipe(
  Schema.filter((condition) =>
    (condition.op === "in") === Array.isArray(condition.value) ||
    (condition.op === "in"
      ? "conditions[].value must be an array of strings for op in"
      : `conditions[].value must be a string for op ${condition.op}`)
  )
)
export type Condition = typeof Condition.Type

export const Action = Schema.Struct({
  type: OneOf("actions[].type", ActionTypes),
  value: Text
})
export type Action = typeof Action.Type

export const CreateRuleInput = Schema.Struct({
  name: RequiredText("name", 200),
  event: OneOf("event", EventKinds),
  conditions: Schema.Array(Condition).pipe(
    Schema.filter((list) => list.length <= 20 || "conditions must hold at most 20 conditions")
  ),
  actions: Schema.Array(Action).pipe(
    Schema.filter((list) => list.length > 0 || "actions must hold at least one action"),
    Schema.filter((list) => list.length <= 10 || "actions must hold at most 10 actions")
  )
}).annotations({ ...bodyMustBeObject, identifier: "CreateRuleInput" })
export type CreateRuleInput = typeof CreateRuleInput.Type

export const RuleCreated = Schema.Struct({ rule_id: Schema.UUID })

export const Rule = Schema.Struct({
  rule_id: Schema.UUID,
  name: Schema.String,
  event: Schema.String,
  conditions: Schema.Array(Schema.Struct({ field: Schema.String, op: Schema.String, value: Schema.Unknown })),
  actions: Schema.Array(Schema.Struct({ type: Schema.String, value: Schema.String })),
  created_at: Schema.String
}).annotations({ identifier: "AutomationRule" })
export type Rule = typeof Rule.Type
export const RuleList = Schema.Struct({ rules: Schema.Array(Rule) })

export const RuleRun = Schema.Struct({
  run_id: Schema.UUID,
  ticket_id: Schema.NullOr(Schema.UUID),
  event: Schema.String,
  matched: Schema.Boolean,
  actions: Schema.Array(Schema.Struct({ type: Schema.String, value: Schema.String, applied: Schema.Boolean })),
  created_at: Schema.String
}).annotations({ identifier: "AutomationRun" })
export type RuleRun = typeof RuleRun.Type
export const RuleRunList = Schema.Struct({ runs: Schema.Array(RuleRun) })
