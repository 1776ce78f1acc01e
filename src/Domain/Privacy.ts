import { Schema } from "effect"
import { CustomFieldValues } from "./CustomField.ts"
import { Category, Email, Priority, Source, Status, Uuid } from "./Fields.ts"
import { Rating, SatisfactionScale } from "./Satisfaction.ts"
import { AuthorType, EmailStatus } from "./Ticket.ts"

/** What an erasure writes in place of a contact's text: a subject, a body, a message. */
export const erasedText = "[erased]"

/** The contact an export names, by address (`?email=`). */
export const ContactQuery = { email: Email("email") }

/** The contact an erasure names, by address. */
export const EraseContactInput = Schema.Struct({ email: Email("email") }).annotate({
  message: "request body must be a JSON object",
  identifier: "EraseContactInput"
})
export type EraseContactInput = typeof EraseContactInput.Type

const AttachmentIds = Schema.Array(Uuid).annotate({ description: "ids of files listed in the export's `attachments`" })

/** The contact's own row. */
export const ExportedContact = Schema.Struct({
  contact_id: Uuid,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotate({ identifier: "ExportedContact" })

/** A message of the public conversation of a ticket the contact filed; `by_contact` marks theirs. */
export const ConversationMessage = Schema.Struct({
  message_id: Uuid,
  author_type: AuthorType,
  /** an agent's display name, as the ticket read shows it; null otherwise */
  author_name: Schema.NullOr(Schema.String),
  by_contact: Schema.Boolean.annotate({ description: "true when the contact wrote it, false for the desk's replies and system notes" }),
  body: Schema.String,
  created_at: Schema.String,
  attachment_ids: AttachmentIds
}).annotate({ identifier: "ConversationMessage" })

/** A ticket the contact filed, as the service holds it. */
export const ExportedTicket = Schema.Struct({
  ticket_id: Uuid,
  ticket_number: Schema.Int,
  subject: Schema.String,
  body: Schema.String,
  status: Status,
  priority: Priority,
  category: Schema.NullOr(Category),
  source: Source,
  sender_email: Schema.NullOr(Schema.String),
  sender_name: Schema.NullOr(Schema.String),
  sender_verified: Schema.Boolean,
  visitor_sub: Schema.NullOr(Schema.String).annotate({ description: "the site's user id of the verified visitor who filed it" }),
  metadata: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  custom_fields: CustomFieldValues,
  tags: Schema.Array(Schema.String),
  merged_into_id: Schema.NullOr(Uuid),
  created_at: Schema.String,
  updated_at: Schema.String,
  /** the opening message's files */
  attachment_ids: AttachmentIds,
  conversation: Schema.Array(ConversationMessage).annotate({
    description: "the public conversation, oldest first: the contact's messages and the desk's replies (internal notes are the desk's and not included)"
  })
}).annotate({ identifier: "ExportedTicket" })

/** A message the contact wrote, on any ticket of the project. */
export const ExportedMessage = Schema.Struct({
  message_id: Uuid,
  ticket_id: Uuid,
  ticket_number: Schema.Int,
  on_own_ticket: Schema.Boolean.annotate({ description: "true when the ticket is one the contact filed (it is in `tickets` too)" }),
  body: Schema.String,
  created_at: Schema.String,
  attachment_ids: AttachmentIds
}).annotate({ identifier: "ExportedMessage" })

/** A file of the contact's tickets or messages: its metadata, and where its bytes are. */
export const ExportedAttachment = Schema.Struct({
  attachment_id: Uuid,
  ticket_id: Uuid,
  /** null for a file of a ticket's opening message */
  message_id: Schema.NullOr(Uuid),
  filename: Schema.String,
  content_type: Schema.String,
  size: Schema.Int,
  sha256: Schema.String,
  created_at: Schema.String,
  download_path: Schema.String.annotate({ description: "the operator API's path to download it with the admin token" }),
  archive_path: Schema.String.annotate({ description: "where the zip export holds its bytes" })
}).annotate({ identifier: "ExportedAttachment" })

/** The satisfaction request of a ticket the contact filed, and their answer. */
export const ExportedRating = Schema.Struct({
  ticket_id: Uuid,
  ticket_number: Schema.Int,
  scale: SatisfactionScale,
  rating: Schema.NullOr(Rating),
  comment: Schema.NullOr(Schema.String),
  requested_at: Schema.String,
  rated_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ExportedRating" })

/** A notification sent to the contact, or to an agent about the contact's message. */
export const ExportedNotification = Schema.Struct({
  notification_id: Uuid,
  ticket_id: Uuid,
  message_id: Schema.NullOr(Uuid),
  recipient: Schema.Literals(["contact", "agent"]),
  reason: Schema.String,
  email_status: EmailStatus,
  /** why the mail to the contact failed; null for an agent's mail */
  email_error: Schema.NullOr(Schema.String),
  created_at: Schema.String
}).annotate({ identifier: "ExportedNotification" })

/** The mail records of the contact's tickets and messages. */
export const ExportedMail = Schema.Struct({
  threads: Schema.Array(Schema.Struct({ ticket_id: Uuid, created_at: Schema.String })).annotate({
    description: "the tickets on which the contact was given a reply address"
  }),
  messages: Schema.Array(Schema.Struct({
    rfc_message_id: Schema.String,
    ticket_id: Uuid,
    message_id: Schema.NullOr(Uuid),
    direction: Schema.Literals(["in", "out"]),
    created_at: Schema.String
  })).annotate({ description: "the mail that came in from the contact or went out about their tickets, by Message-ID" })
}).annotate({ identifier: "ExportedMail" })

/** Everything the project holds about one contact, in one document. */
export const ContactExport = Schema.Struct({
  exported_at: Schema.String,
  project_id: Uuid,
  contact: ExportedContact,
  tickets: Schema.Array(ExportedTicket),
  messages: Schema.Array(ExportedMessage),
  attachments: Schema.Array(ExportedAttachment),
  satisfaction: Schema.Array(ExportedRating),
  notifications: Schema.Array(ExportedNotification),
  mail: ExportedMail
}).annotate({ identifier: "ContactExport" })
export type ContactExport = typeof ContactExport.Type

/** What an erasure did: counts of what this call erased (all zero when it had been erased before). */
export const ContactErasure = Schema.Struct({
  contact_id: Uuid,
  erased_at: Schema.String,
  already_erased: Schema.Boolean.annotate({
    description: "true when the address had been erased before: nothing was changed and no event fired"
  }),
  tickets: Schema.Int.annotate({ description: "tickets the contact filed whose text and sender fields were erased" }),
  messages: Schema.Int.annotate({ description: "messages the contact wrote whose text was erased" }),
  attachments: Schema.Int.annotate({ description: "files deleted, rows and stored bytes" })
}).annotate({ identifier: "ContactErasure" })
export type ContactErasure = typeof ContactErasure.Type
