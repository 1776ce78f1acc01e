import { Schema } from "effect"
import { TicketEventKinds } from "./Events.ts"
import { OneOf, RequiredText, Text, Uuid } from "./Fields.ts"
import { isFieldKey } from "./CustomField.ts"

export const ConditionFields = ["status", "priority", "category", "source", "tags", "sender_email", "message_body"] as const
export type ConditionField = (typeof ConditionFields)[number]
/** `gt` and `lt` compare the values of number and date custom fields only. */
export const ConditionOps = ["eq", "neq", "in", "contains", "gt", "lt"] as const
export const ActionTypes = ["set_status", "set_priority", "add_tag", "assign"] as const

/** A condition's field that names a custom field: this, then the field's key. */
export const customFieldCondition = "custom_fields."

const ConditionFieldName = Text("conditions[].field").pipe(
  Schema.check(Schema.makeFilter((field: string) =>
    (ConditionFields as ReadonlyArray<string>).includes(field) ||
    (field.startsWith(customFieldCondition) && isFieldKey(field.slice(customFieldCondition.length))) ||
    `conditions[].field must be one of ${ConditionFields.join(", ")}, or custom_fields.<key>`
  ))
)

export const Condition = Schema.Struct({
  field: ConditionFieldName,
  op: OneOf("conditions[].op", ConditionOps),
  value: Schema.Union([Text("conditions[].value"), Schema.Array(Text("conditions[].value[]"))]).annotate({
    message: "conditions[].value must be a string, or an array of strings for op in"
  })
}).pipe(
  Schema.check(Schema.makeFilter((condition) =>
    (condition.op === "in") === Array.isArray(condition.value) ||
    (condition.op === "in"
      ? "conditions[].value must be an array of strings for op in"
      : `conditions[].value must be a string for op ${condition.op}`)
  ))
)
export type Condition = typeof Condition.Type

export const Action = Schema.Struct({
  type: OneOf("actions[].type", ActionTypes),
  value: Text("actions[].value")
})
export type Action = typeof Action.Type

export const CreateRuleInput = Schema.Struct({
  name: RequiredText("name", 200),
  event: OneOf("event", TicketEventKinds),
  conditions: Schema.Array(Condition).pipe(
    Schema.check(Schema.makeFilter((list) => list.length <= 20 || "conditions must hold at most 20 conditions"))
  ),
  actions: Schema.Array(Action).pipe(
    Schema.check(
      Schema.makeFilter((list) => list.length > 0 || "actions must hold at least one action"),
      Schema.makeFilter((list) => list.length <= 10 || "actions must hold at most 10 actions")
    )
  )
}).annotate({ message: "request body must be a JSON object", identifier: "CreateRuleInput" })
export type CreateRuleInput = typeof CreateRuleInput.Type

export const RuleCreated = Schema.Struct({ rule_id: Uuid })

export const Rule = Schema.Struct({
  rule_id: Uuid,
  name: Schema.String,
  event: Schema.String,
  conditions: Schema.Array(Schema.Struct({ field: Schema.String, op: Schema.String, value: Schema.Unknown })),
  actions: Schema.Array(Schema.Struct({ type: Schema.String, value: Schema.String })),
  created_at: Schema.String
}).annotate({ identifier: "AutomationRule" })
export type Rule = typeof Rule.Type
export const RuleList = Schema.Struct({ rules: Schema.Array(Rule) })

export const AppliedAction = Schema.Struct({ type: Schema.String, value: Schema.String, applied: Schema.Boolean })
export type AppliedAction = typeof AppliedAction.Type

export const RuleRun = Schema.Struct({
  run_id: Uuid,
  ticket_id: Schema.NullOr(Uuid),
  event: Schema.String,
  matched: Schema.Boolean,
  actions: Schema.Array(AppliedAction),
  created_at: Schema.String
}).annotate({ identifier: "AutomationRun" })
export type RuleRun = typeof RuleRun.Type
export const RuleRunList = Schema.Struct({ runs: Schema.Array(RuleRun) })
