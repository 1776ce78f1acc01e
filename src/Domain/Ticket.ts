import { Schema, Struct } from "effect"
import {
  Category,
  Email,
  EmailOr,
  IntFromRow,
  Limit,
  Metadata,
  OneOf,
  optional,
  OptionalName,
  Priority,
  RequiredText,
  Sentiment,
  Source,
  Status,
  Tags,
  Uuid
} from "./Fields.ts"
import { Attachment, AttachmentIds } from "./Attachment.ts"
import { pathParam, TicketId } from "./Ids.ts"
import { CustomFieldInput, CustomFieldValues, isFieldKey } from "./CustomField.ts"
import { MergeSuggestion } from "./Merge.ts"
import { AdminSatisfaction, Satisfaction } from "./Satisfaction.ts"
import { SlaFilters, SlaWithin, TicketSla } from "./Sla.ts"

/** Whose a ticket is, for a caller to decide whether it may see it. */
export interface TicketOwner {
  readonly ticketId: TicketId
  readonly senderEmail: string | null
  readonly visitorSub: string | null
  /** the owners of the tickets merged into this one: their conversations live here now */
  readonly merged?: ReadonlyArray<TicketOwner> | undefined
}

/** Whether the caller may see and answer the ticket; one that may not learns nothing, not even that it exists. */
export type TicketGuard = (owner: TicketOwner) => boolean

const bodyMustBeObject = { message: "request body must be a JSON object" }

export const CreateTicketInput = Schema.Struct({
  subject: RequiredText("subject", 200),
  body: RequiredText("body", 50_000),
  sender_email: optional(Email("sender_email")),
  sender_name: optional(OptionalName("sender_name", 200)),
  priority: optional(Priority),
  source: optional(Source),
  tags: optional(Tags),
  metadata: optional(Metadata),
  attachment_ids: optional(AttachmentIds),
  custom_fields: optional(CustomFieldInput)
}).annotate({ ...bodyMustBeObject, identifier: "CreateTicketInput" })
export type CreateTicketInput = typeof CreateTicketInput.Type

export const TicketCreated = Schema.Struct({
  ticket_id: Uuid,
  ticket_number: Schema.Int,
  access_token: Schema.String.annotate({
    description: "the ticket's secret (`tat_…`): a page that filed the ticket with a widget key keeps it to read, answer and stream the ticket (header X-Ticket-Token)"
  })
}).annotate({ identifier: "TicketCreated" })
export type TicketCreated = typeof TicketCreated.Type

export const AuthorTypes = ["contact", "agent", "system"] as const
export const AuthorType = Schema.Literals(AuthorTypes)
export type AuthorType = typeof AuthorType.Type

export const Message = Schema.Struct({
  id: Uuid,
  author_type: AuthorType,
  /** the agent's display name on an agent's message; null otherwise */
  author_name: Schema.NullOr(Schema.String),
  body: Schema.String,
  created_at: Schema.String,
  attachments: Schema.Array(Attachment)
}).annotate({ identifier: "Message" })
export type Message = typeof Message.Type

export const Ticket = Schema.Struct({
  ticket_id: Uuid,
  ticket_number: Schema.Int,
  subject: Schema.String,
  /** the opening message, as filed */
  body: Schema.String,
  /** the opening message's files */
  attachments: Schema.Array(Attachment),
  status: Status,
  priority: Priority,
  category: Schema.NullOr(Category),
  created_at: Schema.String,
  updated_at: Schema.String,
  /** the values of the project's custom fields, by key; `{}` when none */
  custom_fields: CustomFieldValues,
  messages: Schema.Array(Message),
  merged_into_id: Schema.NullOr(Uuid).annotate({
    description: "the ticket this one was merged into, where its conversation now lives; null unless merged"
  }),
  satisfaction: Schema.NullOr(Satisfaction).annotate({
    description: "the contact's rating once they were asked (after the ticket was resolved); null until asked"
  })
}).annotate({ identifier: "Ticket" })
export type Ticket = typeof Ticket.Type

export const AddMessageInput = Schema.Struct({
  body: RequiredText("body", 50_000),
  contact_email: optional(Email("contact_email")),
  attachment_ids: optional(AttachmentIds)
}).annotate({ ...bodyMustBeObject, identifier: "AddMessageInput" })
export type AddMessageInput = typeof AddMessageInput.Type

export const MessageCreated = Schema.Struct({ message_id: Uuid }).annotate({ identifier: "MessageCreated" })
export type MessageCreated = typeof MessageCreated.Type

export const TicketQuery = { contact_email: Schema.optionalKey(Email("contact_email")) }

export const TicketPath = { id: pathParam(TicketId) }

/** What a widget key shows to reach one ticket: the secret its create returned, or a verified visitor. */
export const VisitorHeaders = {
  "x-visitor-token": Schema.optionalKey(Schema.String.annotate({
    description: "a widget key's verified visitor: an HS256 JWT signed with the project's identity secret (sub, exp; email and name optional)"
  }))
}

