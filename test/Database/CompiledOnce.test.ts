import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import * as Rows from "../../src/Database/Rows.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

describe.each(databaseKinds)("a statement compiled once on %s", (kind) => {
  layer(databaseLayer(kind), { excludeTestServices: true })((it) => {
    it.effect("runs as the same SQL and parameters as the statement written out, with each call's arguments", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const shown = sql.literal("upper(p.name)")
        const written = (name: string, other: string) =>
          sql`SELECT ${shown} AS shown, ${"fixed"}::text AS fixed FROM projects p
              WHERE p.name = ${name} OR p.name = ${other} OR p.name = ${name} ORDER BY p.name`
        const compiled = Rows.compiledOnce(sql, written)

        // the text with its placeholders, and the parameters in their places: a value of the
        // statement's own stays where it was, an argument used twice fills both of its places
        expect(compiled("Acme", "Globex").compile()).toEqual(written("Acme", "Globex").compile())
        expect(compiled("Initech", "Acme").compile()).toEqual(written("Initech", "Acme").compile())

        yield* sql`INSERT INTO projects (name) VALUES ('Acme'), ('Globex'), ('Initech')`
        expect(yield* compiled("Acme", "Initech")).toEqual([
          { shown: "ACME", fixed: "fixed" },
          { shown: "INITECH", fixed: "fixed" }
        ])
        expect(yield* compiled("Globex", "nobody")).toEqual([{ shown: "GLOBEX", fixed: "fixed" }])
      }))

    it.effect("refuses, when it is built, a statement that leaves an argument out", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        expect(() => Rows.compiledOnce(sql, (name: string, _unused: string) => sql`SELECT ${name}::text AS name`))
          .toThrow("compiledOnce: 1 of 2 arguments never reach the SQL")
      }))
  })
})
