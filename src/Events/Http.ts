import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { CurrentKey } from "../Auth/Api.ts"
import { requireFullScope } from "../Auth/Scope.ts"
import { ProjectId } from "../Domain/Ids.ts"
import { Projects } from "../Projects/Projects.ts"
import { EventLog } from "./EventLog.ts"
import { eventStream } from "./Response.ts"

export const EventsHttpLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const log = yield* EventLog
    return handlers.handle("project", ({ headers, query }) =>
      Effect.gen(function*() {
        const key = yield* CurrentKey
        yield* requireFullScope("streaming the project's events")
        return yield* eventStream(log, { projectId: key.projectId }, { header: headers["last-event-id"], query: query.last_event_id })
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
        return yield* eventStream(log, { projectId }, { header: headers["last-event-id"], query: query.last_event_id })
      }))
  }))
