import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuth } from "../Auth/Api.ts"
import { InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { pathParam, ProjectId } from "../Domain/Ids.ts"
import { ContactErasure, ContactExport, ContactQuery, EraseContactInput } from "../Domain/Privacy.ts"

const ProjectPath = { pid: pathParam(ProjectId) }

/** The export as a zip: `contact.json` and each file's bytes under `attachments/`. */
export const ContactZip = Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "application/zip" })).annotate({
  description: "a zip of `contact.json` (the JSON export) and every file's bytes under `attachments/<id>-<filename>`"
})

export class PrivacyApi extends HttpApiGroup.make("privacy")
  .add(
    HttpApiEndpoint.get("exportContact", "/v1/admin/projects/:pid/contacts/export", {
      params: ProjectPath,
      query: ContactQuery,
      success: ContactExport,
      error: [ValidationError.wire, NotFound.wire, InternalError.wire]
    })
      .annotate(OpenApi.Summary, "Export everything the project holds about the contact with this address, as one JSON document")
      .annotate(
        OpenApi.Description,
        "The contact's row, every ticket they filed with its public conversation (`by_contact` marks their messages), every message they wrote anywhere in the project, their files (metadata and a download path), satisfaction ratings, notifications and mail records. 404 when no contact of the project has the address (an erased contact has none)."
      ),
    HttpApiEndpoint.get("exportContactZip", "/v1/admin/projects/:pid/contacts/export.zip", {
      params: ProjectPath,
      query: ContactQuery,
      success: ContactZip,
      error: [ValidationError.wire, NotFound.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "The same export as a zip, with the bytes of every file the document lists"),
    HttpApiEndpoint.post("eraseContact", "/v1/admin/projects/:pid/contacts/erase", {
      params: ProjectPath,
      payload: EraseContactInput,
      success: ContactErasure,
      error: [ValidationError.wire, NotFound.wire, PayloadTooLarge.wire, InternalError.wire]
    })
      .annotate(OpenApi.Summary, "Erase the contact with this address everywhere in the project; this cannot be undone")
      .annotate(
        OpenApi.Description,
        "In one transaction: the text of their tickets and messages becomes `[erased]`; their tickets lose sender address, name, metadata and visitor id (numbers, statuses, custom fields and counts stay); their files are deleted with their bytes; rating comments, mail records and notifications are anonymised; stored events and webhook deliveries are rewritten without their data; the contact keeps its id with only a SHA-256 of the address, so the same address may write in later as a new contact. Fires `contact_erased`. Calling again for the same address answers `already_erased: true` and changes nothing; 404 when the project never had a contact with the address."
      )
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: privacy")
  .annotate(
    OpenApi.Description,
    "A contact's data under the owner's control: export everything held about one person, or erase it everywhere, search included"
  ) {}
