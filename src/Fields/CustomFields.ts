import { Context, Effect, Layer, Option } from "effect"
import {
  type CreateCustomFieldInput,
  type CustomField,
  type CustomFieldList,
  maxFieldsPerProject,
  type UpdateCustomFieldInput
} from "../Domain/CustomField.ts"
import { Conflict, NotFound, ValidationError } from "../Domain/Errors.ts"
import type { CustomFieldId, ProjectId } from "../Domain/Ids.ts"
import { Projects } from "../Projects/Projects.ts"
import { CustomFieldsRepo } from "./Repo.ts"

const fieldNotFound = new NotFound({ message: "custom field not found" })
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

    return { create, list, update, remove }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([CustomFieldsRepo.layer, Projects.layer]))
}
