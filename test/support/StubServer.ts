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

/**
 * An HTTP server on loopback that records every request and answers its n-th (from 1) as
 * `answer` says; for what a real service cannot be made to do on demand (429 twice, a dropped
 * connection, no answer at all) and for receiving webhooks. Plain promises, so suites that also
 * run under Deno can use it.
 */
export const startStub = async (answer: (n: number, request: StubRequest) => StubAnswer) => {
  const requests: Array<StubRequest> = []
  const server = createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (body += chunk))
    req.on("end", () => {
      const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, at: performance.now() }
      requests.push(request)
      const reply = answer(requests.length, request)
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
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
