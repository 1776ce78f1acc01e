/**
 * The wire shapes of the public API, field for field as they travel (snake_case), so nothing is
 * renamed between the service and your code. Kept by hand because the client imports nothing;
 * `test/client/WireTypes.test.ts` holds them equal to the service's own schemas at compile time.
 */

/** How urgent a ticket is. Triage sets it when the submitter gave none. */
export type Priority = "p1_critical" | "p2_high" | "p3_medium" | "p4_low"

/** Where a ticket has got to. */
export type TicketStatus = "open" | "in_progress" | "waiting" | "resolved" | "closed"

/** What a ticket is about, set by triage; `null` until triage has run. */
export type Category = "billing" | "bug" | "account" | "feature_request" | "question" | "other"

/** Where a ticket came from. */
export type TicketSource = "api" | "widget" | "email" | "form"

/** Who wrote a message: a contact through the public API, an agent, or the service itself. */
export type AuthorType = "contact" | "agent" | "system"

/** Body of `POST /v1/tickets`. An optional field given as `null` counts as not given. */
export interface CreateTicketInput {
  /** 1 to 200 characters. */
  readonly subject: string
  /** 1 to 50,000 characters; Markdown is fine. */
  readonly body: string
  readonly sender_email?: string | null
  readonly sender_name?: string | null
  /** Given by a person, it is never overwritten by triage. */
  readonly priority?: Priority | null
  /** Defaults to `api`. */
  readonly source?: TicketSource | null
  /** At most 20 names of 1 to 50 characters. */
  readonly tags?: ReadonlyArray<string> | null
  /** Any JSON object of at most 16 KiB, kept with the ticket. */
  readonly metadata?: Record<string, unknown> | null
  /** At most 10 `upload_id`s of `uploadFile`, each named once: the opening message's files. */
  readonly attachment_ids?: ReadonlyArray<string> | null
  /**
   * Values of the project's custom fields by key, each checked against its field's type (a key the
   * project has no field for, or a value that does not fit, is a 400 naming it).
   */
  readonly custom_fields?: { readonly [key: string]: CustomFieldValue | null } | null
}

/**
 * A custom field's value: text (1 to 1,000 characters), a number, `true`/`false`, a date
 * (`YYYY-MM-DD`, as text) or one of a select field's options (text).
 */
export type CustomFieldValue = string | number | boolean

/** Answer of `POST /v1/tickets` (202: triage and the rest follow in the background). */
export interface CreatedTicket {
  readonly ticket_id: string
  readonly ticket_number: number
  /**
   * The ticket's secret (`tat_…`). A page that filed the ticket with a widget key keeps it: with
   * it, and only with it (or as the verified visitor who filed it), a widget key reads, answers
   * and streams the ticket.
   */
  readonly access_token: string
}

/** A file of a message, as reads list it; `downloadAttachment` fetches its bytes. */
export interface Attachment {
  readonly id: string
  readonly filename: string
  /** The media type as uploaded; a download of a type browsers could run is served as `application/octet-stream`. */
  readonly content_type: string
  /** In bytes. */
  readonly size: number
  /** Hex SHA-256 of the bytes, to check what was downloaded. */
  readonly sha256: string
  /** The path to download it (`/v1/attachments/:id`), with the same key and, for a `widget` key, the same ticket proof. */
  readonly url: string
}

/**
 * Answer of `POST /v1/uploads` (201): a file waiting for a create or a message to name its
 * `upload_id` in `attachment_ids`; one nothing names by `expires_at` is deleted.
 */
export interface Upload {
  readonly upload_id: string
  readonly filename: string
  readonly content_type: string
  readonly size: number
  readonly sha256: string
  readonly expires_at: string
}

/** One public message of a ticket's conversation; internal notes are never returned. */
export interface Message {
  readonly id: string
  readonly author_type: AuthorType
  /** The agent's display name on an agent's message; null otherwise. */
  readonly author_name: string | null
  readonly body: string
  readonly created_at: string
  readonly attachments: ReadonlyArray<Attachment>
}

