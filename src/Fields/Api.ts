import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { CreateCustomFieldInput, CustomField, CustomFieldList, UpdateCustomFieldInput } from "../Domain/CustomField.ts"
import { Conflict, InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { CustomFieldId, pathParam, ProjectId } from "../Domain/Ids.ts"
import { AdminAuth } from "../Auth/Api.ts"

const ProjectPath = { pid: pathParam(ProjectId) }
const FieldPath = { ...ProjectPath, field_id: pathParam(CustomFieldId) }
const base = "/v1/admin/projects/:pid/custom-fields"
const error = [ValidationError.wire, NotFound.wire, Conflict.wire, PayloadTooLarge.wire, InternalError.wire]

export class CustomFieldsApi extends HttpApiGroup.make("customFields")
  .add(
    HttpApiEndpoint.post("create", base, {
      params: ProjectPath,
      payload: CreateCustomFieldInput,
      success: CustomField.pipe(HttpApiSchema.status(201)),
      error
    }).annotate(OpenApi.Summary, "Define a field; 409 when the project has one with the key; at most 50 a project"),
    HttpApiEndpoint.get("list", base, { params: ProjectPath, success: CustomFieldList, error })
      .annotate(OpenApi.Summary, "The project's fields, oldest first"),
    HttpApiEndpoint.patch("update", `${base}/:field_id`, {
      params: FieldPath,
      payload: UpdateCustomFieldInput,
      success: CustomField,
      error
    }).annotate(OpenApi.Summary, "Change a field's label or a select field's options; its type never changes (409)"),
    HttpApiEndpoint.delete("remove", `${base}/:field_id`, {
      params: FieldPath,
      success: HttpApiSchema.NoContent,
      error
    }).annotate(OpenApi.Summary, "Delete a field, and its values from every ticket of the project")
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: custom fields")
  .annotate(
    OpenApi.Description,
    "Typed fields (text, number, boolean, date, select) that tickets carry in `custom_fields`: set on create and by agents, filtered and sorted in the ticket list, matched by automation rules"
  ) {}