export const WidgetHeaders = {
  ...VisitorHeaders,
  "x-ticket-token": Schema.optionalKey(Schema.String.annotate({
    description: "a widget key's proof that this browser filed the ticket: the access_token its create returned"
  }))
}

export const ClaimedTicket = Schema.Struct({ ticket_id: Uuid }).annotate({ identifier: "ClaimedTicket" })

export const TriageSources = ["ai", "human"] as const
export const TriageSource = Schema.Literals(TriageSources)
export type TriageSource = typeof TriageSource.Type

const TriageValue = <S extends Schema.Top>(value: S) =>
  Schema.NullOr(Schema.Struct({
    value,
    confidence: Schema.NullOr(Schema.Number),
    source: TriageSource
  }))

export const Agent = Schema.Struct({ id: Uuid, email: Schema.String, name: Schema.String })
  .annotate({ identifier: "Agent" })
export type Agent = typeof Agent.Type

export const TriageStatus = Schema.Literals(["pending", "done", "failed"])
export const EmailStatus = Schema.Literals(["not_configured", "pending", "sent", "failed"])
export type EmailStatus = typeof EmailStatus.Type

/** A ticket's contact, as a notification names its recipient. */
export const Contact = Schema.Struct({ id: Uuid, email: Schema.String, name: Schema.NullOr(Schema.String) })
  .annotate({ identifier: "Contact" })

/** Exactly one of `agent` and `contact` is set: who was told. */
export const Notification = Schema.Struct({
  notification_id: Uuid,
  agent: Schema.NullOr(Agent),
  contact: Schema.NullOr(Contact),
  /** `ticket_replied` (an agent told of a contact's reply) or `agent_replied` (a contact sent an agent's reply) */
  reason: Schema.String,
  message_id: Schema.NullOr(Uuid),
  email_status: EmailStatus,
  created_at: Schema.String
}).annotate({ identifier: "Notification" })
export type Notification = typeof Notification.Type

/**
 * Whether the ticket's sender fields come from a trusted caller: true for a full key (the site's
 * own backend), false for a widget key, whose visitor can type any address and name.
 */
const SenderVerified = Schema.Boolean.annotate({
  description: "true when a full key filed the ticket; false when a widget key did, so the sender's address and name are only what the visitor typed"
})

/** The operator's view: everything the public read hides. */
export const AdminTicket = Schema.Struct({
  ...Ticket.fields,
  sentiment: Schema.NullOr(Sentiment),
  sentiment_score: Schema.NullOr(Schema.Number),
  tags: Schema.Array(Schema.String),
  metadata: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  source: Source,
  sender_email: Schema.NullOr(Schema.String),
  sender_name: Schema.NullOr(Schema.String),
  sender_verified: SenderVerified,
  assignee: Schema.NullOr(Agent),
  duplicate_of: Schema.NullOr(Uuid),
  merge_suggestion: Schema.NullOr(MergeSuggestion),
  linked_issues: Schema.Array(Schema.Unknown),
  triage: Schema.Struct({
    status: TriageStatus,
    model: Schema.NullOr(Schema.String),
    category: TriageValue(Category),
    priority: TriageValue(Priority),
    sentiment: TriageValue(Sentiment)
  }),
  messages: Schema.Array(Schema.Struct({ ...Message.fields, internal: Schema.Boolean })),
  /** agents and contacts told about this ticket, oldest first; `email_status` says whether a mail went out */
  notifications: Schema.Array(Notification),
  /** as the public read's, with when the contact was asked */
  satisfaction: Schema.NullOr(AdminSatisfaction),
  /** the service level: due times of the first policy that matched, met and breached; null when none did */
  sla: TicketSla
}).annotate({ identifier: "AdminTicket" })
export type AdminTicket = typeof AdminTicket.Type

export const UpdateTicketInput = Schema.Struct({
  status: optional(Status),
  priority: optional(Priority),
  category: optional(Category),
  assignee_email: optional(Email("assignee_email")),
  /** merged into the ticket's values; a key given as null is removed */
  custom_fields: optional(CustomFieldInput)
}).annotate({ ...bodyMustBeObject, identifier: "UpdateTicketInput" })
export type UpdateTicketInput = typeof UpdateTicketInput.Type

export const AgentMessageInput = Schema.Struct({
  body: RequiredText("body", 50_000),
  author_email: optional(Email("author_email")),
  internal: optional(Schema.Boolean.annotate({ message: "internal must be true or false" })),
  attachment_ids: optional(AttachmentIds)
}).annotate({ ...bodyMustBeObject, identifier: "AgentMessageInput" })
export type AgentMessageInput = typeof AgentMessageInput.Type

/** Ticket numbers as rows give them (int8 included), decoded once where they are read. */
export const TicketNumber = IntFromRow