/** The fields every read of a ticket has. */
interface TicketFields {
  readonly ticket_id: string
  readonly ticket_number: number
  readonly subject: string
  readonly status: TicketStatus
  readonly priority: Priority
  readonly category: Category | null
  readonly created_at: string
  readonly updated_at: string
  /** The ticket's custom field values by key; `{}` when it has none. */
  readonly custom_fields: { readonly [key: string]: CustomFieldValue }
}

/** A ticket with its public conversation, oldest message first. */
export interface Ticket extends TicketFields {
  /** The opening message, as filed. */
  readonly body: string
  /** The opening message's files. */
  readonly attachments: ReadonlyArray<Attachment>
  readonly messages: ReadonlyArray<Message>
  /**
   * The ticket this one was merged into, where its conversation now lives (read that one, with
   * the same `ticketToken`); null unless merged.
   */
  readonly merged_into_id: string | null
  /** The contact's rating, once they were asked (after the ticket was resolved); null until asked. */
  readonly satisfaction: Satisfaction | null
}

/** How a project asks for ratings: 1 (poor) to 5 (great), or good/bad. */
export type SatisfactionScale = "five" | "good_bad"

/** A rating: an integer 1-5 on the `five` scale, `good` or `bad` on `good_bad`. */
export type Rating = number | "good" | "bad"

/** A ticket's rating request; `rating` is null until the contact answers. */
export interface Satisfaction {
  readonly scale: SatisfactionScale
  readonly rating: Rating | null
  readonly comment: string | null
  readonly rated_at: string | null
}

/** Body of `POST /v1/ratings/:token` and `POST /v1/tickets/:id/rating`. */
export interface RateInput {
  readonly rating: Rating
  /** At most 2,000 characters. */
  readonly comment?: string | null
}

/** Answer of `GET /v1/ratings/:token`: what the link asks about, and the rating once given. */
export interface RatingRequest extends Satisfaction {
  readonly ticket_number: number
  readonly subject: string
}

/** Answer of a recorded rating (201). */
export interface RatingRecorded {
  readonly ticket_number: number
  readonly subject: string
  readonly scale: SatisfactionScale
  readonly rating: Rating
  readonly comment: string | null
  readonly rated_at: string
}

/** One ticket of a contact's list: the fields of the read, without the conversation. */
export interface ContactTicket extends TicketFields {
  /**
   * `true` when a full key filed it; `false` when a widget key did, so the sender's address is
   * only what a visitor typed and the contact may not have written it.
   */
  readonly sender_verified: boolean
}

/** Answer of `GET /v1/tickets?contact_email=…`: a page, newest first. */
export interface ContactTicketList {
  readonly tickets: ReadonlyArray<ContactTicket>
  /** Pass as `cursor` for the next page; null on the last page. */
  readonly next_cursor: string | null
}

/** Answer of `POST /v1/tickets/:id/claim`: the ticket now in the verified visitor's list. */
export interface ClaimedTicket {
  readonly ticket_id: string
}

/** Body of `POST /v1/tickets/:id/messages`. */
export interface AddMessageInput {
  /** 1 to 50,000 characters. */
  readonly body: string
  /** Associates the message with this contact (created when new). */
  readonly contact_email?: string | null
  /** At most 10 `upload_id`s of `uploadFile`, each named once: the message's files. */
  readonly attachment_ids?: ReadonlyArray<string> | null
}

/** Answer of `POST /v1/tickets/:id/messages`. */
export interface AddedMessage {
  readonly message_id: string
}

/** One published knowledge-base article that matched. */
export interface ArticleSearchResult {
  readonly id: string
  readonly title: string
  readonly slug: string
  readonly excerpt: string
  readonly category: string
  readonly relevance: number
}

/** Answer of `GET /v1/articles/search`; `total` counts every match, before `limit`. */
export interface ArticleSearchResponse {
  readonly articles: ReadonlyArray<ArticleSearchResult>
  readonly total: number
}

