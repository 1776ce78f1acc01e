import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { connect } from "node:net"
import { databaseKinds } from "../support/Databases.ts"
import { createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

interface RawAnswer {
  readonly status: number
  /** Header names lower-cased. */
  readonly headers: Record<string, string>
  readonly text: string
  readonly body: unknown
  /** Whether the server closed its side of the connection after answering. */
  readonly closedByServer: boolean
}

const parseAnswer = (raw: Buffer, closedByServer: boolean): RawAnswer => {
  const split = raw.indexOf("\r\n\r\n")
  if (split === -1) throw new Error(`no complete answer in ${JSON.stringify(raw.toString("latin1"))}`)
  const [statusLine, ...lines] = raw.subarray(0, split).toString("latin1").split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = Number(headers["content-length"] ?? 0)
  const text = raw.subarray(split + 4, split + 4 + length).toString("utf8")
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, text, body, closedByServer }
}

/** True once `received` holds a whole answer: its head and as many body bytes as it announced. */
const answerComplete = (received: Buffer) => {
  const split = received.indexOf("\r\n\r\n")
  if (split === -1) return false
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(received.subarray(0, split).toString("latin1"))
  return length !== null && received.length >= split + 4 + Number(length[1])
}

/**
 * Sends `bytes` over a fresh loopback connection, then, when `chunk` is given, an endless chunked
 * body of it as fast as the socket takes it, until a whole answer has arrived. Resolves with that
 * answer once the server has closed the connection, the way a client that never closes sees it.
 */
const rawExchange = (port: number, bytes: string, chunk?: Buffer) =>
  new Promise<RawAnswer>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    let received = Buffer.alloc(0)
    let answered = false
    let closedByServer = false
    socket.on("data", (data) => {
      received = Buffer.concat([received, data])
      answered ||= answerComplete(received)
    })
    socket.on("end", () => {
      closedByServer = true
    })
    // a write the server no longer reads can fail; what counts is the answer read before
    socket.on("error", () => {})
    socket.on("close", () => {
      try {
        resolve(parseAnswer(received, closedByServer))
      } catch (error) {
        reject(error)
      }
    })
    socket.write(bytes, "latin1")
    if (chunk === undefined) return
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])
    const pump = () => {
      while (!answered && socket.writable) {
        if (!socket.write(frame)) return void socket.once("drain", pump)
      }
    }
    pump()
  })

const portOf = (server: TestServerShape) => Number(new URL(server.baseUrl).port)

/** What every refusal of Node's parser must look like once it reaches a client. */
const expectEnvelope = (answer: RawAnswer, status: number, code: string, message: string) => {
  expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { error: { code, message } } })
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8")
  expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.text))
  expect(answer.headers["connection"]?.toLowerCase()).toBe("close")
  expect(answer.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,128}$/)
  expect(answer.closedByServer).toBe(true)
}

// Deno's parser tells its errors apart only for a header overflow and a conflicting Transfer-Encoding
const onDeno = "Deno" in globalThis
const parserMessage = (message: string) => onDeno ? "the request is not valid HTTP/1.1" : message

/** Requests llhttp refuses before the app sees them, each with the answer a client must get. */
const refusedRequests: ReadonlyArray<readonly [string, string, number, string, string]> = [
  [
    "a header over Node's 16 KiB limit",
    `GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(20 * 1024)}\r\n\r\n`,
    431,
    "REQUEST_HEADERS_TOO_LARGE",
    "request headers must be at most 16 KiB in all"
  ],
  [
    "a header name with a space in it",
    "GET /health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",
    400,
    "VALIDATION_ERROR",
    parserMessage("a header name contains a character HTTP does not allow")
  ],
  [
    "a duplicate Content-Length",
    "POST /v1/tickets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
    400,
    "VALIDATION_ERROR",
    parserMessage("Content-Length must appear once and not beside Transfer-Encoding: chunked")
  ],
  [
    "Content-Length beside Transfer-Encoding: chunked",
    "POST /v1/tickets HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    400,
    "VALIDATION_ERROR",
    "Transfer-Encoding must not come with Content-Length, and must end in chunked"
  ],
  [
    "an unknown method",
    "FROBNICATE /health HTTP/1.1\r\nHost: x\r\n\r\n",
    400,
    "VALIDATION_ERROR",
    parserMessage("the request method is not a known HTTP method")
  ],
  [
    "a request line with an unknown HTTP version",
    "GET /health HTTP/9.9\r\nHost: x\r\n\r\n",
    400,
    "VALIDATION_ERROR",
    parserMessage("the request line must end in HTTP/1.0 or HTTP/1.1, then CRLF")
  ],
  [
    "a request line that is not HTTP at all",
    "hello there\r\n\r\n",
    400,
    "VALIDATION_ERROR",
    parserMessage("the request method is not a known HTTP method")
  ]
]

/**
 * Requests Node answers with a bare status, or not at all, unless the server takes them: each
 * gets the envelope, and the client's `Connection: close` lets the exchange end.
 */
