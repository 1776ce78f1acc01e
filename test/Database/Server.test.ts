/**
 * The connection to a PostgreSQL server (src/Database/Pg.ts): the statements of many requests
 * handled in one turn of the event loop leave in one write, and the socket is opened where the
 * driver itself would open it.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { once } from "node:events"
import * as Net from "node:net"
import { setImmediate } from "node:timers"
import { afterEach, vi } from "vitest"
import { coalescingWrites, endpointOf } from "../../src/Database/Pg.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

afterEach(() => {
  vi.restoreAllMocks()
})

/** Runs `each` from `count` separate macrotasks of one loop turn, as Node runs HTTP requests. */
const fromSeparateCallbacks = <A>(count: number, each: (index: number) => Promise<A>) =>
  Promise.all(Array.from({ length: count }, (_, index) =>
    new Promise<A>((resolve, reject) => setImmediate(() => each(index).then(resolve, reject)))))

describe("endpointOf", () => {
  it("reads the host and port of the URL, or their parameters, as the driver does", () => {
    expect(endpointOf("postgres://u:p@db.internal:6543/app")).toEqual({ host: "db.internal", port: 6543 })
    expect(endpointOf("postgresql://u@127.0.0.1/app")).toEqual({ host: "127.0.0.1", port: 5432 })
    expect(endpointOf("postgres:///app")).toEqual({ host: "localhost", port: 5432 })
    expect(endpointOf("postgres://u@[::1]:5433/app")).toEqual({ host: "::1", port: 5433 })
    expect(endpointOf("postgres://u@ignored/app?host=db2&port=7000")).toEqual({ host: "db2", port: 7000 })
    expect(endpointOf("postgres:///app?host=/var/run/postgresql")).toEqual({
      path: "/var/run/postgresql/.s.PGSQL.5432"
    })
  })
})

describe("coalescingWrites", () => {
  it.live("sends the writes of one loop turn in one system call, in order, and the next turn's after", () =>
    Effect.promise(async () => {
      const received: Array<Buffer> = []
      const server = Net.createServer((peer) => peer.on("data", (chunk: Buffer) => received.push(chunk)))
      server.listen(0, "127.0.0.1")
      await once(server, "listening")
      const { port } = server.address() as Net.AddressInfo
      const socket = coalescingWrites(Net.connect({ host: "127.0.0.1", port, noDelay: true }))
      await once(socket, "connect")
      const batches = vi.spyOn(socket, "_writev")
      const singles = vi.spyOn(socket, "_write")

      await fromSeparateCallbacks(5, async (index) => {
        socket.write(`statement ${index};`)
      })
      await new Promise((resolve) => setImmediate(resolve))
      expect(batches).toHaveBeenCalledTimes(1)
      expect(batches.mock.calls[0]![0]).toHaveLength(5)
      expect(singles).not.toHaveBeenCalled()

      // a later turn is not held back behind the first: it leaves on its own
      socket.write("statement 5;")
      await new Promise((resolve) => setImmediate(resolve))
      expect(singles).toHaveBeenCalledTimes(1)

      const expected = Array.from({ length: 6 }, (_, index) => `statement ${index};`).join("")
      while (Buffer.concat(received).toString() !== expected) await new Promise((resolve) => setTimeout(resolve, 5))
      socket.destroy()
      server.close()
    }))
})

describe.each(databaseKinds.filter((kind) => kind === "postgres"))("the service's connections to %s", (kind) => {
  layer(databaseLayer(kind), { excludeTestServices: true })((it) => {
    it.effect("send the statements of separate requests in one loop turn in one write, each getting its own answer", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`SELECT 1`
        const batches = vi.spyOn(Net.Socket.prototype, "_writev")
        const singles = vi.spyOn(Net.Socket.prototype, "_write")
        const answers = yield* Effect.promise(() =>
          fromSeparateCallbacks(5, (index) =>
            Effect.runPromise(
              Effect.map(sql<{ n: number }>`SELECT ${index}::int AS n`, (rows) => rows[0]!.n)
            ))
        )
        expect(answers).toEqual([0, 1, 2, 3, 4])
        expect(batches).toHaveBeenCalledTimes(1)
        expect(batches.mock.calls[0]![0]).toHaveLength(5)
        expect(singles).not.toHaveBeenCalled()
      }))
  })
})
