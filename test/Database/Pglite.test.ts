/**
 * The embedded database behind the same SQL client as a server: PGlite speaks the wire protocol
 * over an in-process stream (src/Database/PgliteWire.ts). What a server gives for free has to
 * hold here too: data on disk, migrations, NOTIFY wake-ups, extensions, and a session that no
 * interrupted query, abandoned transaction or undecodable row can wedge.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { existsSync } from "node:fs"
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { PGlite } from "@electric-sql/pglite"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { makePgliteWire } from "../../src/Database/PgliteWire.ts"
import { eventually } from "../support/Eventually.ts"
import { testSettings } from "../support/Settings.ts"

const embedded = (dataDir: string) =>
  Layer.unwrap(Effect.map(testSettings({ DATA_DIR: dataDir }), (config) =>
    Database.layer.pipe(Layer.provideMerge(Layer.succeed(AppConfig, config)))))

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "pglite-test-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

const sql = Effect.service(SqlClient.SqlClient)

const migrations = Effect.flatMap(sql, (sql) =>
  sql<{ migration_id: number; name: string }>`SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id`)

describe("the embedded database", () => {
  it.live("keeps its data in DATA_DIR across restarts and migrates a new directory once", () =>
    Effect.gen(function*() {
      const everyMigration = [
        { migration_id: 1, name: "initial" },
        { migration_id: 2, name: "pipeline" },
        { migration_id: 3, name: "article_text" },
        { migration_id: 4, name: "duplicate_candidates" },
        { migration_id: 5, name: "article_search_without_pending_list" },
        { migration_id: 6, name: "lists" },
        { migration_id: 7, name: "contact_notifications" },
        { migration_id: 8, name: "job_traces" },
        { migration_id: 9, name: "room_for_updates" },
        { migration_id: 11, name: "idempotency_per_key" },
        { migration_id: 12, name: "sender_verified" },
        { migration_id: 13, name: "events" },
        { migration_id: 14, name: "event_positions" },
        { migration_id: 15, name: "key_limits_and_identity" },
        { migration_id: 16, name: "ticket_visitors" },
        { migration_id: 17, name: "mail_and_attachments" },
        { migration_id: 18, name: "webhook_all_events" },
        { migration_id: 19, name: "custom_fields" },
        { migration_id: 20, name: "merge" },
        { migration_id: 21, name: "satisfaction" },
        { migration_id: 22, name: "sla" },
        { migration_id: 23, name: "webhook_health" },
        { migration_id: 25, name: "audit_log" },
        { migration_id: 26, name: "contact_erasure" },
        { migration_id: 27, name: "ticket_sla_state" },
        { migration_id: 28, name: "audit_agent" }
      ]
      const dir = join(yield* tempDir, "data")
      yield* Effect.gen(function*() {
        expect(yield* migrations).toEqual(everyMigration)
        yield* Effect.flatMap(sql, (sql) => sql`INSERT INTO projects (name) VALUES ('kept')`)
      }).pipe(Effect.provide(embedded(dir)), Effect.scoped)
      // the directory holds a PostgreSQL cluster, not an empty folder
      expect(yield* Effect.promise(() => readdir(dir))).toContain("PG_VERSION")

      const reopened = yield* Effect.gen(function*() {
        const names = yield* Effect.flatMap(sql, (sql) => sql<{ name: string }>`SELECT name FROM projects`)
        return { names: names.map((row) => row.name), migrations: yield* migrations }
      }).pipe(Effect.provide(embedded(dir)), Effect.scoped)
      expect(reopened.names).toEqual(["kept"])
      // migrated once: the second opening ran none again
      expect(reopened.migrations).toEqual(everyMigration)
    }))

  it.live("runs in memory with memory:// and leaves nothing on disk", () =>
    Effect.gen(function*() {
      const before = yield* Effect.promise(() => readdir(process.cwd()))
      const count = yield* Effect.flatMap(sql, (sql) =>
        Effect.andThen(sql`INSERT INTO projects (name) VALUES ('fleeting')`, sql<{ n: number }>`SELECT count(*)::int AS n FROM projects`)
      ).pipe(Effect.provide(embedded("memory://")), Effect.scoped)
      expect(count).toEqual([{ n: 1 }])
      expect(existsSync(join(process.cwd(), "memory:"))).toBe(false)
      expect(yield* Effect.promise(() => readdir(process.cwd()))).toEqual(before)
    }))

  it.live("has pg_trgm, and the schema's own functions", () =>
    Effect.gen(function*() {
      const [row] = yield* Effect.flatMap(sql, (sql) =>
        sql<{ close: number; far: number; escaped: string }>`
          SELECT similarity('password reset', 'pasword reset') AS close, similarity('password', 'invoice') AS far,
            html_escape('<b>&') AS escaped`
      ).pipe(Effect.provide(embedded("memory://")), Effect.scoped)
      expect(row!.close).toBeGreaterThan(0.5)
      expect(row!.far).toBeLessThan(0.2)
      expect(row!.escaped).toBe("&lt;b&gt;&amp;")
    }))

  it.live("delivers NOTIFY to its listeners: from the jobs trigger, at commit, and never from a rollback", () =>
    Effect.gen(function*() {
      const database = yield* Database.DatabaseInfo
      const db = yield* sql
      expect(database.kind).toBe("embedded")
      // the channel of each notification heard, in the order heard
      const heard: Array<string> = []
      const listenTo = (channel: string) =>
        Effect.gen(function*() {
          const subscribed = yield* Deferred.make<void>()
          const listener = yield* database.listen(channel).pipe(
            Stream.runForEach((event) =>
              event === "subscribed" ? Deferred.succeed(subscribed, undefined) : Effect.sync(() => void heard.push(channel))
            ),
            Effect.forkChild
          )
          yield* Deferred.await(subscribed)
          return listener
        })
      const listeners = [yield* listenTo("jobs"), yield* listenTo("sentinel")]
      // notifications reach the listeners in the order sent: once a sentinel sent after some
      // statements is heard, whatever those statements notified has been heard too
      const jobsHeard = Effect.gen(function*() {
        const sentinels = heard.filter((channel) => channel === "sentinel").length
        yield* db`NOTIFY sentinel`
        yield* eventually(
          "the sentinel",
          Effect.sync(() => ({ done: heard.filter((channel) => channel === "sentinel").length > sentinels, value: heard }))
        )
        return heard.filter((channel) => channel === "jobs").length
      })

      const [project] = yield* db<{ id: string }>`INSERT INTO projects (name) VALUES ('p') RETURNING id`
      const job = db`INSERT INTO jobs (kind, project_id, payload, run_at) VALUES ('triage', ${project!.id}, '{}'::jsonb, now())`
      yield* job
      expect(yield* jobsHeard).toBe(1)
      // inside a transaction the notification waits for the commit
      yield* db.withTransaction(Effect.gen(function*() {
        yield* job
        expect(heard.filter((channel) => channel === "jobs")).toHaveLength(1)
      }))
      expect(yield* jobsHeard).toBe(2)
      yield* db.withTransaction(Effect.andThen(job, Effect.fail("roll back"))).pipe(Effect.exit)
      expect(yield* jobsHeard).toBe(2)
      yield* Fiber.interruptAll(listeners)
    }).pipe(Effect.provide(embedded("memory://"))))

  it.live("answers again after an interrupted query, an interrupted transaction and an undecodable row", () =>
    Effect.gen(function*() {
      const db = yield* sql
      yield* db`CREATE TABLE probe (id int PRIMARY KEY)`

      const sleeper = yield* db`SELECT pg_sleep(0.3)`.pipe(Effect.forkChild)
      yield* Effect.sleep("30 millis")
      yield* Fiber.interrupt(sleeper)
      expect(yield* db<{ x: number }>`SELECT 42 AS x`.pipe(Effect.timeout("10 seconds"))).toEqual([{ x: 42 }])

      // a transaction whose fiber is interrupted between statements: its write must not survive,
      // and the one session must not stay inside it
      const writer = yield* db.withTransaction(Effect.andThen(db`INSERT INTO probe VALUES (1)`, Effect.never)).pipe(
        Effect.forkChild
      )
      yield* Effect.sleep("100 millis")
      yield* Fiber.interrupt(writer)
      // inside the interrupted transaction the session would hold the id its INSERT was given
      const [session] = yield* db<{ open: boolean }>`SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS open`
      expect(session!.open).toBe(false)
      expect(yield* db<{ n: number }>`SELECT count(*)::int AS n FROM probe`).toEqual([{ n: 0 }])
      yield* db.withTransaction(db`INSERT INTO probe VALUES (2)`)
      expect(yield* db<{ id: number }>`SELECT id FROM probe`).toEqual([{ id: 2 }])

      // a type the driver cannot decode fails that query, and the connection is replaced
      const undecodable = yield* db`SELECT setweight(to_tsvector('english', 'words'), 'A') AS v`.pipe(Effect.exit)
      expect(Exit.isFailure(undecodable)).toBe(true)
      expect(yield* db<{ x: number }>`SELECT 7 AS x`.pipe(Effect.timeout("10 seconds"))).toEqual([{ x: 7 }])
    }).pipe(Effect.provide(embedded("memory://"))))

  it.live("keeps nothing of what it answered: rows read through the wire leave the heap as it was", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      // a collection on demand, so that what is left on the heap is what something still holds
      setFlagsFromString("--expose-gc")
      const collect = runInNewContext("gc") as () => void
      const heapAfterCollecting = Effect.sync(() => {
        collect()
        return process.memoryUsage().heapUsed
      })
      const read = Effect.flatMap(sql, (sql) =>
        sql<{ text: string }>`SELECT repeat(md5(i::text), 64) AS text FROM generate_series(1, 500) AS i`)
      yield* Effect.gen(function*() {
        yield* read
        const before = yield* heapAfterCollecting
        // 40 reads of 500 rows of 2 KB: 40 MB of answers, each dropped as soon as it is decoded
        for (let i = 0; i < 40; i++) expect((yield* read).length).toBe(500)
        const grown = (yield* heapAfterCollecting) - before
        expect(grown, `the heap grew by ${(grown / 1e6).toFixed(1)} MB`).toBeLessThan(8e6)
      }).pipe(Effect.provide(embedded(dir)))
    }))

  it.live("runs each statement in a turn of the event loop after the reads that were ready", () =>
    Effect.gen(function*() {
      const db = yield* Effect.acquireRelease(Effect.promise(() => PGlite.create()), (db) => Effect.promise(() => db.close()))
      const connection = makePgliteWire(db, () => {}).connect()
      const heard: Array<string> = []
      const answered = (kind: number) =>
        Effect.callback<void>((resume) => {
          const onData = (chunk: Uint8Array) => {
            heard.push(`answer ${String.fromCharCode(chunk[0]!)}`)
            // ReadyForQuery ends every answer of the simple protocol
            if (chunk.includes(kind)) {
              connection.off("data", onData)
              resume(Effect.void)
            }
          }
          connection.on("data", onData)
        })
      const readyForQuery = 0x5a
      const text = (value: string) => Buffer.from(`${value}\0`)
      const startupBody = Buffer.concat([Buffer.from([0, 3, 0, 0]), text("user"), text("postgres"), text("database"), text("postgres"), Buffer.from([0])])
      const startup = Buffer.concat([Buffer.alloc(4), startupBody])
      startup.writeInt32BE(startup.length, 0)
      connection.write(startup)
      yield* answered(readyForQuery)

      heard.length = 0
      const sql = text("SELECT 1")
      const query = Buffer.concat([Buffer.from([0x51, 0, 0, 0, 0]), sql])
      query.writeInt32BE(4 + sql.length, 1)
      connection.write(query)
      // what a socket read that became ready beside the statement would be: it must not wait
      // for the statement, or one busy session keeps a server from reading its other requests
      setImmediate(() => heard.push("the next turn"))
      yield* answered(readyForQuery)
      expect(heard[0]).toBe("the next turn")
      expect(heard.length).toBeGreaterThan(1)
      connection.destroy()
    }).pipe(Effect.scoped))
})
