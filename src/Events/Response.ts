import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import type { EventLog } from "./EventLog.ts"
import type { EventFilter } from "./Repo.ts"

/** Where a client resumes: the `Last-Event-ID` header, else the `last_event_id` parameter. */
export interface Resume {
  readonly header?: number | undefined
  readonly query?: number | undefined
}

/**
 * The answer of a stream endpoint: the log's stream of what `filter` wants, resumed where the
 * client says. The body is written by the log rather than by the contract's encoder (which writes
 * events only), so its keep-alives can be comment lines that every client ignores.
 */
export const eventStream = (log: EventLog["Service"], filter: EventFilter, resume: Resume) =>
  Effect.map(log.open(filter, resume.header ?? resume.query), (body) =>
    HttpServerResponse.raw(body, {
      contentType: "text/event-stream",
      // no-transform and X-Accel-Buffering keep proxies from holding events back to compress or buffer them
      headers: { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" }
    }))