/** Answer of `GET /v1/articles/:id`: one published article. `body` is Markdown: render it as untrusted input. */
export interface PublicArticle {
  readonly id: string
  readonly title: string
  readonly slug: string
  readonly body: string
  readonly category: string
  readonly updated_at: string
}

/** The kinds `GET /v1/search` looks through. */
export type SearchType = "tickets" | "articles" | "contacts"

interface SearchHitBase {
  readonly id: string
  readonly title: string
  readonly excerpt: string
  readonly relevance: number
}

/** A ticket that matched a unified search. */
export interface TicketSearchHit extends SearchHitBase {
  readonly type: "ticket"
  readonly ticket_number: number
  readonly status: string
}

/** A published article that matched a unified search. */
export interface ArticleSearchHit extends SearchHitBase {
  readonly type: "article"
  readonly slug: string
}

/** A contact that matched a unified search. */
export interface ContactSearchHit extends SearchHitBase {
  readonly type: "contact"
  readonly email: string
  readonly name: string | null
}

/** One result of a unified search; `type` tells which. */
export type SearchHit = TicketSearchHit | ArticleSearchHit | ContactSearchHit

/** Answer of `GET /v1/search`, most relevant first; `total` counts every match, before `limit`. */
export interface SearchResponse {
  readonly results: ReadonlyArray<SearchHit>
  readonly total: number
}

/** Answer of `GET /health`. */
export interface Health {
  readonly status: string
  readonly service: string
  readonly version: string
}

/** The error envelope every non-2xx answer of the service carries. */
export interface ErrorEnvelope {
  readonly error: { readonly code: string; readonly message: string }
}

/** The codes the service puts in its error envelope. */
export type ErrorCode =
  | "VALIDATION_ERROR"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "REQUEST_TIMEOUT"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "RATE_LIMITED"
  | "REQUEST_HEADERS_TOO_LARGE"
  | "INTERNAL_ERROR"
  | "SERVICE_UNAVAILABLE"

/** The events a webhook delivery can carry. */
export type WebhookEventKind =
  | "ticket_created"
  | "ticket_replied"
  | "ticket_resolved"
  | "ticket_status_changed"
  | "ticket_assigned"
  | "ticket_sla_breached"
  | "ticket_rated"
  | "ticket_merged"
  | "endpoint_disabled"
  | "contact_erased"

interface EventOf<K extends WebhookEventKind, D> {
  readonly event: K
  /** When it happened (ISO 8601 UTC); the same on every retry of one delivery. */
  readonly timestamp: string
  readonly data: D
}

/** `ticket_created`: sent as soon as the ticket exists, before triage. */
export type TicketCreatedEvent = EventOf<"ticket_created", {
  readonly id: string
  readonly project_id: string
  readonly subject: string
  readonly status: TicketStatus
  readonly priority: Priority
  readonly sender_email: string | null
  readonly created_at: string
  /** Present only when the ticket was created with custom field values. */
  readonly custom_fields?: { readonly [key: string]: CustomFieldValue }
}>

/** `ticket_replied`: a public message was added. */
export type TicketRepliedEvent = EventOf<"ticket_replied", {
  readonly id: string
  readonly project_id: string
  readonly message_id: string
  readonly author_type: AuthorType
  readonly body: string
  readonly contact_email: string | null
  readonly created_at: string
}>

interface StatusChange {
  readonly id: string
  readonly project_id: string
  readonly status: TicketStatus
  readonly previous_status: TicketStatus
  readonly updated_at: string
}

/** `ticket_status_changed`: any change of status. */
export type TicketStatusChangedEvent = EventOf<"ticket_status_changed", StatusChange>

/** `ticket_resolved`: sent beside `ticket_status_changed` when the new status is `resolved`. */
export type TicketResolvedEvent = EventOf<"ticket_resolved", StatusChange>

