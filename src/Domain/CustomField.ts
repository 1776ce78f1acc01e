import { Schema } from "effect"
import { OneOf, optional, RequiredText, Text, Uuid, whyUnstorable } from "./Fields.ts"

export const CustomFieldTypes = ["text", "number", "boolean", "date", "select"] as const
export type CustomFieldType = (typeof CustomFieldTypes)[number]

/** What a ticket holds for one field: its JSON as stored and shown. */
export const CustomFieldValue = Schema.Union([Schema.String, Schema.Number, Schema.Boolean])
export type CustomFieldValue = typeof CustomFieldValue.Type

/** A ticket's values by field key, as every read shows them (`{}` when none). */
export const CustomFieldValues = Schema.Record(Schema.String, CustomFieldValue).annotate({
  description: "the ticket's custom field values by key"
})
export type CustomFieldValues = typeof CustomFieldValues.Type

/**
 * Values a caller sends by field key; `null` unsets one. Checked against the project's fields by
 * the service (`checkValues`), which knows their types.
 */
export const CustomFieldInput = Schema.Record(Schema.String, Schema.NullOr(CustomFieldValue)).annotate({
  message: "custom_fields must be a JSON object of field keys to values",
  description: "values by field key, each checked against the project's field of that key; null unsets a value"
})
export type CustomFieldInput = typeof CustomFieldInput.Type

export const maxFieldsPerProject = 50
const keyPattern = /^[a-z][a-z0-9_]{0,49}$/
export const isFieldKey = (key: string) => keyPattern.test(key)

const FieldKey = Text("key").pipe(
  Schema.check(Schema.makeFilter((key: string) =>
    isFieldKey(key) ||
    "key must start with a lowercase letter and hold at most 50 lowercase letters, digits and underscores"
  ))
)

const Options = Schema.Array(RequiredText("options[]", 100)).annotate({ message: "options must be an array of strings" }).pipe(
  Schema.check(
    Schema.makeFilter((options) => options.length >= 1 || "options must hold at least one option"),
    Schema.makeFilter((options) => options.length <= 100 || "options must hold at most 100 options"),
    Schema.makeFilter((options) => new Set(options).size === options.length || "options must not repeat an option")
  )
)

const bodyMustBeObject = { message: "request body must be a JSON object" }

export const CreateCustomFieldInput = Schema.Struct({
  key: FieldKey,
  label: RequiredText("label", 100),
  type: OneOf("type", CustomFieldTypes),
  options: optional(Options)
}).annotate({ ...bodyMustBeObject, identifier: "CreateCustomFieldInput" })
export type CreateCustomFieldInput = typeof CreateCustomFieldInput.Type

export const UpdateCustomFieldInput = Schema.Struct({
  label: optional(RequiredText("label", 100)),
  options: optional(Options),
  type: optional(OneOf("type", CustomFieldTypes).annotate({
    description: "only the field's own type is accepted: a type never changes (409)"
  }))
}).annotate({ ...bodyMustBeObject, identifier: "UpdateCustomFieldInput" })
export type UpdateCustomFieldInput = typeof UpdateCustomFieldInput.Type

export const CustomField = Schema.Struct({
  field_id: Uuid,
  key: Schema.String,
  label: Schema.String,
  type: Schema.Literals(CustomFieldTypes),
  /** the choices of a select field; null for the other types */
  options: Schema.NullOr(Schema.Array(Schema.String)),
  created_at: Schema.String
}).annotate({ identifier: "CustomField" })
export type CustomField = typeof CustomField.Type

export const CustomFieldList = Schema.Struct({ custom_fields: Schema.Array(CustomField) })
  .annotate({ identifier: "CustomFieldList" })
export type CustomFieldList = typeof CustomFieldList.Type

/** What checking a value needs of its field. */
export interface FieldDefinition {
  readonly key: string
  readonly type: CustomFieldType
  readonly options: ReadonlyArray<string> | null
}

/** A real calendar date written `YYYY-MM-DD` (no 30 February). */
const isDate = (text: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false
  const date = new Date(`${text}T00:00:00.000Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text)
}

/** What `value` must be to fit `field`, in words that follow the field's name. */
const rule = (field: FieldDefinition) => {
  switch (field.type) {
    case "text":
      return "must be a string of 1 to 1,000 characters"
    case "number":
      return "must be a number"
    case "boolean":
      return "must be true or false"
    case "date":
      return "must be a date (YYYY-MM-DD)"
    case "select":
      return `must be one of ${(field.options ?? []).join(", ")}`
  }
}

/** The value as stored, or the sentence (after the field's name) of why it does not fit. */
export const fitValue = (
  field: FieldDefinition,
  value: CustomFieldValue
): { readonly value: CustomFieldValue } | { readonly problem: string } => {
  switch (field.type) {
    case "text": {
      if (typeof value !== "string") return { problem: rule(field) }
      const trimmed = value.trim()
      const unstorable = whyUnstorable(trimmed)
      if (unstorable !== undefined) return { problem: unstorable }
      return trimmed.length >= 1 && trimmed.length <= 1000 ? { value: trimmed } : { problem: rule(field) }
    }
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? { value } : { problem: rule(field) }
    case "boolean":
      return typeof value === "boolean" ? { value } : { problem: rule(field) }
    case "date":
      return typeof value === "string" && isDate(value) ? { value } : { problem: rule(field) }
    case "select":
      return typeof value === "string" && (field.options ?? []).includes(value) ? { value } : { problem: rule(field) }
  }
}

/**
 * A value written as text (a query parameter, a rule's condition, a command line) read as the
 * field's type: `12` for a number, `true` for a boolean; the rest as they are.
 */
export const fitText = (field: FieldDefinition, text: string) => {
  switch (field.type) {
    case "number":
      return /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text) ? fitValue(field, Number(text)) : { problem: rule(field) }
    case "boolean":
      return text === "true" || text === "false" ? fitValue(field, text === "true") : { problem: rule(field) }
    default:
      return fitValue(field, text)
  }
}

export const notAField = "is not a custom field of this project"

/** The values to write and the keys to remove, after every value was checked against its field. */
export interface CheckedValues {
  readonly set: Readonly<Record<string, CustomFieldValue>>
  readonly unset: ReadonlyArray<string>
}

/**
 * `input` checked against the project's fields, or the message naming the first value that does
 * not fit (`custom_fields.plan must be one of free, pro`).
 */
export const checkValues = (
  fields: ReadonlyMap<string, FieldDefinition>,
  input: CustomFieldInput
): { readonly values: CheckedValues } | { readonly problem: string } => {
  const set: Record<string, CustomFieldValue> = {}
  const unset: Array<string> = []
  for (const [key, value] of Object.entries(input)) {
    const name = `custom_fields.${isFieldKey(key) ? key : JSON.stringify(key.slice(0, 50))}`
    const field = fields.get(key)
    if (field === undefined) return { problem: `${name} ${notAField}` }
    if (value === null) {
      unset.push(key)
      continue
    }
    const fitted = fitValue(field, value)
    if ("problem" in fitted) return { problem: `${name} ${fitted.problem}` }
    set[key] = fitted.value
  }
  return { values: { set, unset } }
}
