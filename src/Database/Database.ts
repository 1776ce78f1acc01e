import { NodeServices } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, type Redacted, Schedule, Schema, Stream } from "effect"
import { AppConfig } from "../Config.ts"
import * as Migrator from "./Migrator.ts"
import { DatabaseOutage } from "./Outage.ts"
import * as Pg from "./Pg.ts"
import * as Pglite from "./Pglite.ts"
import * as Rows from "./Rows.ts"
import type { EmbeddedSessionFigures } from "./PgliteWire.ts"

/**
 * What a listener hears on a channel: `subscribed` once LISTEN is in place (again, after a lost
 * connection), `notified` for each NOTIFY from any session or instance, and `lost` when the
 * listening connection dropped, so notifications may have been missed until the next `subscribed`.
 */
export type ListenEvent = "subscribed" | "notified" | "lost"

/** Which database this process runs on, for the few things that differ (demo seeding, wake-ups). */
export class DatabaseInfo extends Context.Service<DatabaseInfo, {
  readonly kind: "embedded" | "server"
  /** Never fails and never ends: a dropped connection is reported and opened again. */
  readonly listen: (channel: string) => Stream.Stream<ListenEvent>
  /** How busy the embedded database's one session is; a server's pool is asked of the server */
  readonly sessionFigures: (() => EmbeddedSessionFigures) | undefined
  /** Whether the database vacuums and analyzes its tables itself: a server's setting; PGlite has none */
  readonly autovacuum: boolean
}>()("app/Database/DatabaseInfo") {}

const embeddedInfo = Layer.effect(
  DatabaseInfo,
  Effect.map(
    Effect.all([Effect.service(Pglite.EmbeddedNotifications), Effect.service(Pglite.EmbeddedSession)]),
    ([notifications, session]) => ({
      kind: "embedded" as const,
      listen: notifications.listen,
      sessionFigures: session.figures,
      autovacuum: false
    })
  )
)

const embedded = (dataDir: string) =>
  Layer.merge(embeddedInfo, DatabaseOutage.layer).pipe(Layer.provideMerge(Pglite.layer(dataDir)))

const AutovacuumSetting = Schema.Struct({ autovacuum: Schema.String })

/** A listening connection that drops is opened again; meanwhile the workers' slow poll covers. */
const serverInfo = (url: Redacted.Redacted) => Layer.effect(
  DatabaseInfo,
  Effect.gen(function*() {
    const client = yield* PgClient.PgClient
    const listening = yield* Pg.listeningClient(url)
    const outage = yield* DatabaseOutage
    // read once at start, outside any request: no trace of its own
    const { autovacuum } = yield* client`SELECT current_setting('autovacuum') AS autovacuum`.pipe(
      Rows.single(AutovacuumSetting),
      Effect.withTracerEnabled(false)
    )
    const listen = (channel: string): Stream.Stream<ListenEvent> =>
      Stream.unwrap(Effect.map(listening.listen(channel), (queue) =>
        Stream.concat(
          Stream.succeed<ListenEvent>("subscribed"),
          Stream.map(Stream.fromQueue(queue), (): ListenEvent => "notified")
        ))).pipe(
        Stream.catchCause((cause) =>
          Stream.concat(
            Stream.fromEffect(outage.logUnlessAway("LISTEN connection lost; reconnecting", "Warn")(cause)).pipe(Stream.drain),
            Stream.succeed<ListenEvent>("lost")
          )
        ),
        Stream.repeat(Schedule.min([Schedule.exponential("200 millis"), Schedule.spaced("10 seconds")]))
      )
    return { kind: "server" as const, listen, sessionFigures: undefined, autovacuum: autovacuum === "on" }
  })
)

const server = (url: Redacted.Redacted, maxConnections: number) =>
  serverInfo(url).pipe(Layer.provideMerge(DatabaseOutage.layer), Layer.provideMerge(Pg.layer(url, maxConnections)))

/**
 * The one SqlClient of the service: PostgreSQL when DATABASE_URL is set, else embedded PGlite
 * under DATA_DIR, with the watch on its outages. The schema is brought up to date before the layer
 * is handed to anyone.
 */
export const layer = Layer.unwrap(AppConfig.useSync((config) =>
  Option.match(config.databaseUrl, {
    onNone: () => embedded(config.dataDir),
    onSome: (url) => server(url, config.databasePoolSize)
  }))).pipe(
  (database) => Migrator.layer.pipe(Layer.provideMerge(database)),
  Layer.provide(NodeServices.layer)
)
