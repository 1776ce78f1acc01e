import { Context, DateTime, Duration, Effect, Layer, Option, Schedule } from "effect"
import { AppConfig } from "../Config.ts"
import { DatabaseOutage } from "../Database/Outage.ts"
import {
  type Attachment,
  type NewFile,
  storedFilename,
  storedMediaType,
  type Upload
} from "../Domain/Attachment.ts"
import { NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { AttachmentId, type MessageId, type ProjectId, type TicketId } from "../Domain/Ids.ts"
import type { TicketGuard } from "../Domain/Ticket.ts"
import { AttachmentsRepo } from "./Repo.ts"
import { AttachmentStore } from "./Storage.ts"

/** How long an upload waits for a ticket or a message to name it. */
export const uploadLifetime = Duration.hours(24)

const attachmentNotFound = new NotFound({ message: "attachment not found" })

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toLocaleString("en-US", { maximumFractionDigits: 1 })} MiB`

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("")

/** The hex SHA-256 of `content`, through WebCrypto (Node and Deno alike). */
export const sha256Of = (content: Uint8Array) =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", content as Uint8Array<ArrayBuffer>)).pipe(Effect.map(hex))

/** A stored file as a read lists it. */
export const attachmentOf = (row: {
  readonly id: string
  readonly filename: string
  readonly content_type: string
  readonly size: number
  readonly sha256: string
}): Attachment => ({
  id: row.id,
  filename: row.filename,
  content_type: row.content_type,
  size: row.size,
  sha256: row.sha256,
  url: `/v1/attachments/${row.id}`
})

/** A file to download: what it is and its bytes. */
export interface Download {
  readonly filename: string
  readonly contentType: string
  readonly content: Uint8Array
}

/**
 * Files of tickets and messages: uploaded first and named by a create or a message, or stored
 * with a mail that carried them. Bytes live in the database by default, so the embedded database
 * and its backups keep them, or in an S3 bucket (AttachmentStore). Limits per file, per message
 * and per ticket are settings.
 */
export class Attachments extends Context.Service<Attachments>()("app/Attachments", {
  make: Effect.gen(function*() {
    const repo = yield* AttachmentsRepo
    const store = yield* AttachmentStore
    const config = yield* AppConfig

    /** A stored file's bytes: in its row, or fetched from the object store. */
    const bytesOf = (row: { readonly content: Uint8Array | null; readonly storage_key: string | null }) =>
      row.content !== null ? Effect.succeed(row.content) : store.load(row.storage_key ?? "")

    const limits = {
      file: config.attachmentMaxBytes,
      message: config.attachmentsMaxBytesPerMessage,
      ticket: config.attachmentsMaxBytesPerTicket
    }

    const fileTooLarge = (name: string) =>
      new PayloadTooLarge({ message: `${name} is larger than ${mib(limits.file)}, the most a file may be` })

    /** Whether files of these sizes fit one message, and the ticket with `already` stored: the refusal if not. */
    const checkSizes = (sizes: ReadonlyArray<number>, already: number) => {
      const total = sizes.reduce((sum, size) => sum + size, 0)
      if (total > limits.message) {
        return Effect.fail(
          new PayloadTooLarge({ message: `the files of one message must be at most ${mib(limits.message)} together` })
        )
      }
      if (already + total > limits.ticket) {
        return Effect.fail(new PayloadTooLarge({ message: `the files of one ticket must be at most ${mib(limits.ticket)} together` }))
      }
      return Effect.void
    }

    const fileRow = Effect.fnUntraced(function*(projectId: ProjectId, file: NewFile, index: number) {
      if (file.content.byteLength > limits.file) return yield* fileTooLarge(file.filename || `file ${index + 1}`)
      const id = AttachmentId.make(crypto.randomUUID(), { disableChecks: true })
      const contentType = storedMediaType(file.contentType)
      const placed = yield* store.place(`${projectId}/${id}`, file.content, contentType)
      return {
        id,
        projectId,
        filename: storedFilename(file.filename, `attachment-${index + 1}`),
        contentType,
        size: file.content.byteLength,
        sha256: yield* sha256Of(file.content),
        ...placed
      }
    })

    /** Keeps a file until a create or a message names its id (`uploadLifetime`). */
    const upload = Effect.fn("Attachments.upload")(function*(projectId: ProjectId, file: NewFile) {
      const row = yield* fileRow(projectId, file, 0)
      yield* repo.insert({ ...row, ticketId: null, messageId: null })
      const expires = DateTime.addDuration(yield* DateTime.now, uploadLifetime)
      return {
        upload_id: row.id,
        filename: row.filename,
        content_type: row.contentType,
        size: row.size,
        sha256: row.sha256,
        expires_at: DateTime.formatIso(expires)
      } satisfies Upload
    })

    /**
     * Gives uploads to the ticket's opening message (`messageId` null) or to a message; in the
     * caller's transaction, so a refusal leaves them waiting as they were.
     */
    const attachUploads = Effect.fnUntraced(function*(
      projectId: ProjectId,
      ticketId: TicketId,
      messageId: MessageId | null,
      ids: ReadonlyArray<string>,
      newTicket: boolean
    ) {
      const wanted = [...new Set(ids.map((id) => id.toLowerCase()))]
      if (wanted.length === 0) return []
      const already = newTicket ? 0 : yield* repo.ticketTotal(ticketId)
      const since = DateTime.toDateUtc(DateTime.subtractDuration(yield* DateTime.now, uploadLifetime))
      const claimed = yield* repo.claimUploads(projectId, wanted, ticketId, messageId, since)
      const missing = wanted.find((id) => !claimed.some((row) => row.id === id))
      if (missing !== undefined) {
        return yield* new ValidationError({
          message: `attachment_ids: ${missing} is not an upload of this project waiting to be attached`
        })
      }
      yield* checkSizes(claimed.map((row) => row.size), already)
      // in the order the caller named them
      return wanted.map((id) => attachmentOf(claimed.find((row) => row.id === id)!))
    })

    /** Stores files that arrived with the message (a mail's); in the caller's transaction. */
    const storeFiles = Effect.fnUntraced(function*(
      projectId: ProjectId,
      ticketId: TicketId,
      messageId: MessageId | null,
      files: ReadonlyArray<NewFile>,
      newTicket: boolean
    ) {
      if (files.length === 0) return []
      yield* checkSizes(files.map((file) => file.content.byteLength), newTicket ? 0 : yield* repo.ticketTotal(ticketId))
      const stored: Array<Attachment> = []
      for (const [index, file] of files.entries()) {
        const row = yield* fileRow(projectId, file, index)
        yield* repo.insert({ ...row, ticketId, messageId })
        stored.push(attachmentOf({ ...row, content_type: row.contentType }))
      }
      return stored
    })

    /** Refuses files before anything is written: each within the file limit, all within a message's. */
    const checkFiles = (files: ReadonlyArray<NewFile>) =>
      Effect.gen(function*() {
        const large = files.find((file) => file.content.byteLength > limits.file)
        if (large !== undefined) return yield* fileTooLarge(large.filename || "a file")
        yield* checkSizes(files.map((file) => file.content.byteLength), 0)
      })

    /**
     * A file of the project's ticket that `guard` lets the caller see; an upload no ticket has is
     * nobody's to read, and an internal note's file is the desk's (`desk`) only.
     */
    const download = Effect.fn("Attachments.download")(function*(
      projectId: ProjectId,
      id: AttachmentId,
      guard: TicketGuard,
      desk = false
    ) {
      const found = yield* repo.find(projectId, id)
      if (Option.isNone(found) || found.value.ticket_id === null) return yield* attachmentNotFound
      if (found.value.internal && !desk) return yield* attachmentNotFound
      const row = found.value
      const owner = {
        ticketId: row.ticket_id as TicketId,
        senderEmail: row.sender_email,
        visitorSub: row.visitor_sub,
        merged: (row.merged ?? []).map((s) => ({ ticketId: s.id as TicketId, senderEmail: s.sender_email, visitorSub: s.visitor_sub }))
      }
      if (!guard(owner)) return yield* attachmentNotFound
      return { filename: row.filename, contentType: row.content_type, content: yield* bytesOf(row) } satisfies Download
    })

    /** A message's files with their bytes, for the mail that carries the message. */
    const ofMessage = (ticketId: TicketId, messageId: MessageId | null) =>
      Effect.flatMap(repo.ofMessage(ticketId, messageId), (rows) =>
        Effect.forEach(rows, (row) => Effect.map(bytesOf(row), (content) => ({ ...row, content }))))

    /** Deletes uploads older than `uploadLifetime` that nothing named. */
    const pruneUploads = Effect.gen(function*() {
      const now = yield* DateTime.now
      const keys = yield* repo.pruneWaiting(DateTime.toDateUtc(DateTime.subtractDuration(now, uploadLifetime)))
      // the rows are gone first: an object left behind by a failed delete is garbage, never a dangling row
      yield* Effect.forEach(keys, (key) => key === null ? Effect.void : Effect.ignoreCause(store.remove(key)), { discard: true })
      return keys.length
    })

    return { limits, upload, attachUploads, storeFiles, checkFiles, download, ofMessage, pruneUploads }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([AttachmentsRepo.layer, AttachmentStore.layer]))

  /** Deletes uploads nothing named, hourly, in the running service (not in the CLI). */
  static readonly pruning = Layer.effectDiscard(Effect.gen(function*() {
    const attachments = yield* Attachments
    const outage = yield* DatabaseOutage
    yield* attachments.pruneUploads.pipe(
      Effect.catchCause(outage.logUnlessAway("removing uploads nothing named failed")),
      Effect.repeat(Schedule.spaced("1 hour")),
      Effect.delay("1 minute"),
      Effect.withTracerEnabled(false),
      Effect.forkScoped
    )
  }))
}
