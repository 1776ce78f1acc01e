import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Queue, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { mkdir } from "node:fs/promises"
import * as DataDirLock from "./DataDirLock.ts"
import { type EmbeddedSessionFigures, makePgliteWire } from "./PgliteWire.ts"

/** NOTIFYs delivered to the embedded database's one session, by channel: first `subscribed`, then one `notified` each. */
export class EmbeddedNotifications extends Context.Service<EmbeddedNotifications, {
  readonly listen: (channel: string) => Stream.Stream<"subscribed" | "notified">
}>()("app/Database/EmbeddedNotifications") {}

/** The embedded database's one session, as the metrics show its use. */
export class EmbeddedSession extends Context.Service<EmbeddedSession, {
  readonly figures: () => EmbeddedSessionFigures
}>()("app/Database/EmbeddedSession") {}

const open = (dataDir: string) =>
  Effect.gen(function*() {
    const inMemory = dataDir === "memory://"
    if (!inMemory) {
      yield* Effect.promise(() => mkdir(dataDir, { recursive: true }))
      // PGlite lets a second process open the same directory, and one of them then loses its
      // writes: the lock is taken first and let go only after the database is closed
      yield* DataDirLock.hold(dataDir)
    }
    // loaded only here: a service on PostgreSQL never needs PGlite's 7 MB of code in memory
    const [{ PGlite }, { pg_trgm }] = yield* Effect.promise(() =>
      Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite/contrib/pg_trgm")])
    )
    return yield* Effect.acquireRelease(
      Effect.promise(() => PGlite.create(inMemory ? undefined : dataDir, { extensions: { pg_trgm } })),
      (db) => Effect.promise(() => db.close())
    )
  })

/**
 * The embedded database through the same SQL client as a server: PGlite speaks the wire
 * protocol over an in-process stream, so every query, transaction and decoded row behaves as it
 * does on PostgreSQL.
 */
export const layer = (dataDir: string) =>
  Layer.effectContext(Effect.gen(function*() {
    const db = yield* open(dataDir)
    const listeners = new Map<string, Set<() => void>>()
    const wire = makePgliteWire(db, (channel) => {
      for (const listener of listeners.get(channel) ?? []) listener()
    })
    // a pool of one: PGlite is one session, and a connection the driver gives up on (a row it
    // cannot decode is fatal to a connection) is replaced rather than left dead
    const client = yield* PgClient.make({
      stream: wire.connect,
      ssl: false,
      username: "postgres",
      database: "postgres",
      applicationName: "support-ticketing",
      maxConnections: 1,
      minConnections: 1
    })
    const listening = new Set<string>()
    const listen = (channel: string): Stream.Stream<"subscribed" | "notified"> =>
      Stream.callback<"subscribed" | "notified">((queue) =>
        Effect.gen(function*() {
          if (!listening.has(channel)) {
            yield* client.unsafe(`LISTEN "${channel.replaceAll("\"", "\"\"")}"`).pipe(Effect.orDie)
            listening.add(channel)
          }
          const listener = () => void Queue.offerUnsafe(queue, "notified")
          yield* Effect.acquireRelease(
            Effect.sync(() => {
              const set = listeners.get(channel) ?? new Set()
              set.add(listener)
              listeners.set(channel, set)
            }),
            () => Effect.sync(() => listeners.get(channel)?.delete(listener))
          )
          Queue.offerUnsafe(queue, "subscribed")
        })
      )
    return Context.make(PgClient.PgClient, client).pipe(
      Context.add(SqlClient.SqlClient, client),
      Context.add(EmbeddedNotifications, { listen }),
      Context.add(EmbeddedSession, { figures: wire.figures })
    )
  })).pipe(Layer.provide(Reactivity.layer), Layer.orDie)