const unansweredByNode: ReadonlyArray<readonly [string, string, number, string, string]> = [
  [
    "CONNECT, as to a proxy",
    "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    405,
    "METHOD_NOT_ALLOWED",
    "CONNECT is not allowed: this service is not a proxy"
  ],
  [
    "an HTTP/1.1 request without a Host header",
    "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n",
    400,
    "VALIDATION_ERROR",
    "an HTTP/1.1 request must carry a Host header"
  ],
  [
    "an Expect other than 100-continue, which is served as if it were not there",
    "POST /v1/tickets HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\nContent-Type: application/json\r\n" +
    "Content-Length: 2\r\n\r\n{}",
    401,
    "UNAUTHORIZED",
    "a valid API key is required: Authorization: Bearer tf_..."
  ]
]

describe.each(databaseKinds)("the edges of the wire on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "1000" }), { excludeTestServices: true })((it) => {
    it.effect("answers a chunked body over 1 MiB with 413 in the envelope, then closes the connection", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* createProject(server)
        const head = `POST /v1/tickets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
          "Content-Type: application/json\r\nX-Request-Id: chunked-413\r\n"
        // a body that never ends: the server must answer and hang up without waiting for its end
        const chunked = yield* Effect.promise(() =>
          rawExchange(portOf(server), `${head}Transfer-Encoding: chunked\r\n\r\n`, Buffer.alloc(64 * 1024, "x")))
        expectEnvelope(chunked, 413, "PAYLOAD_TOO_LARGE", "request body must be at most 1 MiB")
        expect(chunked.headers["x-request-id"]).toBe("chunked-413")
        // the same answer as a Content-Length over the limit gets, which is never read at all
        const announced = yield* Effect.promise(() =>
          rawExchange(portOf(server), `${head}Content-Length: ${2 * 1024 * 1024}\r\n\r\n`))
        expectEnvelope(announced, 413, "PAYLOAD_TOO_LARGE", "request body must be at most 1 MiB")
        // and the service goes on answering
        const api = yield* server.api(key)
        const next = yield* api.tickets.create({ payload: { subject: "After", body: "the big one" }, headers: {} })
        expect(next.ticket_number).toBe(1)
      }))

    for (const [name, bytes, status, code, message] of [...refusedRequests, ...unansweredByNode]) {
      it.effect(`answers ${name} with ${status} ${code} in the envelope`, () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const answer = yield* Effect.promise(() => rawExchange(portOf(server), bytes))
          expectEnvelope(answer, status, code, message)
        }))
    }

    it.effect("serves an HTTP/1.0 request without a Host header, as old health checkers send", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const answer = yield* Effect.promise(() => rawExchange(portOf(server), "GET /health HTTP/1.0\r\n\r\n"))
        expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200, body: { status: "ok" } })
      }))

    it.effect("answers a malformed chunk in a body the app is reading with 400 VALIDATION_ERROR in the envelope", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* createProject(server)
        // the headers were fine, so the app is at work on this request when the parser fails
        const answer = yield* Effect.promise(() =>
          rawExchange(
            portOf(server),
            `POST /v1/tickets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
              "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n"
          ))
        expectEnvelope(answer, 400, "VALIDATION_ERROR", parserMessage("the chunked request body is malformed"))
      }))

    it.effect("keeps the client's request id on a refused request when it sent a sane one", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const answer = yield* Effect.promise(() =>
          rawExchange(
            portOf(server),
            `GET /health HTTP/1.1\r\nHost: x\r\nX-Request-Id: too-big-1\r\nX-Padding: ${"a".repeat(20 * 1024)}\r\n\r\n`
          ))
        expectEnvelope(answer, 431, "REQUEST_HEADERS_TOO_LARGE", "request headers must be at most 16 KiB in all")
        expect(answer.headers["x-request-id"]).toBe("too-big-1")
      }))
  })

  // REQUEST_TIMEOUT is a minute by default; only here is it short
  layer(testServer(kind, { REQUEST_TIMEOUT: "600ms" }), { excludeTestServices: true })((it) => {
    it.effect("answers headers that never finish with 408 REQUEST_TIMEOUT in the envelope", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const answer = yield* Effect.promise(() => rawExchange(portOf(server), "GET /health HTTP/1.1\r\nHost: x\r\n"))
        expectEnvelope(answer, 408, "REQUEST_TIMEOUT", "the request did not arrive in time")
      }))

    // a body cut short, and a body declared of which not a byte comes
    for (const [name, rest] of [
      ["a body that never finishes", "Content-Length: 100\r\n\r\n{\"subject\":"],
      ["a declared body of which not a byte comes", "Content-Length: 5\r\n\r\n"]
    ] as const) {
      it.effect(`answers ${name} with 408 REQUEST_TIMEOUT in the envelope`, () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const { key } = yield* createProject(server)
          const answer = yield* Effect.promise(() =>
            rawExchange(
              portOf(server),
              `POST /v1/tickets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n${rest}`
            ))
          expectEnvelope(answer, 408, "REQUEST_TIMEOUT", "the request did not arrive in time")
        }))
    }
  })
})
