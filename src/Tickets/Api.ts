import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Forbidden,
  InternalError,
  NotFound,
  PayloadTooLarge,
  ValidationError
} from "../Domain/Errors.ts"
import {
  AddMessageInput,
  ClaimedTicket,
  ContactTicketList,
  ContactTicketsQuery,
  CreateTicketInput,
  MessageCreated,
  Ticket,
  TicketCreated,
  TicketPath,
  TicketQuery,
  VisitorHeaders,
  WidgetHeaders
} from "../Domain/Ticket.ts"
import { ResumeHeaders, ResumeQuery, StreamedEvent } from "../Events/Api.ts"
import { ProjectAuth } from "../Auth/Api.ts"
import { IdempotencyHeaders, Idempotent } from "../Idempotency/Api.ts"

export class TicketsApi extends HttpApiGroup.make("tickets")
  .add(
    HttpApiEndpoint.post("create", "/v1/tickets", {
      payload: CreateTicketInput,
      headers: { ...IdempotencyHeaders, ...VisitorHeaders },
      success: TicketCreated.pipe(HttpApiSchema.status(202)),
      error: [ValidationError.wire, PayloadTooLarge.wire, InternalError.wire]
    }).middleware(Idempotent).annotate(OpenApi.Summary, "Create a ticket; triage and the rest run in the background"),
    HttpApiEndpoint.get("list", "/v1/tickets", {
      query: ContactTicketsQuery,
      headers: VisitorHeaders,
      success: ContactTicketList,
      error: [ValidationError.wire, Forbidden.wire, InternalError.wire]
    }).annotate(
      OpenApi.Summary,
      "A contact's tickets (full key, contact_email) or the verified visitor's (widget key), newest first, a page at a time"
    ),
    HttpApiEndpoint.get("get", "/v1/tickets/:id", {
      params: TicketPath,
      query: TicketQuery,
      headers: WidgetHeaders,
      success: Ticket,
      error: [ValidationError.wire, NotFound.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "Read a ticket with its public conversation"),
    HttpApiEndpoint.post("addMessage", "/v1/tickets/:id/messages", {
      params: TicketPath,
      payload: AddMessageInput,
      headers: { ...IdempotencyHeaders, ...WidgetHeaders },
      success: MessageCreated.pipe(HttpApiSchema.status(201)),
      error: [ValidationError.wire, NotFound.wire, PayloadTooLarge.wire, InternalError.wire]
    }).middleware(Idempotent).annotate(OpenApi.Summary, "Add a message from the contact"),
    HttpApiEndpoint.get("events", "/v1/tickets/:id/events", {
      params: TicketPath,
      headers: { ...ResumeHeaders, ...WidgetHeaders },
      query: ResumeQuery,
      success: HttpApiSchema.StreamSse({ events: StreamedEvent }),
      error: [ValidationError.wire, NotFound.wire, InternalError.wire]
    }).annotate(
      OpenApi.Summary,
      "The ticket's events as Server-Sent Events, resumable from an event id; a widget key sees its public ones (messages and status)"
    ),
    HttpApiEndpoint.post("claim", "/v1/tickets/:id/claim", {
      params: TicketPath,
      headers: WidgetHeaders,
      success: ClaimedTicket,
      error: [ValidationError.wire, NotFound.wire, Forbidden.wire, InternalError.wire]
    }).annotate(
      OpenApi.Summary,
      "Adds a ticket this browser filed anonymously (X-Ticket-Token) to the verified visitor's list (X-Visitor-Token); widget keys"
    )
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Tickets")
  .annotate(
    OpenApi.Description,
    "Filed with a full or a widget key; a widget key reads, answers and streams a ticket only with the access_token its create returned (X-Ticket-Token) or as the verified visitor who filed it (X-Visitor-Token)"
  ) {}
