import { HttpServerResponse } from "effect/http"
import { servedMediaType } from "../Domain/Attachment.ts"
import type { Download } from "./Attachments.ts"

/** RFC 5987's percent-encoding, which `encodeURIComponent` is but for five characters. */
const rfc5987 = (text: string) =>
  encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** A plain-ASCII stand-in for clients that do not read `filename*`. */
const asciiName = (name: string) => name.replace(/[^\x20-\x7e]|["\\]/g, "_")

/**
 * A stored file as a download that nothing can run in the service's origin: always an attachment,
 * never sniffed, sandboxed should a browser show it anyway, and typed as stored only when the type
 * is one no browser runs script from.
 */
export const downloadResponse = (file: Download) =>
  HttpServerResponse.uint8Array(file.content, {
    contentType: servedMediaType(file.contentType),
    headers: {
      "content-disposition": `attachment; filename="${asciiName(file.filename)}"; filename*=UTF-8''${rfc5987(file.filename)}`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox",
      "cache-control": "private, no-store"
    }
  })
