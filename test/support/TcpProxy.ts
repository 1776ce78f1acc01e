import { Effect } from "effect"
import { createConnection, createServer, type Socket } from "node:net"

export interface TcpProxy {
  readonly port: number
  /** Every connection through it is reset, and new ones are refused, as when the server behind is stopped. */
  readonly cut: () => void
  /** Connections go through again. */
  readonly restore: () => void
}

/**
 * A loopback TCP proxy to `host:port` that a test can cut and restore, to take a database or
 * Redis away from the service and give it back without touching the real one. Closed with the scope.
 */
export const tcpProxy = (port: number, host = "127.0.0.1") =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ proxy: TcpProxy; close: () => Promise<void> }>((resolve, reject) => {
        const open = new Set<Socket>()
        let isCut = false
        const server = createServer((client) => {
          if (isCut) {
            client.destroy()
            return
          }
          const upstream = createConnection({ port, host })
          open.add(client).add(upstream)
          const drop = () => {
            client.destroy()
            upstream.destroy()
            open.delete(client)
            open.delete(upstream)
          }
          client.on("error", drop).on("close", drop)
          upstream.on("error", drop).on("close", drop)
          client.pipe(upstream)
          upstream.pipe(client)
        })
        const cutAll = () => {
          for (const socket of open) socket.resetAndDestroy()
          open.clear()
        }
        server.once("error", reject)
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resolve({
            proxy: {
              port: typeof address === "object" && address !== null ? address.port : 0,
              cut: () => {
                isCut = true
                cutAll()
              },
              restore: () => {
                isCut = false
              }
            },
            close: () =>
              new Promise<void>((done) => {
                cutAll()
                server.close(() => done())
              })
          })
        })
      })
    ),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ proxy }) => proxy))
