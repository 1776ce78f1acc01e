import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface StubRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  /** `performance.now()` when the request had arrived in full. */
  readonly at: number
}

/** How the stub answers: a response, or `"hang"` (never answer) or `"drop"` (close the socket). */
export type StubAnswer =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: unknown }
  | "hang"
  | "drop"

export type StubAnswerer = (n: number, request: StubRequest) => StubAnswer

export interface Stub {
  readonly url: string
  readonly requests: Array<StubRequest>
  /** How it answers its n-th request (from 1); it can be swapped while the stub runs. */
  answer: StubAnswerer
  readonly close: () => Promise<void>
}

/**
 * An HTTP server on loopback that records every request and answers as told: the one stand-in
 * for the services at the edge (a webhook receiver, an OpenAI-compatible model, Sentry) and for
 * what a real service cannot be made to do on demand (429 twice, a dropped connection, no answer
 * at all). Plain promises, so suites that also run under Deno can use it.
 */
export const startStub = async (answer: StubAnswerer = () => ({ status: 200 })): Promise<Stub> => {
  const requests: Array<StubRequest> = []
  const server = createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (body += chunk))
    req.on("end", () => {
      const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, at: performance.now() }
      requests.push(request)
      const reply = stub.answer(requests.length, request)
      if (reply === "hang") return
      if (reply === "drop") return void req.socket.destroy()
      const text = reply.body === undefined ? "" : typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body)
      res.writeHead(reply.status, {
        ...(typeof reply.body === "object" ? { "content-type": "application/json" } : {}),
        ...reply.headers
      })
      res.end(text)
    })
  })
  server.keepAliveTimeout = 1
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const stub: Stub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        // a held request or a keep-alive connection would keep close() waiting
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return stub
}

/** The stub for an Effect test: closed with the test's scope. */
export const stubServer = (answer?: StubAnswerer) =>
  Effect.acquireRelease(Effect.promise(() => startStub(answer)), (stub) => Effect.promise(() => stub.close()))