/** An agent as webhook payloads show one. */
export interface WebhookAgent {
  readonly id: string
  readonly email: string
  readonly name: string
}

/** `ticket_assigned`: the ticket got an assignee (or another one). */
export type TicketAssignedEvent = EventOf<"ticket_assigned", {
  readonly id: string
  readonly project_id: string
  readonly assignee: WebhookAgent
  readonly previous_assignee: WebhookAgent | null
  readonly updated_at: string
}>

/** `ticket_sla_breached`: a service-level target passed its due time unmet; sent once per breach. */
export type TicketSlaBreachedEvent = EventOf<"ticket_sla_breached", {
  readonly id: string
  readonly project_id: string
  readonly target: "first_response" | "resolution"
  readonly due_at: string
  readonly breached_at: string
}>

/** `ticket_rated`: the ticket's contact rated it (1-5, or `good`/`bad`, as the project asks). */
export type TicketRatedEvent = EventOf<"ticket_rated", {
  readonly id: string
  readonly project_id: string
  readonly rating: number | "good" | "bad"
  readonly comment: string | null
  readonly rated_at: string
}>

/** `ticket_merged`: the ticket was merged into `into_id`, where its conversation now lives. */
export type TicketMergedEvent = EventOf<"ticket_merged", {
  readonly id: string
  readonly project_id: string
  readonly into_id: string
  readonly merged_at: string
}>

/**
 * `endpoint_disabled`: a webhook endpoint of the project stopped receiving (it answered `410`, or
 * failed without a success for the configured time); `id` is the endpoint's id. Sent to the
 * project's other endpoints and its streams; re-enable the endpoint through the operator API.
 */
export type EndpointDisabledEvent = EventOf<"endpoint_disabled", {
  readonly id: string
  readonly project_id: string
  readonly webhook_id: string
  readonly reason: string
  readonly disabled_at: string
}>

/**
 * `contact_erased`: everything the service held about a contact was erased or anonymised; `id` is
 * the contact's id and `contact_email_hash` the hex SHA-256 of the address, lower-cased, so a
 * receiver can find and erase its own copy.
 */
export type ContactErasedEvent = EventOf<"contact_erased", {
  readonly id: string
  readonly project_id: string
  readonly contact_email_hash: string
  readonly erased_at: string
}>

/** The body of a webhook delivery; switch on `event` to narrow `data`. */
export type WebhookEvent =
  | TicketCreatedEvent
  | TicketRepliedEvent
  | TicketStatusChangedEvent
  | TicketResolvedEvent
  | TicketAssignedEvent
  | TicketSlaBreachedEvent
  | TicketRatedEvent
  | TicketMergedEvent
  | EndpointDisabledEvent
  | ContactErasedEvent

/** The names an event of a stream can have: a webhook event's, or `reset`. */
export type StreamEventName = WebhookEventKind | "reset"

/** `data` of a `reset` event. */
export interface StreamResetData {
  /** Why the stream could not resume where it was asked to, for logs. */
  readonly reason: string
}

/**
 * One event of `streamTicketEvents` or `streamEvents` (Server-Sent Events). `event` is a webhook
 * event's name, and `data` the body its webhook delivery carries (a `WebhookEvent`: switch on
 * `event` to narrow a cast of it); or `event` is `reset` and `data` a `StreamResetData`: the stream
 * could not resume from the id it was given (too old, or unknown), so read the current state again
 * (`getTicket`, say) and go on with the events that follow.
 */
export interface StreamEvent {
  /**
   * The event's id: an increasing integer, as text. Keep the last one you handled and pass it as
   * `lastEventId` to resume after it, in this process or a later one. Undefined on `reset`.
   */
  readonly id: string | undefined
  /** A webhook event's name, or `reset`; an event this client version does not know yet keeps its name. */
  readonly event: StreamEventName | (string & {})
  /** The event's `data:` parsed as JSON (the raw text, should it not be JSON). */
  readonly data: unknown
}