/** One issue of the error tracker that a ticket refers to, as stored in `linked_issues`. */
export interface LinkedIssue {
  readonly provider: "sentry"
  /** the tracker's issue id */
  readonly id: string
  readonly short_id: string | null
  readonly title: string | null
  readonly url: string
  /** how it was found: an issue URL in the text, an event id, or a search for the error message */
  readonly matched_by: "issue_url" | "event_id" | "search"
}

export const TicketOrders = ["created", "updated", "sla_due"] as const
export type TicketOrder = (typeof TicketOrders)[number]

/** The sort that orders the list by a custom field's value, the key following it (`custom_field:plan`). */
export const customFieldSort = "custom_field:"

/** One of `TicketOrders`, or a custom field's sort. */
const TicketSort = RequiredText("sort", 100).pipe(
  Schema.check(Schema.makeFilter((sort: string) =>
    (TicketOrders as ReadonlyArray<string>).includes(sort) ||
    (sort.startsWith(customFieldSort) && isFieldKey(sort.slice(customFieldSort.length))) ||
    `sort must be one of ${TicketOrders.join(", ")}, or custom_field:<key>`
  ))
).annotate({
  description: `one of ${TicketOrders.join(", ")}; or custom_field:<key>, ascending by that field's value, tickets without one last, ties newest first`
})

/** `<key>:<value>`, split at the first colon; the value is read as the field's type by the service. */
const CustomFieldFilter = RequiredText("custom_field", 1100).pipe(
  Schema.check(Schema.makeFilter((filter: string) =>
    (filter.includes(":") && isFieldKey(filter.slice(0, filter.indexOf(":")))) ||
    "custom_field must be <key>:<value>, the key of a custom field"
  ))
).annotate({ description: "<key>:<value>: tickets whose custom field of that key has the value, read as the field's type" })

/** The operator's list of tickets: filters that combine with AND, an order, and keyset paging. */
export const TicketListQuery = {
  status: Schema.optionalKey(Status),
  priority: Schema.optionalKey(Priority),
  category: Schema.optionalKey(Category),
  source: Schema.optionalKey(Source),
  assignee: Schema.optionalKey(EmailOr("assignee", "none")),
  tag: Schema.optionalKey(RequiredText("tag", 50)),
  contact_email: Schema.optionalKey(Email("contact_email")),
  q: Schema.optionalKey(RequiredText("q", 200)),
  custom_field: Schema.optionalKey(CustomFieldFilter),
  sla: Schema.optionalKey(OneOf("sla", SlaFilters).annotate({
    description: "breached: a target was breached; at_risk: not breached, and a target is due within sla_within minutes"
  })),
  sla_within: Schema.optionalKey(SlaWithin),
  sort: Schema.optionalKey(TicketSort),
  limit: Schema.optionalKey(Limit(100)),
  cursor: Schema.optionalKey(Schema.String)
}
const TicketListQueryStruct = Schema.Struct(TicketListQuery)
export type TicketListQuery = typeof TicketListQueryStruct.Type

export const TicketListItem = Schema.Struct({
  ...Struct.omit(Ticket.fields, ["messages", "body", "attachments", "merged_into_id", "satisfaction"]),
  source: Source,
  sender_email: Schema.NullOr(Schema.String),
  sender_name: Schema.NullOr(Schema.String),
  sender_verified: SenderVerified,
  assignee: Schema.NullOr(Agent),
  tags: Schema.Array(Schema.String),
  /** the next due time of a target not yet met (and not paused); null when none */
  sla_due_at: Schema.NullOr(Schema.String),
  /** whether a target of the ticket's SLA was breached */
  sla_breached: Schema.Boolean
}).annotate({ identifier: "TicketListItem" })
export type TicketListItem = typeof TicketListItem.Type

const NextCursor = Schema.NullOr(Schema.String).annotate({
  description: "pass as `cursor` for the next page; null on the last page"
})

export const TicketList = Schema.Struct({ tickets: Schema.Array(TicketListItem), next_cursor: NextCursor })
  .annotate({ identifier: "TicketList" })
export type TicketList = typeof TicketList.Type

/** A contact's tickets, as a full key's integration reads them. */
export const ContactTicketsQuery = {
  contact_email: Schema.optionalKey(Email("contact_email").annotate({
    description: "whose tickets, with a full key; a widget key lists its verified visitor's instead"
  })),
  limit: Schema.optionalKey(Limit(50)),
  cursor: Schema.optionalKey(Schema.String)
}

/** A contact's ticket: the public read's fields, and whether the contact is known to have filed it. */
export const ContactTicket = Schema.Struct({ ...Struct.omit(Ticket.fields, ["messages", "body", "attachments", "merged_into_id", "satisfaction"]), sender_verified: SenderVerified })
  .annotate({ identifier: "ContactTicket" })
export type ContactTicket = typeof ContactTicket.Type

export const ContactTicketList = Schema.Struct({ tickets: Schema.Array(ContactTicket), next_cursor: NextCursor })
  .annotate({ identifier: "ContactTicketList" })
export type ContactTicketList = typeof ContactTicketList.Type
