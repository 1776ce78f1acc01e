import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ConflictWire, NotFoundWire, ValidationErrorWire } from "../Domain/Errors.ts"
import {
  AddMessageInput,
  CreateTicketInput,
  IdempotencyHeaders,
  MessageCreated,
  Ticket,
  TicketCreated,
  TicketPath,
  TicketQuery
} from "../Domain/Ticket.ts"
import { ProjectAuth } from "../Http/Security.ts"

export class TicketsApi extends HttpApiGroup.make("tickets")
  .add(
    HttpApiEndpoint.post("create", "/v1/tickets")
      .setPayload(CreateTicketInput)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(TicketCreated, { status: 202 })
      .addError(ValidationErrorWire)
      .addError(ConflictWire)
      .annotate(OpenApi.Summary, "Create a ticket; triage and the rest run in the background")
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/tickets/:id")
      .setPath(TicketPath)
      .setUrlParams(TicketQuery)
      .addSuccess(Ticket)
      .addError(ValidationErrorWire)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "Read a ticket with its public conversation")
  )
  .add(
    HttpApiEndpoint.post("addMessage", "/v1/tickets/:id/messages")
      .setPath(TicketPath)
      .setPayload(AddMessageInput)
      .setHeaders(IdempotencyHeaders)
      .addSuccess(MessageCreated, { status: 201 })
      .addError(ValidationErrorWire)
      .addError(NotFoundWire)
      .addError(ConflictWire)
      .annotate(OpenApi.Summary, "Add a message from the contact")
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Tickets") {}
