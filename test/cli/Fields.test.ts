import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { ProjectId } from "../../src/Domain/Ids.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { testSettings } from "../support/Settings.ts"
import { cli, failedWith, succeeded } from "./CliProcess.ts"

/** Files two tickets in-process, as the API would, on the database of `env`: the second with values. */
const fileTickets = (env: Record<string, string>, projectId: string) =>
  Effect.gen(function*() {
    const config = yield* testSettings(env)
    return yield* Effect.flatMap(Effect.service(Tickets), (tickets) =>
      Effect.andThen(
        tickets.create(ProjectId.make(projectId), { subject: "First", body: "First ticket" }),
        tickets.create(ProjectId.make(projectId), { subject: "Second", body: "Second ticket", custom_fields: { seats: 3, plan: "pro" } })
      )).pipe(
        Effect.provide(Tickets.layer.pipe(Layer.provide(Database.layer), Layer.provide(Layer.succeed(AppConfig, config))))
      )
  })

describe.each(databaseKinds)("operator CLI custom fields on %s", (kind) => {
  it.live("defines fields, sets and unsets a ticket's values, filters and sorts by them, and deletes a field", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = /project id: (\S+)/.exec(succeeded(yield* cli(env, "demo")))![1]!
      succeeded(yield* cli(env, "fields", "create", projectId, "plan", "--label", "Plan", "--type", "select", "--options", "free, pro"))
      succeeded(yield* cli(env, "fields", "create", projectId, "seats", "--label", "Seats", "--type", "number"))
      yield* fileTickets(env, projectId)
      const table = succeeded(yield* cli(env, "fields", "list", projectId)).trimEnd().split("\n")
      expect(table).toEqual([
        expect.stringMatching(/^KEY\s+TYPE\s+LABEL\s+OPTIONS$/),
        expect.stringMatching(/^plan\s+select\s+Plan\s+free, pro$/),
        expect.stringMatching(/^seats\s+number\s+Seats\s+-$/)
      ])

      // a number typed on the command line is stored as a number
      expect(succeeded(yield* cli(env, "tickets", "set-field", projectId, "1", "seats", "12"))).toBe(
        "#1  custom fields: {\"seats\":12}\n"
      )
      const sorted = JSON.parse(succeeded(yield* cli(env, "tickets", "list", projectId, "--sort", "custom_field:seats", "--json")))
      expect(sorted.tickets.map((t: any) => [t.subject, t.custom_fields])).toEqual([
        ["Second", { seats: 3, plan: "pro" }],
        ["First", { seats: 12 }]
      ])
      const filtered = JSON.parse(succeeded(yield* cli(env, "tickets", "list", projectId, "--custom-field", "plan:pro", "--json")))
      expect(filtered.tickets.map((t: any) => t.subject)).toEqual(["Second"])
      expect(succeeded(yield* cli(env, "tickets", "unset-field", projectId, "2", "plan"))).toBe(
        "#2  custom fields: {\"seats\":3}\n"
      )

      // the API's refusals, in the terms of the command line
      failedWith(yield* cli(env, "tickets", "set-field", projectId, "1", "seats", "many"), "custom_fields.seats must be a number")
      failedWith(
        yield* cli(env, "fields", "create", projectId, "region", "--label", "Region", "--type", "colour"),
        "--type must be one of text, number, boolean, date, select"
      )

      expect(succeeded(yield* cli(env, "fields", "delete", projectId, "seats"))).toBe(
        "custom field seats deleted, with its values on the project's tickets\n"
      )
      const read = JSON.parse(succeeded(yield* cli(env, "tickets", "show", projectId, "1", "--json")))
      expect(read.custom_fields).toEqual({})
    }), 600_000)
})
