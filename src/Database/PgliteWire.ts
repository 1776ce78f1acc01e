import type { PGlite } from "@electric-sql/pglite"
import { Duplex } from "node:stream"
import { setImmediate } from "node:timers"

const sslRequestCode = 80877103
const cancelRequestCode = 80877102
const notificationResponse = 0x41 // 'A'
const terminate = 0x58 // 'X'

const readInt32 = (bytes: Uint8Array, offset: number) =>
  ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0

const concat = (a: Uint8Array, b: Uint8Array) => {
  if (a.length === 0) return b
  const joined = new Uint8Array(a.length + b.length)
  joined.set(a)
  joined.set(b, a.length)
  return joined
}

const decoder = new TextDecoder()

/** The channel of each NotificationResponse in a run of backend messages. */
const notifiedChannels = (bytes: Uint8Array): Array<string> => {
  const channels: Array<string> = []
  let offset = 0
  while (offset + 5 <= bytes.length) {
    const length = readInt32(bytes, offset + 1)
    if (bytes[offset] === notificationResponse) {
      // Int32 pid, then the channel as a NUL-terminated string
      const start = offset + 9
      const end = bytes.indexOf(0, start)
      if (end !== -1) channels.push(decoder.decode(bytes.subarray(start, end)))
    }
    offset += 1 + length
  }
  return channels
}

/** How busy the embedded database's one session has been, and is. */
export interface EmbeddedSessionFigures {
  /** time spent running statements since start-up */
  readonly busySeconds: number
  /** messages written and not yet taken up by the session */
  readonly waiting: number
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * PGlite as a PostgreSQL server to talk the wire protocol with: each `connect()` is a Duplex
 * whose writes are frontend messages, executed by PGlite in arrival order, and whose reads are
 * the backend's answers. PGlite is a single session, so every connection shares it; the client
 * keeps to one connection and pins it for a transaction, which is what keeps transactions
 * isolated. `onNotify` hears every NOTIFY delivered to the session (after a LISTEN on it).
 */
export const makePgliteWire = (db: PGlite, onNotify: (channel: string) => void) => {
  // One message at a time, across every connection, in the order they were written, each in a
  // turn of the event loop of its own. PGlite runs a statement without yielding; run from the
  // socket read that wrote it, it kept the loop from reading the other sockets, so the server
  // took one request per turn, in no order: under 50 connections a search waited up to 9 s
  // (p99 4.5 s). Run after a turn, every request that has arrived is read first and queues.
  let queue: Promise<unknown> = Promise.resolve()
  // how busy the one session is, for the metrics: the time it spent running statements, and the
  // messages waiting for it (what a server's pool would show as connections in use and waiters)
  let busyMillis = 0
  let waiting = 0
  const run = (work: () => Promise<void>) => {
    waiting++
    queue = queue.then(nextTurn, nextTurn).then(async () => {
      waiting--
      const start = performance.now()
      try {
        await work()
      } finally {
        busyMillis += performance.now() - start
      }
    })
    return queue
  }
  const figures = (): EmbeddedSessionFigures => ({ busySeconds: busyMillis / 1000, waiting })

  /** A connection that goes away mid-transaction must not leave the one session inside it. */
  const abandon = () =>
    run(async () => {
      if (!db.closed && db.isInTransaction()) await db.exec("ROLLBACK")
    })

  const connect = (): Duplex => {
    let started = false
    let pending: Uint8Array = new Uint8Array(0)

    const execute = (stream: Duplex, message: Uint8Array) =>
      run(async () => {
        if (stream.destroyed) return
        // the answer as it is written, copied out of the database's memory: `execProtocolRaw`
        // also parses every message into a list PGlite keeps, and that list grew by each row read
        // until the heap ran out (about 17 KB a 25-ticket list page)
        const chunks: Array<Uint8Array> = []
        await db.execProtocolRawStream(message, { onRawData: (data) => void chunks.push(data.slice()) })
        const answer = chunks.length === 1 ? chunks[0]! : chunks.reduce(concat, new Uint8Array(0))
        if (answer.length === 0) return
        for (const channel of notifiedChannels(answer)) onNotify(channel)
        if (!stream.destroyed) stream.push(answer)
      })

    const stream: Duplex = new Duplex({
      read() {},
      write(chunk: Uint8Array, _encoding, callback) {
        pending = concat(pending, chunk)
        const complete: Array<Uint8Array> = []
        for (;;) {
          if (!started) {
            if (pending.length < 8) break
            const length = readInt32(pending, 0)
            if (pending.length < length) break
            const code = readInt32(pending, 4)
            const message = pending.subarray(0, length)
            pending = pending.subarray(length)
            if (code === sslRequestCode) {
              stream.push(Uint8Array.of(0x4e)) // 'N': no TLS, carry on in the clear
              continue
            }
            if (code === cancelRequestCode) {
              // nothing to cancel: PGlite runs a statement to its end before the next one starts
              stream.destroy()
              return callback()
            }
            started = true
            complete.push(message)
            continue
          }
          if (pending.length < 5) break
          const length = 1 + readInt32(pending, 1)
          if (pending.length < length) break
          const message = pending.subarray(0, length)
          pending = pending.subarray(length)
          if (message[0] === terminate) {
            stream.push(null)
            stream.destroy()
            return callback()
          }
          complete.push(message)
        }
        if (complete.length === 0) return callback()
        const batch = complete.length === 1 ? complete[0]! : complete.reduce(concat)
        execute(stream, batch).then(() => callback(), (error) => callback(error as Error))
      },
      final(callback) {
        this.push(null)
        callback()
      }
    })
    // queued as the stream is torn down, before the writes of the connection that replaces it
    stream.once("close", () => void abandon())
    const destroy = stream.destroy.bind(stream)
    stream.destroy = (error?: Error) => {
      if (!stream.destroyed) void abandon()
      return destroy(error)
    }
    return stream
  }

  return { connect, figures }
}
