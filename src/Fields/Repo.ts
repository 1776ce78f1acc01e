import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { type CustomField, CustomFieldTypes, type FieldDefinition, maxFieldsPerProject } from "../Domain/CustomField.ts"
import { IntFromRow, TimestampFromRow } from "../Domain/Fields.ts"
import { type CustomFieldId, CustomFieldIdFromRow, type ProjectId } from "../Domain/Ids.ts"

const FieldRow = Schema.Struct({
  field_id: CustomFieldIdFromRow,
  key: Schema.String,
  label: Schema.String,
  type: Schema.Literals(CustomFieldTypes),
  options: Schema.NullOr(Schema.Array(Schema.String)),
  created_at: TimestampFromRow
})

const InsertRow = Schema.Struct({
  fields: IntFromRow,
  taken: Schema.Boolean,
  created: Schema.NullOr(FieldRow)
})

const fieldColumns = "id AS field_id, key, label, type, options, created_at"

/** The outcome of adding a field: the field, or why there is none. */
export type Inserted =
  | { readonly _tag: "Created"; readonly field: CustomField }
  | { readonly _tag: "KeyTaken" }
  | { readonly _tag: "TooMany" }

/** A project's custom field definitions. */
export class CustomFieldsRepo extends Context.Service<CustomFieldsRepo>()("app/Fields/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(fieldColumns)

    /** One statement: the count and the key are checked where the row is written. */
    const insert = (projectId: ProjectId, field: FieldDefinition & { readonly label: string }) =>
      sql`
        WITH existing AS (
          SELECT count(*)::int AS fields, coalesce(bool_or(key = ${field.key}), false) AS taken
          FROM custom_fields WHERE project_id = ${projectId}
        ), created AS (
          INSERT INTO custom_fields (project_id, key, label, type, options)
          SELECT ${projectId}::uuid, ${field.key}, ${field.label}, ${field.type},
            ${field.options === null ? null : JSON.stringify(field.options)}::jsonb
          FROM existing WHERE NOT existing.taken AND existing.fields < ${maxFieldsPerProject}
          ON CONFLICT (project_id, key) DO NOTHING
          RETURNING ${columns}
        )
        SELECT existing.fields, existing.taken OR (existing.fields < ${maxFieldsPerProject} AND created.field_id IS NULL) AS taken,
          CASE WHEN created.field_id IS NULL THEN NULL
            ELSE json_build_object('field_id', created.field_id, 'key', created.key, 'label', created.label,
              'type', created.type, 'options', created.options, 'created_at', created.created_at) END AS created
        FROM existing LEFT JOIN created ON true`.pipe(
        Rows.single(InsertRow),
        Effect.map((row): Inserted =>
          row.created !== null
            ? { _tag: "Created", field: row.created }
            : row.taken
            ? { _tag: "KeyTaken" }
            : { _tag: "TooMany" }
        )
      )

    /** In the order they were created. */
    const list = (projectId: ProjectId) =>
      sql`SELECT ${columns} FROM custom_fields WHERE project_id = ${projectId} ORDER BY created_at, key`.pipe(
        Rows.all(FieldRow),
        Effect.map((rows): ReadonlyArray<CustomField> => rows)
      )

    const find = (projectId: ProjectId, fieldId: CustomFieldId) =>
      sql`SELECT ${columns} FROM custom_fields WHERE id = ${fieldId} AND project_id = ${projectId}`.pipe(
        Rows.first(FieldRow),
        Effect.map((found): Option.Option<CustomField> => found)
      )

    /** The project's fields by key, for checking values against them. */
    const definitions = (projectId: ProjectId) =>
      Effect.map(list(projectId), (fields) => new Map<string, FieldDefinition>(fields.map((field) => [field.key, field])))

    const update = (
      projectId: ProjectId,
      fieldId: CustomFieldId,
      change: { readonly label: string | undefined; readonly options: ReadonlyArray<string> | undefined }
    ) =>
      sql`
        UPDATE custom_fields SET label = coalesce(${change.label ?? null}::text, label),
          options = coalesce(${change.options === undefined ? null : JSON.stringify(change.options)}::jsonb, options)
        WHERE id = ${fieldId} AND project_id = ${projectId}
        RETURNING ${columns}`.pipe(Rows.first(FieldRow), Effect.map((found): Option.Option<CustomField> => found))

    /**
     * Removes the field and its values from every ticket of the project, in one transaction, so a
     * field made later with the same key starts empty and never meets values of another type.
     */
    const remove = (projectId: ProjectId, fieldId: CustomFieldId) =>
      Rows.transaction(sql)(Effect.gen(function*() {
        const removed = yield* sql`
          DELETE FROM custom_fields WHERE id = ${fieldId} AND project_id = ${projectId} RETURNING key`.pipe(
          Rows.first(Schema.Struct({ key: Schema.String }))
        )
        if (Option.isNone(removed)) return false
        yield* sql`
          UPDATE tickets SET custom_fields = nullif(custom_fields - ${removed.value.key}::text, '{}'::jsonb)
          WHERE project_id = ${projectId} AND (custom_fields -> ${removed.value.key}::text) IS NOT NULL`.pipe(Rows.run)
        return true
      }))

    return { insert, list, find, definitions, update, remove }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
