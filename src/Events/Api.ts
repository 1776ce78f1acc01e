import { Schema, SchemaTransformation } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuth, ProjectAuth } from "../Auth/Api.ts"
import { Forbidden, InternalError, NotFound, ValidationError } from "../Domain/Errors.ts"
import { pathParam, ProjectId } from "../Domain/Ids.ts"

/** An event id this service sent (`id:` of an event), read back from `Last-Event-ID` or `last_event_id`. */
const EventPosition = (field: string) =>
  Schema.String.pipe(
    Schema.check(Schema.makeFilter((s: string) =>
      (/^\d{1,16}$/.test(s) && Number.isSafeInteger(Number(s))) || `${field} must be the id of an event this stream sent`
    )),
    Schema.decodeTo(
      Schema.Number,
      SchemaTransformation.transform<number, string>({ decode: (s) => Number(s), encode: (n) => String(n) })
    )
  )

export const ResumeHeaders = {
  "last-event-id": Schema.optionalKey(EventPosition("Last-Event-ID").annotate({
    description: "the id of the last event received: the stream resumes right after it (browsers send it when they reconnect)"
  }))
}

export const ResumeQuery = {
  last_event_id: Schema.optionalKey(EventPosition("last_event_id").annotate({
    description: "the same as Last-Event-ID, for clients that cannot set headers; without either, the stream starts with the next event"
  }))
}

/**
 * One event of a stream: `id` an increasing id of a committed event, `event` one of the webhook
 * events, `data` the JSON body its webhook delivery carries. `reset` (no id) comes first when the
 * id a client resumed from is too old to replay. A comment line (`: keep-alive`) every 15 s keeps
 * proxies from closing a quiet stream.
 */
export const StreamedEvent = Schema.Struct({
  id: Schema.optionalKey(Schema.String),
  event: Schema.String,
  data: Schema.String
}).annotate({ identifier: "StreamedEvent" })

/** What every stream takes and answers: where to resume, and the events. */
export const stream = { headers: ResumeHeaders, query: ResumeQuery, success: HttpApiSchema.StreamSse({ events: StreamedEvent }) }
const error = [ValidationError.wire, InternalError.wire]

export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("project", "/v1/events", { ...stream, error: [...error, Forbidden.wire] }).annotate(OpenApi.Description, "The project's events as Server-Sent Events (a full key): the same five events and bodies as the webhooks, resumable from an event id")
  )
  .middleware(ProjectAuth)
  .annotate(OpenApi.Title, "Events")
  .annotate(OpenApi.Description, "The events of a project as a stream, for integrations that cannot receive webhooks") {}

export class AdminEventsApi extends HttpApiGroup.make("adminEvents")
  .add(
    HttpApiEndpoint.get("project", "/v1/admin/projects/:pid/events", {
      ...stream,
      params: { pid: pathParam(ProjectId) },
      error: [...error, NotFound.wire]
    }).annotate(OpenApi.Description, "A project's events as Server-Sent Events, with the admin token")
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: events")
  .annotate(OpenApi.Description, "The events of a project as a stream, resumable from an event id") {}
