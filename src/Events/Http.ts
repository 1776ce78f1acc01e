import { Effect, Stream } from "effect"
import { Sse } from "effect/encoding"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { requireFullScope } from "../Auth/Scope.ts"
import { ProjectId } from "../Domain/Ids.ts"
import { Projects } from "../Projects/Projects.ts"
import { EventLog, type LogItem } from "./EventLog.ts"
import type { EventFilter } from "./Repo.ts"

/** Sent while nothing happens, under the idle timeouts of proxies and load balancers. */
const keepAliveEvery = "15 seconds"
const keepAlive = ": keep-alive\n\n"

const reset = Sse.encoder.write({
  _tag: "Event",
  id: undefined,
  event: "reset",
  data: JSON.stringify({
    reason: "the Last-Event-ID given is too old to replay, or not an id of this stream: read the current state, then carry on with the events that follow"
  })
})

const render = (item: LogItem) =>
  item._tag === "Reset"
    ? reset
    : Sse.encoder.write({ _tag: "Event", id: String(item.event.position), event: item.event.kind, data: item.event.body })

/** Where a client resumes: the `Last-Event-ID` header, else the `last_event_id` parameter. */
export interface Resume {
  readonly header?: number | undefined
  readonly query?: number | undefined
}

/**
 * The answer of a stream endpoint, written here rather than by the contract's encoder so that
 * the keep-alives can be comment lines, which every client ignores (the encoder writes events
 * only). It ends when the instance shuts down or the client falls far behind; the client resumes
 * from its last id, on any instance.
 */
export const eventStream = (log: EventLog["Service"], filter: EventFilter, resume: Resume) =>
  HttpServerResponse.stream(
    Stream.merge(
      Stream.map(log.stream(filter, resume.header ?? resume.query), render),
      Stream.map(Stream.tick(keepAliveEvery), () => keepAlive),
      { haltStrategy: "left" }
    ).pipe(Stream.encodeText),
    {
      contentType: "text/event-stream",
      // no-transform and X-Accel-Buffering keep proxies from holding events back to compress or buffer them
      headers: { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" }
    }
  )

export const EventsHttpLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const log = yield* EventLog
    return handlers.handle("project", ({ headers, query }) =>
      Effect.gen(function*() {
        const key = yield* CurrentKey
        yield* requireFullScope("streaming the project's events")
        return eventStream(log, { projectId: key.projectId }, { header: headers["last-event-id"], query: query.last_event_id })
      }))
  }))

export const AdminEventsHttpLive = HttpApiBuilder.group(Api, "adminEvents", (handlers) =>
  Effect.gen(function*() {
    const log = yield* EventLog
    const projects = yield* Projects
    return handlers.handle("project", ({ params, headers, query }) =>
      Effect.gen(function*() {
        const projectId = ProjectId.make(params.pid)
        yield* projects.requireProject(projectId)
        return eventStream(log, { projectId }, { header: headers["last-event-id"], query: query.last_event_id })
      }))
  }))
