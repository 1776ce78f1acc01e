import { Cause, Effect, SchemaIssue } from "effect"
import { HttpServerError, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { type DatabaseOutage, retryAfterSeconds } from "../Database/Outage.ts"
import {
  type ApiError,
  envelopeBody,
  InternalError,
  isApiError,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  ValidationError
} from "../Domain/Errors.ts"
import { allowedMethods } from "./Routes.ts"

/** An error's answer: its envelope and status, and `Retry-After` when it says when to try again. */
export const errorResponse = (error: ApiError) => {
  const response = HttpServerResponse.jsonUnsafe(envelopeBody(error.code, error.message), { status: error.status })
  return error.retryAfterSeconds === undefined
    ? response
    : HttpServerResponse.setHeader(response, "retry-after", String(error.retryAfterSeconds))
}

export const maxBodyBytes = 1024 * 1024

export const tooLarge = () => errorResponse(new PayloadTooLarge({ message: "request body must be at most 1 MiB" }))

/**
 * A body cut off at the limit while more of it is on its way (chunked, so no length said so up
 * front): the connection cannot carry another request, and the client must hear that before it is
 * closed, as it does when a Content-Length was over the limit.
 */
const cutOffTooLarge = () => HttpServerResponse.setHeader(tooLarge(), "connection", "close")

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * A schema names the items of a list `tags[]`; the issue's path knows which one, so the caller
 * reads `tags[2] must be at most 50 characters`.
 */
const withIndexes = (message: string, path: ReadonlyArray<unknown>) => {
  const indexes = path.filter((key) => typeof key === "number")
  let next = 0
  return message.replace(/^\S+/, (field) => field.replace(/\[\]/g, (slot) => next < indexes.length ? `[${indexes[next++]}]` : slot))
}

const firstIssueMessage = (error: HttpApiError.HttpApiSchemaError) => formatIssue(error.cause.issue).issues[0]?.message

/** The first issue, as a sentence a person can act on. */
const decodeMessage = (error: HttpApiError.HttpApiSchemaError) => {
  const issue = formatIssue(error.cause.issue).issues[0]
  if (issue === undefined) return "the request is invalid"
  const field = (issue.path ?? []).map(String).join(".")
  if (issue.message === "Expected a valid JSON body") return "request body is not valid JSON"
  if (issue.message === "Missing key") return field === "" ? "request body is required" : `${field} is required`
  if (issue.message.startsWith("Expected")) {
    if (field === "") return error.kind === "Payload" ? "request body must be a JSON object" : "the request is invalid"
    return `${field} has the wrong type`
  }
  return withIndexes(issue.message, issue.path ?? [])
}

const notRouted = (path: string, method: string) => {
  const allowed = allowedMethods(path)
  // the router also misses a known path whose id it cannot take (too long, or not decodable
  // percent-escapes): with the method served there, that is no 405
  if (allowed.length === 0 || allowed.includes(method)) {
    return errorResponse(new NotFound({ message: `no route for ${path}` }))
  }
  return HttpServerResponse.setHeader(
    errorResponse(new MethodNotAllowed({ message: `${method} is not allowed on ${path}; use ${allowed.join(", ")}` })),
    "allow",
    allowed.join(", ")
  )
}

const databaseAway = errorResponse(
  new ServiceUnavailable({
    message: "the database is not answering; try again shortly",
    retryAfterSeconds
  })
)

/**
 * What a failure looks like on the wire, the one place where any failure from any layer becomes
 * the envelope: an expected one as its own, the database being away as a 503 the outage counts,
 * anything else as a 500 that is logged with the request id the caller is told to quote.
 */
export const failureResponse = (
  cause: Cause.Cause<unknown>,
  request: { readonly path: string; readonly method: string; readonly requestId: string },
  outage: DatabaseOutage["Service"]
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  // the client went away mid-request: nobody reads this answer, and nothing went wrong here
  if (Cause.hasInterruptsOnly(cause)) return Effect.succeed(HttpServerResponse.empty({ status: 499 }))
  const failure = Cause.squash(cause)
  if (isApiError(failure)) return Effect.succeed(errorResponse(failure))
  // every path parameter is an id decoded by its schema, so a malformed one is its resource's 404, in the schema's words
  if (HttpApiError.HttpApiSchemaError.is(failure) && failure.kind === "Params") {
    return Effect.succeed(errorResponse(new NotFound({ message: firstIssueMessage(failure) ?? "not found" })))
  }
  if (HttpApiError.HttpApiSchemaError.is(failure) && failure.kind !== "Body" && failure.kind !== "ResponseHeaders") {
    return Effect.succeed(errorResponse(new ValidationError({ message: decodeMessage(failure) })))
  }
  if (HttpApiError.HttpApiPayloadTooLarge.is(failure)) return Effect.succeed(cutOffTooLarge())
  if (HttpServerError.isHttpServerError(failure)) {
    const reason = failure.reason
    if (reason._tag === "RouteNotFound") return Effect.succeed(notRouted(request.path, request.method))
    if (reason._tag === "RequestParseError") {
      return Effect.succeed(
        reason.reason === "BodyTooLarge"
          ? cutOffTooLarge()
          : errorResponse(new ValidationError({ message: "request body could not be read" }))
      )
    }
  }
  return Effect.flatMap(outage.absorbs(cause, "request"), (away) =>
    away ? Effect.succeed(databaseAway) : unexpected(cause, request))
}

const unexpected = (
  cause: Cause.Cause<unknown>,
  request: { readonly path: string; readonly method: string; readonly requestId: string }
) =>
  Effect.logError("unexpected failure", cause).pipe(
    Effect.annotateLogs({ request_id: request.requestId, path: request.path, method: request.method }),
    Effect.as(errorResponse(
      new InternalError({ message: `something went wrong on our side; quote request id ${request.requestId}` })
    ))
  )
