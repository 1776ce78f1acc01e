import { Context, DateTime, Effect, Layer, Option } from "effect"
import { strToU8, type Zippable, zipSync } from "fflate"
import { sha256Of } from "../Attachments/Attachments.ts"
import { AttachmentStore } from "../Attachments/Storage.ts"
import { NotFound } from "../Domain/Errors.ts"
import * as Events from "../Domain/Events.ts"
import type { ContactId, ProjectId, TicketId } from "../Domain/Ids.ts"
import { projectEventJobs } from "../Domain/Jobs.ts"
import type { ContactErasure, ContactExport } from "../Domain/Privacy.ts"
import { ratingOf } from "../Domain/Satisfaction.ts"
import { type AttachmentRow, PrivacyRepo } from "./Repo.ts"
import { scrubEvent } from "./Scrub.ts"

const noContact = new NotFound({ message: "no contact with that email in this project" })
const projectNotFound = new NotFound({ message: "project not found" })

/** A zip of the export: its name for the download, and its bytes. */
export interface ContactArchive {
  readonly filename: string
  readonly content: Uint8Array
}

// a stored name has no path already (Domain/Attachment storedFilename); this keeps the zip's
// entries under attachments/ whatever an older row holds
const entryName = (filename: string) => filename.replace(/[/\\\u0000-\u001f\u007f]/g, "_").replace(/^\.+$/, "_")

const archivePath = (file: { readonly id: string; readonly filename: string }) =>
  `attachments/${file.id}-${entryName(file.filename)}`

const idsOf = (files: ReadonlyArray<AttachmentRow>, where: (file: AttachmentRow) => boolean) =>
  files.filter(where).map((file) => file.id)

/**
 * A contact's data under the owner's control: everything the project holds about one address,
 * exported as one document (or a zip with the files), or erased everywhere in one transaction.
 */
