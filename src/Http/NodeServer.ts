import { Duration } from "effect"
import { Buffer } from "node:buffer"
import {
  createServer as createNodeServer,
  type IncomingMessage,
  maxHeaderSize,
  type ServerOptions,
  type ServerResponse,
  STATUS_CODES
} from "node:http"
import type { Duplex } from "node:stream"
import {
  type ApiError,
  envelopeBody,
  MethodNotAllowed,
  PayloadTooLarge,
  RequestHeadersTooLarge,
  RequestTimeout,
  ValidationError
} from "../Domain/Errors.ts"

// Node's limit, which --max-http-header-size can move
const headerLimit = maxHeaderSize % 1024 === 0 ? `${maxHeaderSize / 1024} KiB` : `${maxHeaderSize} bytes`

/**
 * What llhttp reports, in words a client can act on. Other parser errors get the generic one, and
 * so does every error under Deno, whose parser names only a header overflow and a conflicting
 * Transfer-Encoding.
 */
const parserMessages: Record<string, string> = {
  HPE_INVALID_METHOD: "the request method is not a known HTTP method",
  HPE_INVALID_URL: "the request target is not a valid URL path",
  HPE_INVALID_VERSION: "the request line must end in HTTP/1.0 or HTTP/1.1, then CRLF",
  HPE_INVALID_CONSTANT: "the request line is malformed",
  HPE_INVALID_HEADER_TOKEN: "a header name contains a character HTTP does not allow",
  HPE_INVALID_CONTENT_LENGTH: "Content-Length must be a single decimal number",
  HPE_UNEXPECTED_CONTENT_LENGTH: "Content-Length must appear once and not beside Transfer-Encoding: chunked",
  HPE_INVALID_TRANSFER_ENCODING: "Transfer-Encoding must not come with Content-Length, and must end in chunked",
  HPE_INVALID_CHUNK_SIZE: "the chunked request body is malformed",
  HPE_LF_EXPECTED: "the request has a line that does not end in CRLF",
  HPE_CR_EXPECTED: "the request has a line that does not end in CRLF",
  HPE_INVALID_EOF_STATE: "the connection closed before the request was complete"
}

/** The error for what Node's HTTP parser or its timers raise, or undefined for a broken socket. */
const clientErrorOf = (code: string | undefined): ApiError | undefined => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return new RequestHeadersTooLarge({ message: `request headers must be at most ${headerLimit} in all` })
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new PayloadTooLarge({ message: "chunk extensions of the request body must be at most 16 KiB" })
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new RequestTimeout({ message: "the request did not arrive in time" })
  }
  if (code?.startsWith("HPE_")) {
    return new ValidationError({ message: parserMessages[code] ?? "the request is not valid HTTP/1.1" })
  }
  // ECONNRESET, EPIPE and the like: the connection is gone, nobody would read an answer
  return undefined
}

const saneRequestId = /\r\nx-request-id:[ \t]*([A-Za-z0-9._:-]{1,128})[ \t]*\r\n/i

/** The client's own request id when what arrived carries a sane one, so it can match the answer. */
const requestIdOf = (rawPacket: unknown) =>
  (Buffer.isBuffer(rawPacket) ? saneRequestId.exec(rawPacket.toString("latin1"))?.[1] : undefined) ??
    crypto.randomUUID()

// How long a client gets to read the answer after the FIN, before a destroy resets the connection
// if it is still sending (the grace @effect/platform-node gives after a 413)
const closeGracePeriodMs = 500

/** Sockets already answered: their parser stays failed and reports every later chunk again. */
const answered = new WeakSet<Duplex>()

/** The answer each connection is writing, if any: a parser error then cannot get one of its own. */
const responding = new WeakMap<Duplex, ServerResponse>()

const isMidAnswer = (socket: Duplex) => {
  const response = responding.get(socket)
  return response !== undefined && response.headersSent && !response.writableFinished
}

/**
 * Requests Node's parser refuses (a header over its size limit, a bad header name, a duplicate
 * Content-Length, an unknown method, headers that never finish) never reach the app, and Node
 * answers them with a bare status. They get the envelope here instead, when the socket can still
 * carry an answer: nothing of another answer is on its way on it.
 */
const answerClientError = (error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex) => {
  if (answered.has(socket)) return
  const answer = clientErrorOf(error.code)
  if (answer === undefined || !socket.writable || isMidAnswer(socket)) {
    socket.destroy()
    return
  }
  answerAndClose(socket, answer, requestIdOf(error.rawPacket))
}

/** Writes `answer` in the envelope straight to the socket, then closes it. */
const answerAndClose = (socket: Duplex, answer: ApiError, requestId: string) => {
  answered.add(socket)
  const body = JSON.stringify(envelopeBody(answer.code, answer.message))
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      "connection: close\r\n\r\n" +
      body
  )
  // the rest of what the client sends is read and dropped until then
  const timer = setTimeout(() => socket.destroy(), closeGracePeriodMs)
  socket.once("close", () => clearTimeout(timer))
}

const saneRequestIdHeader = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * CONNECT asks for a tunnel, which Node hands to a `connect` listener apart from every request;
 * without one it drops the connection unanswered. This is no proxy: 405 in the envelope.
 */
const refuseConnect = (request: IncomingMessage, socket: Duplex) => {
  const given = request.headers["x-request-id"]
  answerAndClose(
    socket,
    new MethodNotAllowed({ message: "CONNECT is not allowed: this service is not a proxy" }),
    typeof given === "string" && saneRequestIdHeader.test(given) ? given : crypto.randomUUID()
  )
}

/** Node's timers for a request's headers and for the whole request, and how often it looks at them. */
export type RequestTimeouts = Pick<ServerOptions, "headersTimeout" | "requestTimeout" | "connectionsCheckingInterval">

/**
 * Node's timers from REQUEST_TIMEOUT: the headers and the body together must arrive within it, so
 * a request that declares a body and never sends it gets its 408 then. Node looks every 30 s by
 * default, which would let a request run up to that much over; once a second keeps it close.
 */
export const requestTimeouts = (whole: Duration.Duration): RequestTimeouts => {
  const millis = Duration.toMillis(whole)
  // 0 turns the timers off, as it does in Node
  return { requestTimeout: millis, headersTimeout: millis, connectionsCheckingInterval: millis > 0 ? Math.min(1_000, millis) : 30_000 }
}

/**
 * Node's HTTP server for NodeHttpServer.layer, with the envelope for requests its parser refuses
 * (Deno's node:http reports those the same way, with less detail).
 */
export const createServer = (timeouts: RequestTimeouts = {}) => {
  // a request without a Host header reaches the envelope, which answers it (Http/Envelope)
  const server = createNodeServer({ ...timeouts, requireHostHeader: false })
  server.on("request", (request: IncomingMessage, response: ServerResponse) => responding.set(request.socket, response))
  server.on("clientError", answerClientError)
  server.on("connect", refuseConnect)
  // an Expect other than 100-continue may be ignored (RFC 9110, 10.1.1), where Node would send a
  // bare 417: the request is served as if it had none
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => server.emit("request", request, response))
  return server
}
