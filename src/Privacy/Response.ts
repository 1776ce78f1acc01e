import { HttpServerResponse } from "effect/http"
import type { ContactArchive } from "./Privacy.ts"

/**
 * The zip export as a download: a file to save, never a page, and kept by no cache on the way,
 * since it holds everything about a person.
 */
export const archiveResponse = (archive: ContactArchive) =>
  HttpServerResponse.uint8Array(archive.content, {
    contentType: "application/zip",
    headers: {
      "content-disposition": `attachment; filename="${archive.filename}"`,
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store"
    }
  })
