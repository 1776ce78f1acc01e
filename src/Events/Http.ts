import { Effect, Stream } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { requireFullScope } from "../Auth/Scope.ts"
import { ProjectId } from "../Domain/Ids.ts"
import { Projects } from "../Projects/Projects.ts"
import { EventLog } from "./EventLog.ts"

/** Sent while nothing happens, under the idle timeouts of proxies and load balancers. */
const heartbeatEvery = "15 seconds"
const heartbeat = { event: "heartbeat", data: "{}" }

/**
 * The stream an endpoint answers with: resumed where the client says, with heartbeats. The server
 * ends it when the instance shuts down, and its client resumes elsewhere from its last id.
 */
const streamOf = (
  log: EventLog["Service"],
  projectId: ProjectId,
  resume: { readonly header?: number | undefined; readonly query?: number | undefined }
) =>
  Stream.merge(
    Stream.map(log.ofProject(projectId, resume.header ?? resume.query), (event) => ({
      id: String(event.position),
      event: event.kind,
      data: event.body
    })),
    Stream.map(Stream.tick(heartbeatEvery), () => heartbeat)
  )

export const EventsHttpLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const log = yield* EventLog
    return handlers.handle("project", ({ headers, query }) =>
      Effect.gen(function*() {
        const key = yield* CurrentKey
        yield* requireFullScope("streaming the project's events")
        return streamOf(log, key.projectId, { header: headers["last-event-id"], query: query.after })
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
        return streamOf(log, projectId, { header: headers["last-event-id"], query: query.after })
      }))
  }))
