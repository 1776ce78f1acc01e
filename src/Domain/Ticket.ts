import { Schema } from "effect"
import { Category, Email, Metadata, optional, OptionalText, Priority, RequiredText, Source, Status, Tags } from "./Fields.ts"

const bodyMustBeObject = { message: () => ({ message: "request body must be a JSON object", override: false }) }

export const CreateTicketInput = Schema.Struct({
  subject: RequiredText("subject", 200),
  body: RequiredText("body", 50_000),
  sender_email: optional(Email("sender_email")),
  sender_name: optional(OptionalText("sender_name", 200)),
  priority: optional(Priority),
  source: optional(Source),
  tags: optional(Tags),
  metadata: optional(Metadata)
}).annotations({ ...bodyMustBeObject, identifier: "CreateTicketInput" })
export type CreateTicketInput = typeof CreateTicketInput.Type

export const TicketCreated = Schema.Struct({
  ticket_id: Schema.UUID,
  ticket_number: Schema.Int
}).annotations({ identifier: "TicketCreated" })
export type TicketCreated = typeof TicketCreated.Type

export const AuthorType = Schema.Literal("contact", "agent", "system")

export const Message = Schema.Struct({
  id: Schema.UUID,
  author_type: AuthorType,
  body: Schema.String,
  created_at: Schema.String
}).annotations({ identifier: "Message" })

export const Ticket = Schema.Struct({
  ticket_id: Schema.UUID,
  ticket_number: Schema.Int,
  subject: Schema.String,
  status: Status,
  priority: Priority,
  category: Schema.NullOr(Category),
  created_at: Schema.String,
  updated_at: Schema.String,
  messages: Schema.Array(Message)
}).annotations({ identifier: "Ticket" })
export type Ticket = typeof Ticket.Type

export const AddMessageInput = Schema.Struct({
  body: RequiredText("body", 50_000),
  contact_email: optional(Email("contact_email"))
}).annotations({ ...bodyMustBeObject, identifier: "AddMessageInput" })
export type AddMessageInput = typeof AddMessageInput.Type

export const MessageCreated = Schema.Struct({ message_id: Schema.UUID }).annotations({ identifier: "MessageCreated" })
export type MessageCreated = typeof MessageCreated.Type

export const TicketQuery = Schema.Struct({
  contact_email: Schema.optionalWith(Email("contact_email"), { exact: true })
})

export const TicketPath = Schema.Struct({ id: Schema.String })

export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optionalWith(Schema.String, { exact: true })
})

export const TriageValue = <A, I>(value: Schema.Schema<A, I>) =>
  Schema.NullOr(Schema.Struct({
    value: value,
    confidence: Schema.NullOr(Schema.Number),
    source: Schema.Literal("ai", "human")
  }))

export const Agent = Schema.Struct({ id: Schema.UUID, email: Schema.String, name: Schema.String })
  .annotations({ identifier: "Agent" })

/** The operator's view: everything the public read hides. */
export const AdminTicket = Schema.Struct({
  ...Ticket.fields,
  sentiment: Schema.NullOr(Schema.Literal("negative", "neutral", "positive")),
  sentiment_score: Schema.NullOr(Schema.Number),
  tags: Schema.Array(Schema.String),
  metadata: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  source: Source,
  sender_email: Schema.NullOr(Schema.String),
  sender_name: Schema.NullOr(Schema.String),
  assignee: Schema.NullOr(Agent),
  duplicate_of: Schema.NullOr(Schema.UUID),
  linked_issues: Schema.Array(Schema.Unknown),
  triage: Schema.Struct({
    status: Schema.Literal("pending", "done", "failed"),
    model: Schema.NullOr(Schema.String),
    category: TriageValue(Category),
    priority: TriageValue(Priority),
    sentiment: TriageValue(Schema.Literal("negative", "neutral", "positive"))
  }),
  messages: Schema.Array(Schema.Struct({ ...Message.fields, internal: Schema.Boolean })),
  /** agents told about this ticket, oldest first; `email_status` says whether a mail went out */
  notifications: Schema.Array(Schema.Struct({
    notification_id: Schema.UUID,
    agent: Agent,
    reason: Schema.String,
    message_id: Schema.NullOr(Schema.UUID),
    email_status: Schema.Literal("not_configured", "pending", "sent", "failed"),
    created_at: Schema.String
  }))
}).annotations({ identifier: "AdminTicket" })
export type AdminTicket = typeof AdminTicket.Type

export const UpdateTicketInput = Schema.Struct({
  status: optional(Status),
  priority: optional(Priority),
  category: optional(Category),
  assignee_email: optional(Email("assignee_email"))
}).annotations({ ...bodyMustBeObject, identifier: "UpdateTicketInput" })
export type UpdateTicketInput = typeof UpdateTicketInput.Type

export const AgentMessageInput = Schema.Struct({
  body: RequiredText("body", 50_000),
  author_email: optional(Email("author_email")),
  internal: optional(Schema.Boolean.annotations({ message: () => ({ message: "internal must be true or false", override: true }) }))
}).annotations({ ...bodyMustBeObject, identifier: "AgentMessageInput" })
export type AgentMessageInput = typeof AgentMessageInput.Type
