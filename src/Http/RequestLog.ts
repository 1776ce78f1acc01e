import { Context, Effect } from "effect"
import { HttpRouter, type HttpServerResponse } from "effect/http"
import { recordRequest } from "../Observability/Metrics.ts"
import { routeTemplateOf } from "./Routes.ts"

/** What the request log and the metrics know of a request as it arrives. */
export interface Arrival {
  readonly method: string
  readonly path: string
  readonly requestId: string
  /** the monotonic clock in milliseconds, a float: the duration is a subtraction of two */
  readonly startedAt: number
}

/**
 * The route a request took, as its template (`/v1/tickets/:id`), never the path with its ids:
 * the router's, or the contract's for an answer given before routing or instead of it.
 */
const routeOf = (context: Context.Context<never>, arrival: Arrival) =>
  Context.getOrUndefined(context, HttpRouter.RouteContext)?.route.path ?? routeTemplateOf(arrival.method, arrival.path)

/**
 * Every answered request counts in the metrics, by route template, method and status, with the
 * time it took; with `log`, it also leaves its one line in the log.
 */
export const recorded = (log: boolean) =>
(
  context: Context.Context<never>,
  arrival: Arrival,
  response: HttpServerResponse.HttpServerResponse
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const millis = performance.now() - arrival.startedAt
  const route = routeOf(context, arrival)
  recordRequest(context, route, arrival.method, response.status, millis / 1000)
  if (!log) return Effect.succeed(response)
  return Effect.logInfo("request").pipe(
    Effect.as(response),
    Effect.annotateLogs({
      request_id: arrival.requestId,
      method: arrival.method,
      route,
      status: response.status,
      duration_ms: Math.round(millis * 100) / 100
    })
  )
}
