/**
 * Webhook deliveries over kept-alive connections that the receiver has closed while idle. Node's
 * own server drops an idle connection after 5 s, others sooner or later, and the client may send
 * on it at the very moment it goes: the request never reaches the receiver, so it must go out
 * again at once on a new connection rather than wait a minute for the retry schedule.
 */
import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { describe, expect } from "vitest"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

// a short schedule, so that a delivery that did need a retry ends quickly and the log shows it
const settings = { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,300ms" }

interface Receiver {
  readonly url: string
  /** Requests answered 204, with the number of the connection each came on (from 1). */
  readonly answered: Array<{
    readonly delivery: string
    readonly connection: number
    readonly headers: IncomingHttpHeaders
  }>
  /** Requests that came on a connection this receiver counted as closed; it hung up on them. */
  readonly dropped: Array<{ readonly delivery: string; readonly headers: IncomingHttpHeaders }>
}

/**
 * A receiver that closes a kept-alive connection once it has been idle for `idleLimit` ms, in the
 * way a client cannot see coming: at the moment the next request arrives on it, before any answer.
 * That is the race of a real idle timeout (the close and the request cross on the wire), made
 * certain instead of occasional. It sends no `Keep-Alive: timeout=` hint, as many servers do not.
 * With `halfAnswer` it starts an answer on that connection before it hangs up instead: a receiver
 * that had the request.
 */
const receiver = (idleLimit: number, { halfAnswer = false } = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const answered: Receiver["answered"] = []
      const dropped: Receiver["dropped"] = []
      const connectionNumber = new WeakMap<Socket, number>()
      const idleSince = new WeakMap<Socket, number>()
      let connections = 0
      const server = createServer((request: IncomingMessage, response) => {
        const socket = request.socket
        const delivery = String(request.headers["x-service-delivery"])
        const idle = idleSince.get(socket)
        if (idle !== undefined && performance.now() - idle > idleLimit) {
          dropped.push({ delivery, headers: request.headers })
          if (halfAnswer) socket.write("HTTP/1.1 20")
          return void socket.destroy()
        }
        request.resume()
        request.on("end", () => {
          answered.push({ delivery, connection: connectionNumber.get(socket)!, headers: request.headers })
          response.writeHead(204).end()
          response.on("finish", () => idleSince.set(socket, performance.now()))
        })
      })
      server.on("connection", (socket: Socket) => connectionNumber.set(socket, ++connections))
      // no idle timer of its own and so no Keep-Alive hint: idleness is judged above
      server.keepAliveTimeout = 0
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
      const hook: Receiver = { url, answered, dropped }
      return { ...hook, server }
    }),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  )

const pause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Registers the receiver for ticket_created; `deliver` creates a ticket and gives the log once it has settled. */
const subscribe = (server: TestServerShape, hook: Receiver) =>
  Effect.gen(function*() {
    const admin = yield* server.api(adminToken)
    const project = yield* createProject(server)
    const api = yield* server.api(project.key)
    const pid = project.projectId
    const { webhook_id } = yield* admin.webhooks.register({
      params: { pid },
      payload: { url: hook.url, events: ["ticket_created"] }
    })
    const log = Effect.map(admin.webhooks.deliveries({ params: { pid, webhook_id } }), ({ deliveries }) => deliveries)
    let sent = 0
    const deliver = Effect.gen(function*() {
      sent += 1
      yield* api.tickets.create({ payload: { subject: `Ticket ${sent}`, body: "Deliver me" }, headers: {} })
      return yield* eventually(
        `delivery ${sent} to be delivered or given up`,
        Effect.map(log, (deliveries) => ({
          done: deliveries.length === sent && deliveries.every((d) => d.status !== "pending"),
          value: deliveries
        }))
      )
    })
    return { deliver }
  })

describe.each(databaseKinds)("webhook connections on %s", (kind) => {
  layer(testServer(kind, settings, undefined, { pipeline: "live" }), { excludeTestServices: true })((it) => {
    it.effect("sends a delivery again at once on a new connection when the kept-alive one was closed unseen", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver(200)
        const { deliver } = yield* subscribe(server, hook)
        yield* deliver
        // past the receiver's idle limit (the pipeline adds its own delay), well within the client's
        yield* pause(300)
        const deliveries = yield* deliver
        // the race did happen: the second delivery first went out on the connection the receiver had closed
        expect(hook.dropped).toHaveLength(1)
        for (const delivery of deliveries) {
          expect(delivery).toMatchObject({
            status: "delivered",
            attempts: 1,
            last_status_code: 204,
            last_error: null,
            next_attempt_at: null
          })
        }
        expect(hook.answered.map((a) => a.delivery).sort()).toEqual(deliveries.map((d) => d.delivery_id).sort())
        expect(hook.dropped[0]!.delivery).toBe(deliveries[0]!.delivery_id)
        expect(hook.answered.map((a) => a.connection)).toEqual([1, 2])
        // the same attempt sent again: the same timestamp and signatures, byte for byte
        const { connection: _, ...resent } = hook.answered[1]!.headers
        const { connection: __, ...first } = hook.dropped[0]!.headers
        expect(resent).toEqual(first)
      }))

    it.effect("leaves a request the receiver may have had to the retry schedule, even on a reused connection", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver(200, { halfAnswer: true })
        const { deliver } = yield* subscribe(server, hook)
        yield* deliver
        yield* pause(300)
        const [second] = yield* deliver
        // the first attempt got part of an answer: failed and retried on the schedule, not at once
        expect(hook.dropped.map((d) => d.delivery)).toEqual([second!.delivery_id])
        expect(second).toMatchObject({ status: "delivered", attempts: 2, last_status_code: 204, last_error: null })
        expect(hook.answered.map((a) => a.delivery)).toEqual([expect.any(String), second!.delivery_id])
      }))

    it.effect("lets an idle connection go before a receiver's 5 s keep-alive timeout closes it", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        // Node's own http server closes a connection idle for 5 s
        const hook = yield* receiver(5_000)
        const { deliver } = yield* subscribe(server, hook)
        yield* deliver
        yield* pause(5_500)
        const deliveries = yield* deliver
        expect(hook.dropped).toEqual([])
        expect(hook.answered.map((a) => a.connection)).toEqual([1, 2])
        for (const delivery of deliveries) {
          expect(delivery).toMatchObject({ status: "delivered", attempts: 1, last_error: null })
        }
      }))
  })
})
