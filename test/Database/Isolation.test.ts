import { layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

describe.each(databaseKinds)("transactions on %s", (kind) => {
  layer(databaseLayer(kind), { excludeTestServices: true })((it) => {
    it.effect("hide uncommitted writes from other fibers and leave nothing behind on rollback", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE probe (id int PRIMARY KEY)`
        const writer = yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO probe VALUES (1)`
          yield* Effect.sleep("150 millis")
          return yield* Effect.fail("roll back")
        })).pipe(Effect.result, Effect.forkChild)
        yield* Effect.sleep("50 millis")
        const [during] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM probe`
        yield* Fiber.join(writer)
        const [after] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM probe`
        expect([during!.n, after!.n]).toEqual([0, 0])
      }))

    it.effect("lose no update when two transactions read and write the same row at once", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE counter (id int PRIMARY KEY, value int NOT NULL)`
        yield* sql`INSERT INTO counter VALUES (1, 0)`
        // FOR UPDATE is what the service uses; on PGlite the single session serialises anyway
        const increment = sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<{ value: number }>`SELECT value FROM counter WHERE id = 1 FOR UPDATE`
          yield* Effect.sleep("30 millis")
          yield* sql`UPDATE counter SET value = ${row!.value + 1} WHERE id = 1`
        }))
        yield* Effect.all(Array.from({ length: 5 }, () => increment), { concurrency: "unbounded" })
        const [row] = yield* sql<{ value: number }>`SELECT value FROM counter WHERE id = 1`
        expect(row!.value).toBe(5)
      }))
  })
})
