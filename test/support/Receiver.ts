import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** How the receiver answers its n-th request (from 1): a status, and optionally a Location. */
export type Answer = (n: number, request: Received) => { readonly status: number; readonly location?: string }

/**
 * A webhook receiver on loopback that records every request and answers as told; closed
 * with the scope. `answer` can be swapped while it runs, as a receiver that comes back up.
 */
export const receiver = (initial: Answer = () => ({ status: 200 })) =>
  Effect.acquireRelease(
    Effect.async<{
      readonly url: string
      readonly received: Array<Received>
      answer: Answer
      readonly close: () => void
    }>((resume) => {
      const state = {
        url: "",
        received: [] as Array<Received>,
        answer: initial,
        close: () => server.close()
      }
      const server = createServer((req, res) => {
        let body = ""
        req.setEncoding("utf8")
        req.on("data", (chunk: string) => (body += chunk))
        req.on("end", () => {
          const request = { path: req.url ?? "", headers: req.headers, body }
          state.received.push(request)
          const { location, status } = state.answer(state.received.length, request)
          if (location !== undefined) res.setHeader("location", location)
          res.statusCode = status
          res.end("ok")
        })
      })
      server.keepAliveTimeout = 1
      server.listen(0, "127.0.0.1", () => {
        state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
        resume(Effect.succeed(state))
      })
    }),
    (state) => Effect.sync(() => state.close())
  )

/** Polls until `found` gives a value, or fails after `timeoutMs` saying what it waited for. */
export const eventually = <A>(what: string, found: () => A | undefined | Promise<A | undefined>, timeoutMs = 15_000) =>
  Effect.promise(async () => {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const value = await found()
      if (value !== undefined) return value
      if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })
