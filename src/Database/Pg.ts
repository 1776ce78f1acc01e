import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import * as Net from "node:net"
import { setImmediate } from "node:timers"

/**
 * How this process's connections name themselves to PostgreSQL: the service, and an id of its
 * own, so that each instance can find its own connections among those of the others.
 */
export const applicationName = `support-ticketing ${crypto.randomUUID().slice(0, 8)}`

/**
 * A connection to the server whose writes in one turn of the event loop leave in one system call.
 *
 * The driver batches the statements submitted before its next microtask, but Node runs the
 * microtasks after each HTTP request's callback, so under load every request wrote its statement
 * on its own: a write, and a wake-up of the server's process, per statement (a sixth of the
 * service's busy time under a load of ticket reads). Held back (corked) until the loop's check
 * phase, the statements of every request read in one poll phase go out together; the delay is the
 * rest of that phase, which Node would spend on the other requests before the server's answer
 * could be read anyway.
 *
 * The socket's own `write` is wrapped, after `connect`: Node's `connect` puts its `write` back on
 * the instance, which would undo an override made in a subclass or before.
 */
export const coalescingWrites = <S extends Net.Socket>(socket: S): S => {
  const write = socket.write
  let held = false
  const release = () => {
    held = false
    socket.uncork()
  }
  socket.write = function(this: S, ...args: Parameters<S["write"]>) {
    if (!held) {
      held = true
      socket.cork()
      setImmediate(release)
    }
    return Reflect.apply(write, this, args)
  } as S["write"]
  return socket
}

/**
 * Where the driver would connect for `url`, read as it reads it: the host of the URL or its `host`
 * parameter (a directory for a Unix socket), the port likewise, 5432 and localhost by default.
 */
export const endpointOf = (url: string): { readonly host: string; readonly port: number } | { readonly path: string } => {
  const parsed = new URL(url)
  const hostname = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : decodeURIComponent(parsed.hostname)
  const host = parsed.searchParams.get("host") ?? (hostname === "" ? "localhost" : hostname)
  const port = Number(parsed.searchParams.get("port") ?? (parsed.port === "" ? 5432 : parsed.port))
  return host.startsWith("/") ? { path: `${host}/.s.PGSQL.${port}` } : { host, port }
}

/** Called only once the driver has accepted the URL, so reading it again cannot fail. */
const coalescingConnection = (url: Redacted.Redacted) => () =>
  // a statement is one write and then a wait for its answer: Nagle would only hold it back
  coalescingWrites(Net.connect({ ...endpointOf(Redacted.value(url)), noDelay: true }))

/** A PostgreSQL server, shared by every instance of the service. */
export const layer = (url: Redacted.Redacted, maxConnections: number) =>
  PgClient.layer({ url, maxConnections, applicationName, multiplex: true, stream: coalescingConnection(url) }).pipe(
    Layer.orDie
  )

/**
 * The connections that LISTEN, apart from the pool: one of its own for each channel, opened again
 * when it drops. A listener held on the multiplexed pool takes a pooled connection out of
 * circulation for good, and with several taken at the moment the pool sized itself the statements
 * waited for a connection that never came.
 */
export const listeningClient = (url: Redacted.Redacted) =>
  PgClient.makeClient({ url, applicationName, acquireForStream: true, stream: coalescingConnection(url) }).pipe(
    Effect.provide(Reactivity.layer)
  )

