import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuth, ProjectAuth } from "../Auth/Api.ts"
import { AttachmentPath, Upload } from "../Domain/Attachment.ts"
import { AttachmentId, pathParam, ProjectId } from "../Domain/Ids.ts"
import { InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { WidgetHeaders } from "../Domain/Ticket.ts"

/** The form of an upload: one file in the field `file`; its bytes are read as they stream in. */
export const UploadForm = Schema.Struct({
  file: Schema.Unknown.annotate({ description: "the file (its name and media type as the form part gives them)" })
}).pipe(HttpApiSchema.asMultipartStream())

/** A download: the stored bytes, always as an attachment. */
export const AttachmentBytes = Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array()).annotate({
  description: "the file as stored, with Content-Disposition: attachment and X-Content-Type-Options: nosniff"
})

export class AttachmentsApi extends HttpApiGroup.make("attachments")
  .add(
    HttpApiEndpoint.post("upload", "/v1/uploads", {
      payload: UploadForm,
      headers: WidgetHeaders,
      success: Upload.pipe(HttpApiSchema.status(201)),
      error: [ValidationError.wire, PayloadTooLarge.wire, InternalError.wire]
    }).annotate(
      OpenApi.Summary,
      "Upload a file (multipart/form-data, field `file`) for a ticket or message to name in attachment_ids within 24 hours"
    ),
    HttpApiEndpoint.get("download", "/v1/attachments/:id", {
      params: AttachmentPath,
      headers: WidgetHeaders,
      success: AttachmentBytes,
      error: [ValidationError.wire, NotFound.wire, InternalError.wire]
    }).annotate(
      OpenApi.Summary,
      "Download a file of a ticket of the key's project; a widget key, one of its visitor's ticket (X-Ticket-Token or X-Visitor-Token)"
    )
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Attachments")
  .annotate(
    OpenApi.Description,
    "Files go up first and are named by a create or a message (`attachment_ids`); mail brings its own. Reads list them with a `url` to download; a download is never shown in the service's origin (attachment, nosniff, sandbox)."
  ) {}

const ProjectPath = { pid: pathParam(ProjectId) }

/** The operator's side: files for an agent's reply, and any file of the project's tickets. */
export class AttachmentsAdminApi extends HttpApiGroup.make("attachmentsAdmin")
  .add(
    HttpApiEndpoint.post("adminUpload", "/v1/admin/projects/:pid/uploads", {
      params: ProjectPath,
      payload: UploadForm,
      success: Upload.pipe(HttpApiSchema.status(201)),
      error: [ValidationError.wire, NotFound.wire, PayloadTooLarge.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "Upload a file for an agent's message to name in attachment_ids"),
    HttpApiEndpoint.get("adminDownload", "/v1/admin/projects/:pid/attachments/:id", {
      params: { ...ProjectPath, id: pathParam(AttachmentId) },
      success: AttachmentBytes,
      error: [NotFound.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "Download any file of the project's tickets")
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: attachments")
  .annotate(OpenApi.Description, "Files for agents' replies, and every file of the project's tickets") {}
