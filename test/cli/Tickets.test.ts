import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Agents } from "../../src/Admin/Agents.ts"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { testSettings } from "../support/Settings.ts"
import { cli, createProject, failedWith, succeeded } from "./CliProcess.ts"

/** Runs `effect` with the services over the database of `env`, closed again before the next CLI run. */
const withServices = <A, E>(env: Record<string, string>, effect: Effect.Effect<A, E, Tickets | Agents>) =>
  Effect.gen(function*() {
    const config = yield* testSettings(env)
    return yield* effect.pipe(Effect.provide(Layer.mergeAll(Tickets.layer, Agents.layer).pipe(
      Layer.provideMerge(Database.layer),
      Layer.provide(Layer.succeed(AppConfig, config))
    )))
  })

describe.each(databaseKinds)("operator CLI tickets commands on %s", (kind) => {
  it.live("lists, shows, answers, assigns and moves tickets, for people and for scripts", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const ids = yield* withServices(env, Effect.gen(function*() {
        const tickets = yield* Tickets
        yield* (yield* Agents).create(projectId, "ana@support.example", "Ana")
        const first = yield* tickets.create(projectId, {
          subject: "Cannot log in",
          body: "The login page rejects my password.",
          sender_email: "kim@example.com",
          sender_name: "Kim",
          tags: ["vip"]
        })
        const second = yield* tickets.create(projectId, { subject: "Invoice twice", body: "Charged twice.", priority: "p1_critical" })
        const third = yield* tickets.create(projectId, { subject: "Dark mode", body: "Please.", source: "widget" })
        return [first.ticket_id, second.ticket_id, third.ticket_id]
      }))

      const table = succeeded(yield* cli(env, "tickets", "list", projectId, "--limit", "2"))
      const lines = table.trimEnd().split("\n")
      expect(lines[0]).toMatch(/^#\s+STATUS\s+PRIORITY\s+CATEGORY\s+ASSIGNEE\s+FROM\s+UPDATED\s+SUBJECT$/)
      expect(lines.slice(1, 3).map((line) => line.split(/\s+/)[0])).toEqual(["3", "2"])
      expect(lines[2]).toMatch(/^2\s+open\s+p1_critical\s+-\s+-\s+-\s+\S+ \S+\s+Invoice twice$/)
      // the columns line up: every row's subject starts where the header's does
      const at = lines[0]!.indexOf("SUBJECT")
      expect(lines.slice(1, 3).map((line) => line.slice(at, at + 4))).toEqual(["Dark", "Invo"])
      const cursor = /^more: --cursor (\S+)$/.exec(lines[3]!)?.[1]
      expect(cursor).toBeDefined()

      // for scripts: the operator API's own answer, and the next page from the cursor printed
      const rest = JSON.parse(succeeded(yield* cli(env, "tickets", "list", projectId, "--limit", "2", "--cursor", cursor!, "--json")))
      expect(rest).toEqual({ tickets: [expect.objectContaining({ ticket_id: ids[0], tags: ["vip"] })], next_cursor: null })
      expect(Object.keys(rest.tickets[0]).sort()).toEqual([
        "assignee", "category", "created_at", "custom_fields", "priority", "sender_email", "sender_name", "sender_verified", "sla_breached",
        "sla_due_at", "source", "status", "subject", "tags", "ticket_id", "ticket_number", "updated_at"
      ])
      const byContact = JSON.parse(succeeded(yield* cli(env, "tickets", "list", projectId, "--contact-email", "KIM@example.com", "--json")))
      expect(byContact.tickets.map((t: any) => t.ticket_number)).toEqual([1])

      // changes, by number or by id, through the operator API's service
      succeeded(yield* cli(env, "tickets", "reply", projectId, "1", "We are looking into it.", "--author-email", "ana@support.example"))
      succeeded(yield* cli(env, "tickets", "reply", projectId, "#1", "Kim is a VIP.", "--internal"))
      const assigned = succeeded(yield* cli(env, "tickets", "assign", projectId, ids[0]!, "ana@support.example"))
      expect(assigned).toContain("assignee: Ana <ana@support.example>")
      const moved = JSON.parse(succeeded(yield* cli(env, "tickets", "status", projectId, "1", "waiting", "--json")))
      expect(moved).toMatchObject({ ticket_id: ids[0], status: "waiting", assignee: { email: "ana@support.example" } })

      const shown = succeeded(yield* cli(env, "tickets", "show", projectId, "1"))
      expect(shown).toContain("#1  Cannot log in")
      expect(shown).toMatch(/status: +waiting/)
      // filed in-process without a key's word for its sender: shown as unverified
      expect(shown).toContain("from:      Kim <kim@example.com>    (unverified: no full key vouched for this sender)")
      expect(shown).toContain("assignee:  Ana <ana@support.example>")
      expect(shown).toMatch(/--- agent · \S+\nWe are looking into it\./)
      expect(shown).toMatch(/--- agent \(internal\) · \S+\nKim is a VIP\./)
      const read = JSON.parse(succeeded(yield* cli(env, "tickets", "show", projectId, ids[0]!, "--json")))
      expect(read.messages.map((m: any) => [m.body, m.internal])).toEqual([
        ["We are looking into it.", false],
        ["Kim is a VIP.", true]
      ])
    }), 600_000)

  it.live("answers mistakes with one line on stderr and exit status 1, changing nothing", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      yield* withServices(env, Effect.flatMap(Tickets, (tickets) => tickets.create(projectId, { subject: "One", body: "x" })))
      const unknown = "0b7e1e0c-6a55-4c3e-9d4e-2f1c6a1d9a00"
      failedWith(
        yield* cli(env, "tickets", "list", projectId, "--status", "pending"),
        "status must be one of open, in_progress, waiting, resolved, closed"
      )
      failedWith(yield* cli(env, "tickets", "list", projectId, "--cursor", "nonsense"), "cursor is not valid")
      failedWith(
        yield* cli(env, "tickets", "list", unknown),
        `no project ${unknown} (\`npm run cli -- projects list\` shows the projects)`
      )
      failedWith(yield* cli(env, "tickets", "show", projectId, "7"), `no ticket 7 in project ${projectId}`)
      failedWith(
        yield* cli(env, "tickets", "status", projectId, "1", "done"),
        "status must be one of open, in_progress, waiting, resolved, closed"
      )
      failedWith(
        yield* cli(env, "tickets", "assign", projectId, "1", "nobody@support.example"),
        "<agent-email> must be the address of an agent of this project"
      )
      failedWith(yield* cli(env, "tickets", "reply", projectId, "1", "   "), "body is required")
      const read = JSON.parse(succeeded(yield* cli(env, "tickets", "show", projectId, "1", "--json")))
      expect(read).toMatchObject({ status: "open", assignee: null, messages: [] })
    }), 600_000)
})