export class Privacy extends Context.Service<Privacy>()("app/Privacy", {
  make: Effect.gen(function*() {
    const repo = yield* PrivacyRepo
    const store = yield* AttachmentStore

    const missing = (projectId: ProjectId) =>
      Effect.flatMap(repo.projectExists(projectId), (exists) => Effect.fail(exists ? noContact : projectNotFound))

    /** The export document and the rows of its files. */
    const gather = Effect.fnUntraced(function*(projectId: ProjectId, address: string) {
      const email = address.trim().toLowerCase()
      const found = yield* repo.contactByEmail(projectId, email, false)
      if (Option.isNone(found)) return yield* missing(projectId)
      const contact = found.value
      const tickets = yield* repo.ticketsOf(projectId, email)
      const filed = tickets.map((ticket) => ticket.id)
      const messages = yield* repo.messagesOf(projectId, contact.id, filed)
      const written = messages.filter((message) => message.by_contact)
      const writtenIds = written.map((message) => message.id)
      const touched = [...new Set<TicketId>([...filed, ...written.map((message) => message.ticket_id)])]
      const files = yield* repo.attachmentsOf(projectId, filed, writtenIds)
      const ratings = yield* repo.ratingsOf(filed)
      const notifications = yield* repo.notificationsOf(contact.id, touched, writtenIds)
      const threads = yield* repo.threadsOf(contact.id, touched)
      const mail = yield* repo.mailOf(projectId, filed, touched, writtenIds)
      const own = new Set<string>(filed)
      const document: ContactExport = {
        exported_at: DateTime.formatIso(yield* DateTime.now),
        project_id: projectId,
        contact: {
          contact_id: contact.id,
          email: contact.email,
          name: contact.name,
          created_at: contact.created_at,
          updated_at: contact.updated_at
        },
        tickets: tickets.map((ticket) => ({
          ticket_id: ticket.id,
          ticket_number: ticket.ticket_number,
          subject: ticket.subject,
          body: ticket.body,
          status: ticket.status,
          priority: ticket.priority,
          category: ticket.category,
          source: ticket.source,
          sender_email: ticket.sender_email,
          sender_name: ticket.sender_name,
          sender_verified: ticket.sender_verified,
          visitor_sub: ticket.visitor_sub,
          metadata: ticket.metadata,
          custom_fields: ticket.custom_fields ?? {},
          tags: ticket.tags ?? [],
          merged_into_id: ticket.merged_into_id,
          created_at: ticket.created_at,
          updated_at: ticket.updated_at,
          attachment_ids: idsOf(files, (file) => file.ticket_id === ticket.id && file.message_id === null),
          conversation: messages.filter((message) => message.ticket_id === ticket.id).map((message) => ({
            message_id: message.id,
            author_type: message.author_type,
            author_name: message.author_name,
            by_contact: message.by_contact,
            body: message.body,
            created_at: message.created_at,
            attachment_ids: idsOf(files, (file) => file.message_id === message.id)
          }))
        })),
        messages: written.map((message) => ({
          message_id: message.id,
          ticket_id: message.ticket_id,
          ticket_number: message.ticket_number,
          on_own_ticket: own.has(message.ticket_id),
          body: message.body,
          created_at: message.created_at,
          attachment_ids: idsOf(files, (file) => file.message_id === message.id)
        })),
        attachments: files.map((file) => ({
          attachment_id: file.id,
          ticket_id: file.ticket_id,
          message_id: file.message_id,
          filename: file.filename,
          content_type: file.content_type,
          size: file.size,
          sha256: file.sha256,
          created_at: file.created_at,
          download_path: `/v1/admin/projects/${projectId}/attachments/${file.id}`,
          archive_path: archivePath(file)
        })),
        satisfaction: ratings.map((rating) => ({
          ticket_id: rating.ticket_id,
          ticket_number: rating.ticket_number,
          scale: rating.scale,
          rating: rating.rating === null ? null : ratingOf(rating.rating),
          comment: rating.comment,
          requested_at: rating.requested_at,
          rated_at: rating.rated_at
        })),
        notifications,
        mail: { threads, messages: mail }
      }
      return { contactId: contact.id, document, files }
    })

    const exportContact = Effect.fn("Privacy.exportContact")(function*(projectId: ProjectId, email: string) {
      return (yield* gather(projectId, email)).document
    })

    /** The export as a zip: `contact.json`, and each file's bytes, from its row or the object store. */
    const exportZip = Effect.fn("Privacy.exportZip")(function*(projectId: ProjectId, email: string) {
      const { contactId, document, files } = yield* gather(projectId, email)
      const stored = yield* repo.bytesOfFiles(projectId, files.map((file) => file.id))
      const entries: Zippable = {
        "contact.json": [strToU8(JSON.stringify(document, null, 2)), { mtime: document.exported_at }]
      }
      for (const file of files) {
        const row = stored.find((candidate) => candidate.id === file.id)
        // deleted since the document was read: the document still lists it, the zip cannot hold it
        if (row === undefined) continue
        const content = row.content ?? (yield* store.load(row.storage_key ?? ""))
        // stored, not deflated: most files are compressed already, and deflating them would hold the
        // event loop for nothing
        entries[archivePath(file)] = [content, { level: 0, mtime: file.created_at }]
      }
      return { filename: `contact-${contactId}.zip`, content: zipSync(entries) } satisfies ContactArchive
    })

    /**
     * Erases the contact with this address everywhere in the project, in one transaction; the
     * object store's bytes of their files go once it has committed. A second call for the same
     * address finds the erased row by the address's hash and changes nothing.
     */
    const eraseContact = Effect.fn("Privacy.eraseContact")(function*(projectId: ProjectId, address: string) {
      const email = address.trim().toLowerCase()
      const emailHash = yield* sha256Of(strToU8(email))
      const erasedAt = DateTime.formatIso(yield* DateTime.now)
      const outcome = yield* repo.withTransaction(Effect.gen(function*() {
        // the tickets before the contact, in the order a reply takes them (its ticket, then its
        // contact); then again, for a ticket filed while this waited for the contact
        yield* repo.lockTickets(projectId, email)
        const found = yield* repo.contactByEmail(projectId, email, true)
        if (Option.isNone(found)) {
          const before = yield* repo.erasedByHash(projectId, emailHash)
          if (Option.isNone(before)) return yield* missing(projectId)
          const again: ContactErasure = {
            contact_id: before.value.id,
            erased_at: before.value.erased_at,
            already_erased: true,
            tickets: 0,
            messages: 0,
            attachments: 0
          }
          return { answer: again, storageKeys: [] }
        }
        const contactId: ContactId = found.value.id
        const tickets = yield* repo.lockTickets(projectId, email)
        const messages = yield* repo.messageIdsOf(projectId, contactId)
        const touched = [...new Set([...tickets, ...(yield* repo.ticketsOfMessages(messages))])]
        const files = yield* repo.attachmentsOf(projectId, tickets, messages)
        const bodies = yield* repo.eventBodiesOf(projectId, touched)
        const erased = yield* repo.erase({ projectId, contactId, tickets, messages, touched, email, emailHash, erasedAt })
        // the log and the deliveries are rewritten rather than deleted: the streams' positions and
        // the delivery log (status, attempts, what was sent when) stay whole for the operator, and a
        // replay or redelivery afterwards can only send the erased form
        const scope = {
          email,
          tickets: new Set<string>(tickets),
          messages: new Set<string>(messages),
          files: new Set<string>(files.map((file) => file.id))
        }
        yield* repo.rewriteEventBodies(bodies.flatMap((row) => {
          const body = scrubEvent(row.body, scope)
          return body === undefined ? [] : [{ ...row, body }]
        }))
        yield* repo.enqueue(projectEventJobs(Events.contactErased({
          contact_id: contactId,
          project_id: projectId,
          contact_email_hash: emailHash,
          erased_at: erasedAt
        })))
        const answer: ContactErasure = {
          contact_id: contactId,
          erased_at: erasedAt,
          already_erased: false,
          tickets: tickets.length,
          messages: messages.length,
          attachments: erased.attachments
        }
        return { answer, storageKeys: erased.storageKeys }
      }))
      // the rows are gone first: bytes left behind by a failed delete are garbage, never a dangling row
      yield* Effect.forEach(outcome.storageKeys, (key) =>
        store.remove(key).pipe(
          Effect.catchCause((cause) => Effect.logWarning("an erased contact's file stays in the object store", cause))
        ), { discard: true })
      return outcome.answer
    })

    return { exportContact, exportZip, eraseContact }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([PrivacyRepo.layer, AttachmentStore.layer]))
}
