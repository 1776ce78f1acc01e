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

/** What an error must look like once it reaches a client over a connection the server closes. */
const expectEnvelope = (answer: RawAnswer, status: number, code: string, message: string) => {
  expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { error: { code, message } } })
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8")
  expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.text))
  expect(answer.headers["connection"]?.toLowerCase()).toBe("close")
  expect(answer.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,128}$/)
  expect(answer.closedByServer).toBe(true)
}

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
  })
})
