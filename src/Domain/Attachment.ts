import { Schema } from "effect"
import { Uuid } from "./Fields.ts"
import { AttachmentId, pathParam } from "./Ids.ts"

/** A file of a message, as reads list it; its bytes are at `url`. */
export const Attachment = Schema.Struct({
  id: Uuid,
  filename: Schema.String,
  content_type: Schema.String,
  size: Schema.Int,
  /** hex SHA-256 of the bytes, for a receiver to check what it downloaded */
  sha256: Schema.String,
  url: Schema.String.annotate({ description: "the path to download it with the same key (and, for a widget key, the same ticket proof)" })
}).annotate({ identifier: "Attachment" })
export type Attachment = typeof Attachment.Type

/** An uploaded file waiting for a ticket or message to name it in `attachment_ids`. */
export const Upload = Schema.Struct({
  upload_id: Uuid,
  filename: Schema.String,
  content_type: Schema.String,
  size: Schema.Int,
  sha256: Schema.String,
  expires_at: Schema.String.annotate({ description: "an upload no ticket or message names by then is deleted" })
}).annotate({ identifier: "Upload" })
export type Upload = typeof Upload.Type

export const maxAttachmentsPerMessage = 10

/** Upload ids a create or a message takes its files from. */
export const AttachmentIds = Schema.Array(
  Schema.String.annotate({ message: "attachment_ids[] must be upload ids" }).check(
    Schema.isUUID(undefined, { message: "attachment_ids[] must be upload ids" })
  )
).annotate({ message: "attachment_ids must be an array of upload ids" }).check(
  Schema.isMaxLength(maxAttachmentsPerMessage, {
    message: `attachment_ids must name at most ${maxAttachmentsPerMessage} uploads`
  })
)

export const AttachmentPath = { id: pathParam(AttachmentId) }

/** A file before it is stored: from a mail, an upload or a form. */
export interface NewFile {
  readonly filename: string
  readonly contentType: string
  readonly content: Uint8Array
}

/**
 * Media types a browser may be told as they are: none of them runs script when opened in a tab.
 * Anything else (HTML, SVG, XML, JavaScript, PDF viewers' scripting) is served as
 * `application/octet-stream`, and every download is an attachment in a sandbox anyway.
 */
export const safeMediaTypes: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/bmp",
  "text/plain",
  "text/csv",
  "application/json",
  "application/zip",
  "application/gzip",
  "application/x-tar",
  "application/pdf",
  "audio/mpeg",
  "audio/ogg",
  "audio/wav",
  "video/mp4",
  "video/webm",
  "message/rfc822"
])

/** The media type a download is served as. */
export const servedMediaType = (stored: string) => safeMediaTypes.has(stored) ? stored : "application/octet-stream"

/** A media type as stored: lower-cased, without parameters, and plausible, else octet-stream. */
export const storedMediaType = (given: string | null | undefined) => {
  const type = (given ?? "").split(";", 1)[0]!.trim().toLowerCase()
  return /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(type) && type.length <= 127
    ? type
    : "application/octet-stream"
}

/** A file name as stored and offered: no path, no control characters, at most 255 characters. */
export const storedFilename = (given: string | null | undefined, fallback: string) => {
  // eslint-disable-next-line no-control-regex
  const name = (given ?? "").replace(/[\u0000-\u001f\u007f]/g, "").split(/[/\\]/).pop()!.trim()
  const usable = name === "" || name === "." || name === ".." ? fallback : name
  return [...usable].slice(0, 255).join("")
}
