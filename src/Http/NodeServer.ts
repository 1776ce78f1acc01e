import { createServer as createNodeServer, maxHeaderSize, ServerResponse, type ServerOptions } from "node:http"
import type { Duplex } from "node:stream"
import { envelopeBody } from "../Domain/Errors.ts"

/**
 * A response that always ends in one write. @effect/platform-node marks every response
 * `strictContentLength`, and Node then skips its one-write `end(body)`: the head and the body
 * leave in a writev and an empty write follows, a few µs on every answer. The length Node would
 * check is the one Effect computed from that same body, so the flag is kept off.
 */
class OneWriteResponse<Request extends InstanceType<typeof ServerResponse>["req"]> extends ServerResponse<Request> {}
Object.defineProperty(OneWriteResponse.prototype, "strictContentLength", {
  get: () => false,
  set: () => {}
})

interface ClientErrorAnswer {
  readonly status: number
  readonly reason: string
  readonly code: string
  readonly message: string
}

const badRequest = (message: string): ClientErrorAnswer => ({
  status: 400,
  reason: "Bad Request",
  code: "VALIDATION_ERROR",
  message
})

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

/** The envelope for an error Node's HTTP parser or its timers raise, or undefined for a broken socket. */
const clientErrorAnswer = (code: string | undefined): ClientErrorAnswer | undefined => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        reason: "Request Header Fields Too Large",
        code: "REQUEST_HEADERS_TOO_LARGE",
        message: `request headers must be at most ${headerLimit} in all`
      }
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return {
        status: 413,
        reason: "Payload Too Large",
        code: "PAYLOAD_TOO_LARGE",
        message: "chunk extensions of the request body must be at most 16 KiB"
      }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        status: 408,
        reason: "Request Timeout",
        code: "REQUEST_TIMEOUT",
        message: "the request did not arrive in time"
      }
  }
  if (code?.startsWith("HPE_")) return badRequest(parserMessages[code] ?? "the request is not valid HTTP/1.1")
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

/**
 * Requests Node's parser refuses (a header over its size limit, a bad header name, a duplicate
 * Content-Length, an unknown method, headers that never finish) never reach the app, and Node
 * answers them with a bare status. They get the envelope here instead, when the socket can still
 * carry an answer: nothing of a response has been written on it yet.
 */
const answerClientError = (error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex) => {
  if (answered.has(socket)) return
  const answer = clientErrorAnswer(error.code)
  const inFlight = (socket as { _httpMessage?: { _headerSent?: boolean } | null })._httpMessage
  if (answer === undefined || !socket.writable || inFlight?._headerSent === true) {
    socket.destroy()
    return
  }
  answered.add(socket)
  const body = JSON.stringify(envelopeBody(answer.code, answer.message))
  socket.end(
    `HTTP/1.1 ${answer.status} ${answer.reason}\r\n` +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestIdOf(error.rawPacket)}\r\n` +
      "connection: close\r\n\r\n" +
      body
  )
  // the rest of what the client sends is read and dropped until then
  const timer = setTimeout(() => socket.destroy(), closeGracePeriodMs)
  socket.once("close", () => clearTimeout(timer))
}

/**
 * Node's timers for a request's headers and for the whole request: their defaults (60 s and 300 s,
 * looked at every 30 s) unless a test needs them short.
 */
export type RequestTimeouts = Pick<ServerOptions, "headersTimeout" | "requestTimeout" | "connectionsCheckingInterval">

/**
 * Node's HTTP server for NodeHttpServer.layer: responses that end in one write, and the envelope
 * for requests its parser refuses (Deno's node:http reports those the same way, with less detail).
 * Nothing here runs for a request the parser accepts.
 */
export const createServer = (timeouts: RequestTimeouts = {}) => {
  const server = createNodeServer({ ...timeouts, ServerResponse: OneWriteResponse })
  server.on("clientError", answerClientError)
  return server
}
