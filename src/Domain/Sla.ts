import { Schema, SchemaGetter } from "effect"
import { Condition } from "./Automation.ts"
import { OneOf, optional, RequiredText, Uuid } from "./Fields.ts"
import type { NewJob } from "./Jobs.ts"

export const SlaHours = ["calendar", "business"] as const
export type SlaHours = (typeof SlaHours)[number]

/** A year, the longest target a policy can set. */
const maxMinutes = 525_600

// Finite, not Number: Number's JSON form also takes the strings "NaN" and "Infinity", and a
// string would then be refused as that rather than with the field's own message
const Minutes = (field: string) =>
  Schema.Finite.annotate({ message: `${field} must be an integer from 1 to ${maxMinutes}` }).check(
    Schema.makeFilter((n: number) =>
      (Number.isInteger(n) && n >= 1 && n <= maxMinutes) || `${field} must be an integer from 1 to ${maxMinutes}`
    )
  )

/** A target in minutes, or null (no such target); a value of another JSON type gets the field's own message. */
const OptionalMinutes = (field: string) =>
  Schema.optionalKey(Schema.NullOr(Minutes(field)).annotate({ message: `${field} must be an integer from 1 to ${maxMinutes}` }))

const Position = Schema.Finite.annotate({ message: "position must be a positive integer" }).check(
  Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= 1 && n <= 10_000) || "position must be an integer from 1 to 10000")
)

const Conditions = Schema.Array(Condition).annotate({ message: "conditions must be an array of {field, op, value}" }).pipe(
  Schema.check(Schema.makeFilter((list) => list.length <= 20 || "conditions must hold at most 20 conditions"))
)

const PauseWhenWaiting = Schema.Boolean.annotate({ message: "pause_when_waiting must be true or false" })

/** What a policy is made of; a create must name it, a change may leave anything out. */
const policyFields = {
  conditions: optional(Conditions),
  first_response_minutes: OptionalMinutes("first_response_minutes"),
  resolution_minutes: OptionalMinutes("resolution_minutes"),
  hours: optional(OneOf("hours", SlaHours)),
  pause_when_waiting: optional(PauseWhenWaiting),
  position: Schema.optionalKey(Schema.NullOr(Position).annotate({ message: "position must be an integer from 1 to 10000" }))
}

export const CreatePolicyInput = Schema.Struct({ name: RequiredText("name", 200), ...policyFields }).annotate({ message: "request body must be a JSON object", identifier: "CreateSlaPolicyInput" }).pipe(
  Schema.check(Schema.makeFilter((input) =>
    input.first_response_minutes != null || input.resolution_minutes != null ||
    "first_response_minutes or resolution_minutes is required"
  ))
)
export type CreatePolicyInput = typeof CreatePolicyInput.Type

/** A change to a policy: what is given changes; a target given as null is removed. */
export const UpdatePolicyInput = Schema.Struct({ name: optional(RequiredText("name", 200)), ...policyFields }).annotate({ message: "request body must be a JSON object", identifier: "UpdateSlaPolicyInput" })
export type UpdatePolicyInput = typeof UpdatePolicyInput.Type

export const PolicyOrderInput = Schema.Struct({
  policy_ids: Schema.Array(Schema.String.annotate({ message: "policy_ids[] must be a policy id" }))
    .annotate({ message: "policy_ids must be an array of policy ids" })
}).annotate({ message: "request body must be a JSON object", identifier: "SlaPolicyOrderInput" })
export type PolicyOrderInput = typeof PolicyOrderInput.Type

export const Policy = Schema.Struct({
  policy_id: Uuid,
  name: Schema.String,
  position: Schema.Int,
  conditions: Schema.Array(Schema.Struct({ field: Schema.String, op: Schema.String, value: Schema.Unknown })),
  first_response_minutes: Schema.NullOr(Schema.Int),
  resolution_minutes: Schema.NullOr(Schema.Int),
  hours: Schema.Literals(SlaHours),
  pause_when_waiting: Schema.Boolean,
  created_at: Schema.String
}).annotate({ identifier: "SlaPolicy" })
export type Policy = typeof Policy.Type

export const PolicyList = Schema.Struct({ policies: Schema.Array(Policy) }).annotate({ identifier: "SlaPolicyList" })

const Target = Schema.Struct({
  due_at: Schema.String,
  met_at: Schema.NullOr(Schema.String),
  breached_at: Schema.NullOr(Schema.String)
})

/** A ticket's service level as the operator read shows it; null when no policy matches it. */
export const TicketSla = Schema.NullOr(Schema.Struct({
  policy_id: Schema.NullOr(Uuid),
  policy_name: Schema.String,
  first_response: Schema.NullOr(Target),
  resolution: Schema.NullOr(Schema.Struct({
    ...Target.fields,
    /** waiting on the customer: the clock stands still and `due_at` moves by as long when it runs again */
    paused: Schema.Boolean
  }))
})).annotate({ identifier: "TicketSla" })
export type TicketSla = typeof TicketSla.Type

export const SlaFilters = ["breached", "at_risk"] as const

/**
 * The job that works out a ticket's due times again after a change that can move them (status,
 * priority, category, tags, custom fields, a reply); the outbox writes it only when the project
 * has a policy, so projects without service levels pay nothing.
 */
export const slaUpdateJob = (projectId: string, ticketId: string, runAt: string): NewJob => ({
  kind: "sla_update",
  projectId,
  ticketId,
  payload: {},
  runAt
})

/** `sla_within` of the list: how soon a due time makes a ticket `at_risk`, in minutes (default 60). */
export const SlaWithin = Schema.String.pipe(
  Schema.check(Schema.makeFilter((s: string) => /^\s*-?\d+\s*$/.test(s) || "sla_within must be an integer number of minutes")),
  Schema.decodeTo(Schema.Number, {
    decode: SchemaGetter.transform((s: string) => Number(s)),
    encode: SchemaGetter.transform((n: number) => String(n))
  }),
  Schema.check(Schema.makeFilter((n: number) => (n >= 1 && n <= maxMinutes) || `sla_within must be from 1 to ${maxMinutes}`))
)
