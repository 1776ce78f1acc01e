import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Conflict, InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { pathParam, ProjectId, TicketId } from "../Domain/Ids.ts"
import { MergeTicketInput } from "../Domain/Merge.ts"
import { AdminTicket } from "../Domain/Ticket.ts"
import { AdminAuth } from "../Auth/Api.ts"

const TicketItemPath = { pid: pathParam(ProjectId), id: pathParam(TicketId) }

export class MergeApi extends HttpApiGroup.make("merge")
  .add(
    HttpApiEndpoint.post("merge", "/v1/admin/projects/:pid/tickets/:id/merge", {
      params: TicketItemPath,
      payload: MergeTicketInput,
      success: AdminTicket,
      error: [ValidationError.wire, NotFound.wire, Conflict.wire, PayloadTooLarge.wire, InternalError.wire]
    })
      .annotate(OpenApi.Summary, "Merge the ticket into into_id, a ticket of the same project; this cannot be undone")
      .annotate(
        OpenApi.Description,
        "Moves the ticket's messages (internal notes included, each at its own time), files, tags and linked issues to the target and points its mail there; closes it with `merged_into_id`, adds a public note to the target and fires `ticket_merged`. Answers the target's operator read. A merge cannot be undone: to split a conversation again, file a new ticket. 404 when into_id names no ticket of the project, 400 for the ticket itself, 409 when either was merged already."
      )
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: merging tickets")
  .annotate(
    OpenApi.Description,
    "Merging a duplicate into the ticket that keeps the conversation; the operator read offers a detected duplicate as `merge_suggestion`. A merge cannot be undone: to split, file a new ticket."
  ) {}
