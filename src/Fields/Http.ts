import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CustomFieldId, ProjectId } from "../Domain/Ids.ts"
import { CustomFields } from "./CustomFields.ts"

export const CustomFieldsHttpLive = HttpApiBuilder.group(Api, "customFields", (handlers) =>
  Effect.map(Effect.service(CustomFields), (fields) =>
    handlers
      .handle("create", ({ params, payload }) => fields.create(ProjectId.make(params.pid), payload))
      .handle("list", ({ params }) => fields.list(ProjectId.make(params.pid)))
      .handle("update", ({ params, payload }) =>
        fields.update(ProjectId.make(params.pid), CustomFieldId.make(params.field_id), payload))
      .handle("remove", ({ params }) => fields.remove(ProjectId.make(params.pid), CustomFieldId.make(params.field_id)))))
