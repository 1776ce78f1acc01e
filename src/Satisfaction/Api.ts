import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuth, ProjectAuth } from "../Auth/Api.ts"
import { Conflict, InternalError, NotFound, PayloadTooLarge, RateLimited, ValidationError } from "../Domain/Errors.ts"
import { pathParam, ProjectId, RatingToken } from "../Domain/Ids.ts"
import {
  RateInput,
  RatingRecorded,
  RatingRequest,
  SatisfactionSettings,
  SatisfactionSummary,
  UpdateSatisfactionSettings
} from "../Domain/Satisfaction.ts"
import { TicketPath, WidgetHeaders } from "../Domain/Ticket.ts"

const TokenPath = { token: pathParam(RatingToken) }
const rateErrors = [ValidationError.wire, NotFound.wire, Conflict.wire, PayloadTooLarge.wire, InternalError.wire]

/** An ISO 8601 time as a query parameter, kept as the text the database compares. */
const Instant = (field: string) =>
  Schema.String.check(Schema.makeFilter((text: string) =>
    (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) && !Number.isNaN(Date.parse(text))) ||
    `${field} must be an ISO 8601 date or time, such as 2026-11-01T00:00:00Z`
  ))

/**
 * A resolved ticket's contact rates it: through the link of the mail (its token is the only
 * credential, so no key), or through the widget with the ticket's proof.
 */
export class SatisfactionApi extends HttpApiGroup.make("satisfaction")
  .add(
    HttpApiEndpoint.post("rateTicket", "/v1/tickets/:id/rating", {
      params: TicketPath,
      payload: RateInput,
      headers: WidgetHeaders,
      success: RatingRecorded.pipe(HttpApiSchema.status(201)),
      error: rateErrors
    }).annotate(
      OpenApi.Description,
      "The contact's rating of a ticket they were asked about, once; a widget key needs the ticket's X-Ticket-Token or its verified visitor"
    )
  )
  .middleware(ProjectAuth)
  .add(
    HttpApiEndpoint.get("getRating", "/v1/ratings/:token", {
      params: TokenPath,
      success: RatingRequest,
      error: [NotFound.wire, RateLimited.wire, InternalError.wire]
    }).annotate(OpenApi.Description, "What a rating link asks about, and the rating once given; no key, and reading records nothing"),
    HttpApiEndpoint.post("rate", "/v1/ratings/:token", {
      params: TokenPath,
      payload: RateInput,
      success: RatingRecorded.pipe(HttpApiSchema.status(201)),
      error: [...rateErrors, RateLimited.wire]
    }).annotate(OpenApi.Description, "Records the rating of a link's ticket, once (409 after); no key: the link's token is the credential")
  )
  .annotate(OpenApi.Title, "Satisfaction")
  .annotate(
    OpenApi.Description,
    "Ratings of resolved tickets by their contacts: 1-5 or good/bad, as the project asks, once per ticket"
  ) {}

const ProjectPath = { pid: pathParam(ProjectId) }
const adminErrors = [ValidationError.wire, NotFound.wire, PayloadTooLarge.wire, InternalError.wire]

export class SatisfactionAdminApi extends HttpApiGroup.make("satisfactionAdmin")
  .add(
    HttpApiEndpoint.get("summary", "/v1/admin/projects/:pid/satisfaction", {
      params: ProjectPath,
      query: { since: Schema.optionalKey(Instant("since")), until: Schema.optionalKey(Instant("until")) },
      success: SatisfactionSummary,
      error: adminErrors
    }).annotate(OpenApi.Description, "The project's ratings recorded in [since, until): count, average, spread and score"),
    HttpApiEndpoint.get("settings", "/v1/admin/projects/:pid/satisfaction-settings", {
      params: ProjectPath,
      success: SatisfactionSettings,
      error: adminErrors
    }),
    HttpApiEndpoint.patch("updateSettings", "/v1/admin/projects/:pid/satisfaction-settings", {
      params: ProjectPath,
      payload: UpdateSatisfactionSettings,
      success: SatisfactionSettings,
      error: adminErrors
    }).annotate(OpenApi.Description, "Turns the survey on or off, chooses its scale, and delays it after the resolution")
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: satisfaction")
  .annotate(OpenApi.Description, "Whether and how a project asks for ratings, and what its contacts answered") {}
