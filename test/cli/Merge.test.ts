import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Audit } from "../../src/Audit/Audit.ts"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { testSettings } from "../support/Settings.ts"
import { cli, createProject, failedWith, succeeded } from "./CliProcess.ts"

/** Runs `effect` with the tickets over the database of `env`, closed again before the next CLI run. */
const withTickets = <A, E>(env: Record<string, string>, effect: Effect.Effect<A, E, Tickets>) =>
  Effect.gen(function*() {
    const config = yield* testSettings(env)
    return yield* effect.pipe(Effect.provide(Tickets.layer.pipe(
      Layer.provideMerge(Database.layer),
      Layer.provide(Layer.succeed(AppConfig, config))
    )))
  })

/** Runs `effect` with the audit log over the database of `env`. */
const withAudit = <A, E>(env: Record<string, string>, effect: Effect.Effect<A, E, Audit>) =>
  Effect.gen(function*() {
    const config = yield* testSettings(env)
    return yield* effect.pipe(Effect.provide(Audit.layer.pipe(
      Layer.provideMerge(Database.layer),
      Layer.provide(Layer.succeed(AppConfig, config))
    )))
  })

describe.each(databaseKinds)("operator CLI tickets merge on %s", (kind) => {
  it.live("merges a ticket into another by number, says it cannot be undone, and refuses what the API refuses", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const other = yield* createProject(env)
      const [kept, duplicate, third, foreign] = yield* withTickets(env, Effect.gen(function*() {
        const tickets = yield* Tickets
        return [
          yield* tickets.create(projectId, { subject: "Cannot log in", body: "The login page rejects my password." }),
          yield* tickets.create(projectId, { subject: "Login broken", body: "Same here.", sender_email: "kim@example.com" }),
          yield* tickets.create(projectId, { subject: "Dark mode", body: "Please." }),
          yield* tickets.create(other, { subject: "Elsewhere", body: "Not this project's." })
        ]
      }))

      const out = succeeded(yield* cli(env, "tickets", "merge", projectId, "#2", "1"))
      expect(out).toBe(
        `ticket #2 merged into #1 (${kept!.ticket_id}): its messages, files, tags and links are there now\n` +
          "a merge cannot be undone: to split the conversation again, file a new ticket\n"
      )
      const read = JSON.parse(succeeded(yield* cli(env, "tickets", "show", projectId, "1", "--json")))
      expect(read.messages.map((m: any) => [m.author_type, m.body])).toEqual([
        ["contact", "Login broken\n\nSame here."],
        ["system", "Ticket #2 “Login broken” was merged into this ticket."]
      ])
      const source = JSON.parse(succeeded(yield* cli(env, "tickets", "show", projectId, duplicate!.ticket_id, "--json")))
      expect(source).toMatchObject({ status: "closed", merged_into_id: kept!.ticket_id, messages: [] })

      failedWith(
        yield* cli(env, "tickets", "merge", projectId, "2", "3"),
        `ticket #2 was already merged into ticket ${kept!.ticket_id}; a merge cannot be undone`
      )
      failedWith(
        yield* cli(env, "tickets", "merge", projectId, "3", "3"),
        "<into> must name another ticket: a ticket cannot be merged into itself"
      )
      failedWith(yield* cli(env, "tickets", "merge", projectId, "3", foreign!.ticket_id), "<into> names no ticket of this project")
      failedWith(yield* cli(env, "tickets", "merge", projectId, "3", "9"), `no ticket 9 in project ${projectId}`)

      const json = JSON.parse(succeeded(yield* cli(env, "tickets", "merge", projectId, third!.ticket_id, "1", "--json")))
      expect(json.ticket_id).toBe(kept!.ticket_id)
      expect(json.messages.at(-1).body).toBe("Ticket #3 “Dark mode” was merged into this ticket.")

      // the two merges are the CLI's actions in the audit log, as the operator API would list them; the refusals are not
      const logged = yield* withAudit(env, Effect.flatMap(Effect.service(Audit), (audit) =>
        audit.list({ project_id: projectId, action: "merge.merge" })))
      expect(logged.entries.map((entry) => [entry.actor, entry.target, entry.status, entry.source_ip])).toEqual([
        ["cli", { id: third!.ticket_id }, null, "local"],
        ["cli", { id: duplicate!.ticket_id }, null, "local"]
      ])
      expect(logged.entries[0]!.user_agent).toMatch(/^support-ticketing-cli\//)
    }), 600_000)
})
