import { ByteSize, Effect, Stream } from "effect"
import { Multipart } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { requireTicketProofForWidget } from "../Auth/Scope.ts"
import { ticketGuard, TicketAccess } from "../Auth/TicketAccess.ts"
import { PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { AttachmentId, ProjectId } from "../Domain/Ids.ts"
import { Projects } from "../Projects/Projects.ts"
import { Attachments } from "./Attachments.ts"
import { downloadResponse } from "./Response.ts"

const noFile = new ValidationError({ message: "file is required: send multipart/form-data with the file in the field `file`" })

interface FormFile {
  readonly filename: string
  readonly contentType: string
  readonly content: Uint8Array
}

/**
 * The form's file, read whole: the first part named `file`, within the size limit the request
 * was given. Every part is read to its end, since a part's bytes arrive only as the form is read
 * on: stopping at the first part cut a large file short.
 */
export const fileOfForm = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>, maxBytes: number) =>
  parts.pipe(
    Stream.runFoldEffect(
      (): FormFile | undefined => undefined,
      (found, part) =>
        !Multipart.isFile(part)
          ? Effect.succeed(found)
          : found === undefined && part.key === "file"
          ? Effect.map(part.contentEffect, (content) => ({ filename: part.name, contentType: part.contentType, content }))
          : Effect.as(Stream.runDrain(part.content), found)
    ),
    Effect.flatMap((file) => file === undefined ? Effect.fail(noFile) : Effect.succeed(file)),
    Effect.provideService(Multipart.MaxFileSize, ByteSize.bytes(maxBytes)),
    // a JSON file is a file here, not a form field
    Effect.provideService(Multipart.FieldMimeTypes, []),
    Effect.catchTag("MultipartError", (error) =>
      Effect.fail(
        error.reason._tag === "Parse" || error.reason._tag === "InternalError"
          ? new ValidationError({ message: "the request body is not a readable multipart/form-data form" })
          : new PayloadTooLarge({ message: `file must be at most ${maxBytes} bytes` })
      ))
  )

export const AttachmentsHttpLive = HttpApiBuilder.group(Api, "attachments", (handlers) =>
  Effect.gen(function*() {
    const attachments = yield* Attachments
    const access = yield* TicketAccess

    return handlers
      .handle("upload", ({ payload }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          const file = yield* fileOfForm(payload, attachments.limits.file)
          return yield* attachments.upload(key.projectId, file)
        }))
      .handle("download", ({ params, headers }) =>
        Effect.gen(function*() {
          const key = yield* CurrentKey
          yield* requireTicketProofForWidget(headers["x-ticket-token"], "downloading a ticket's file")
          const guard = ticketGuard(access, key, headers["x-ticket-token"])
          const file = yield* attachments.download(key.projectId, AttachmentId.make(params.id), guard)
          return downloadResponse(file)
        }))
  }))

export const AttachmentsAdminHttpLive = HttpApiBuilder.group(Api, "attachmentsAdmin", (handlers) =>
  Effect.gen(function*() {
    const attachments = yield* Attachments
    const projects = yield* Projects
    return handlers
      .handle("adminUpload", ({ params, payload }) =>
        Effect.gen(function*() {
          const projectId = ProjectId.make(params.pid)
          yield* projects.requireProject(projectId)
          const file = yield* fileOfForm(payload, attachments.limits.file)
          return yield* attachments.upload(projectId, file)
        }))
      .handle("adminDownload", ({ params }) =>
        Effect.map(
          attachments.download(ProjectId.make(params.pid), AttachmentId.make(params.id), () => true, true),
          downloadResponse
        ))
  }))
