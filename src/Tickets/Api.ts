import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  InternalError,
  NotFound,
  PayloadTooLarge,
  ValidationError
} from "../Domain/Errors.ts"
import {
  AddMessageInput,
  ContactTicketList,
  ContactTicketsQuery,
  CreateTicketInput,
  MessageCreated,
  Ticket,
  TicketCreated,
  TicketPath,
  TicketQuery
} from "../Domain/Ticket.ts"
import { ProjectAuth } from "../Auth/Api.ts"
import { IdempotencyHeaders, Idempotent } from "../Idempotency/Api.ts"

export class TicketsApi extends HttpApiGroup.make("tickets")
  .add(
    HttpApiEndpoint.post("create", "/v1/tickets", {
      payload: CreateTicketInput,
      headers: IdempotencyHeaders,
      success: TicketCreated.pipe(HttpApiSchema.status(202)),
      error: [ValidationError.wire, PayloadTooLarge.wire, InternalError.wire]
    }).middleware(Idempotent).annotate(OpenApi.Summary, "Create a ticket; triage and the rest run in the background"),
    HttpApiEndpoint.get("list", "/v1/tickets", {
      query: ContactTicketsQuery,
      success: ContactTicketList,
      error: [ValidationError.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "A contact's tickets, newest first, a page at a time (full keys only)"),
    HttpApiEndpoint.get("get", "/v1/tickets/:id", {
      params: TicketPath,
      query: TicketQuery,
      success: Ticket,
      error: [ValidationError.wire, NotFound.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "Read a ticket with its public conversation"),
    HttpApiEndpoint.post("addMessage", "/v1/tickets/:id/messages", {
      params: TicketPath,
      payload: AddMessageInput,
      headers: IdempotencyHeaders,
      success: MessageCreated.pipe(HttpApiSchema.status(201)),
      error: [ValidationError.wire, NotFound.wire, PayloadTooLarge.wire, InternalError.wire]
    }).middleware(Idempotent).annotate(OpenApi.Summary, "Add a message from the contact")
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Tickets")
  .annotate(
    OpenApi.Description,
    "Filed with a full or a widget key; a widget key reads and answers a ticket only with its sender's email, and cannot list them"
  ) {}
