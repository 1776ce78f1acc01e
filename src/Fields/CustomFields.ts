import { Context, Effect, Layer, Option } from "effect"
import { type Condition, customFieldCondition } from "../Domain/Automation.ts"
import {
  type CreateCustomFieldInput,
  type CustomField,
  type CustomFieldList,
  type FieldDefinition,
  fitText,
  maxFieldsPerProject,
  notAField,
  type UpdateCustomFieldInput
} from "../Domain/CustomField.ts"
import { Conflict, NotFound, ValidationError } from "../Domain/Errors.ts"
import type { CustomFieldId, ProjectId } from "../Domain/Ids.ts"
import { Projects } from "../Projects/Projects.ts"
import { CustomFieldsRepo } from "./Repo.ts"

const fieldNotFound = new NotFound({ message: "custom field not found" })
const invalid = (message: string) => new ValidationError({ message })
const optionsOnlyForSelect = new ValidationError({ message: "options apply only to a field of type select" })

/** The typed fields a project's tickets carry: defined here, checked wherever a ticket's values are set. */
export class CustomFields extends Context.Service<CustomFields>()("app/Fields/CustomFields", {
  make: Effect.gen(function*() {
    const repo = yield* CustomFieldsRepo
    const projects = yield* Projects

    const create = Effect.fn("CustomFields.create")(function*(projectId: ProjectId, input: CreateCustomFieldInput) {
      yield* projects.requireProject(projectId)
      const options = input.options ?? null
      if (input.type === "select" && options === null) {
        return yield* new ValidationError({ message: "options is required for a field of type select" })
      }
      if (input.type !== "select" && options !== null) return yield* optionsOnlyForSelect
      const inserted = yield* repo.insert(projectId, { key: input.key, label: input.label, type: input.type, options })
      switch (inserted._tag) {
        case "Created":
          return inserted.field
        case "KeyTaken":
          return yield* new Conflict({ message: `a custom field with key ${input.key} exists` })
        case "TooMany":
          return yield* new ValidationError({
            message: `a project has at most ${maxFieldsPerProject} custom fields; delete one first`
          })
      }
    })

    const list = Effect.fn("CustomFields.list")(function*(projectId: ProjectId) {
      yield* projects.requireProject(projectId)
      return { custom_fields: yield* repo.list(projectId) } satisfies CustomFieldList
    })

    const update = Effect.fn("CustomFields.update")(function*(
      projectId: ProjectId,
      fieldId: CustomFieldId,
      input: UpdateCustomFieldInput
    ) {
      yield* projects.requireProject(projectId)
      const found = yield* repo.find(projectId, fieldId)
      if (Option.isNone(found)) return yield* fieldNotFound
      const field = found.value
      if (input.type != null && input.type !== field.type) {
        return yield* new Conflict({
          message: `the type of a custom field cannot change (${field.key} is ${field.type}); delete it and create another`
        })
      }
      if (input.options != null && field.type !== "select") return yield* optionsOnlyForSelect
      const updated = yield* repo.update(projectId, fieldId, {
        label: input.label ?? undefined,
        options: input.options ?? undefined
      })
      if (Option.isNone(updated)) return yield* fieldNotFound
      return updated.value satisfies CustomField
    })

    /** The field goes, and with it its values on every ticket of the project. */
    const remove = Effect.fn("CustomFields.remove")(function*(projectId: ProjectId, fieldId: CustomFieldId) {
      yield* projects.requireProject(projectId)
      if (!(yield* repo.remove(projectId, fieldId))) return yield* fieldNotFound
    })

    /**
     * The conditions of an automation rule or an SLA policy, checked: one on a custom field names a
     * field of the project, and its values are read as the field's type (`12.50` as 12.5, `true`),
     * so a run compares like with like; `gt` and `lt` only on a number or a date field. The
     * project's fields are read only when a condition names one.
     */
    const checkConditions = Effect.fnUntraced(function*(projectId: ProjectId, conditions: ReadonlyArray<Condition>) {
      const checked: Array<Condition> = []
      let fields: ReadonlyMap<string, FieldDefinition> | undefined
      for (const [i, condition] of conditions.entries()) {
        if (!condition.field.startsWith(customFieldCondition)) {
          if (condition.op === "gt" || condition.op === "lt") {
            return yield* invalid(
              `conditions[${i}].op must be one of eq, neq, in, contains for ${condition.field}; gt and lt compare number and date custom fields`
            )
          }
          checked.push(condition)
          continue
        }
        fields ??= yield* repo.definitions(projectId)
        const key = condition.field.slice(customFieldCondition.length)
        const field = fields.get(key)
        if (field === undefined) return yield* invalid(`conditions[${i}].field ${condition.field} ${notAField}`)
        if ((condition.op === "gt" || condition.op === "lt") && field.type !== "number" && field.type !== "date") {
          return yield* invalid(`conditions[${i}].op ${condition.op} compares number and date fields; ${condition.field} is ${field.type}`)
        }
        if (condition.op === "contains") {
          checked.push(condition)
          continue
        }
        const read = (text: string) => {
          const fitted = fitText(field, text)
          return "problem" in fitted
            ? Effect.fail(invalid(`conditions[${i}].value for ${condition.field} ${fitted.problem}`))
            : Effect.succeed(String(fitted.value))
        }
        const value = typeof condition.value === "string"
          ? yield* read(condition.value)
          : yield* Effect.forEach(condition.value, read)
        checked.push({ ...condition, value })
      }
      return checked
    })

    return { create, list, update, remove, checkConditions }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([CustomFieldsRepo.layer, Projects.layer]))
}
