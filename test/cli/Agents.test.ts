import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Audit } from "../../src/Audit/Audit.ts"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { ProjectId } from "../../src/Domain/Ids.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { testSettings } from "../support/Settings.ts"
import { cli, failedWith, succeeded } from "./CliProcess.ts"

/** Files a ticket in-process, as the widget or the API would, on the database of `env`, closed again after. */
const fileTicket = (env: Record<string, string>, projectId: string) =>
  Effect.gen(function*() {
    const config = yield* testSettings(env)
    return yield* Effect.flatMap(
      Effect.service(Tickets),
      (tickets) => tickets.create(ProjectId.make(projectId), { subject: "Cannot log in", body: "It says my password is wrong." })
    ).pipe(Effect.provide(Tickets.layer.pipe(Layer.provide(Database.layer), Layer.provide(Layer.succeed(AppConfig, config)))))
  })

/** The project's audit log, read in-process over the database of `env`. */
const withAudit = (env: Record<string, string>, projectId: string) =>
  Effect.gen(function*() {
    const config = yield* testSettings(env)
    return yield* Effect.flatMap(Effect.service(Audit), (audit) => audit.list({ project_id: projectId })).pipe(
      Effect.provide(Audit.layer.pipe(Layer.provide(Database.layer), Layer.provide(Layer.succeed(AppConfig, config))))
    )
  })

describe.each(databaseKinds)("operator CLI agents commands on %s", (kind) => {
  it.live("creates and lists agents, who then answer and take tickets of the demo project", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = /project id: (\S+)/.exec(succeeded(yield* cli(env, "demo")))![1]!
      yield* fileTicket(env, projectId)

      expect(succeeded(yield* cli(env, "agents", "list", projectId))).toBe("no agents\n")
      const created = succeeded(yield* cli(env, "agents", "create", projectId, "--email", "Alex@Acme.test", "--name", "Alex"))
      expect(created).toMatch(/^agent id: \S+\nemail: +alex@acme\.test\nname: +Alex\n$/)
      const table = succeeded(yield* cli(env, "agents", "list", projectId)).trimEnd().split("\n")
      expect(table[0]).toMatch(/^EMAIL\s+CREATED\s+NAME$/)
      expect(table.slice(1)).toEqual([expect.stringMatching(/^alex@acme\.test\s+\S+ \S+\s+Alex$/)])
      const listed = JSON.parse(succeeded(yield* cli(env, "agents", "list", projectId, "--json")))
      expect(listed).toEqual({ agents: [expect.objectContaining({ email: "alex@acme.test", name: "Alex" })] })

      // the README's examples, on the demo project
      succeeded(yield* cli(env, "tickets", "reply", projectId, "1", "Fixed, please try again", "--author-email", "alex@acme.test"))
      expect(succeeded(yield* cli(env, "tickets", "assign", projectId, "1", "alex@acme.test"))).toContain(
        "assignee: Alex <alex@acme.test>"
      )
      const read = JSON.parse(succeeded(yield* cli(env, "tickets", "show", projectId, "1", "--json")))
      expect(read.messages.map((m: any) => [m.author_type, m.body])).toEqual([["agent", "Fixed, please try again"]])

      // the reply was Alex's, done through the CLI; the assignment named no one acting
      const logged = yield* withAudit(env, projectId)
      expect(logged.entries.map((entry) => [entry.action, entry.actor, entry.agent_email, entry.user_agent?.split("/")[0]]))
        .toEqual([
          ["admin.updateTicket", "cli", null, "support-ticketing-cli"],
          ["admin.addAgentMessage", "agent", "alex@acme.test", "support-ticketing-cli"],
          ["admin.createAgent", "cli", null, "support-ticketing-cli"],
          ["demo.seed", "cli", null, "support-ticketing-cli"]
        ])
    }), 600_000)

  it.live("names the flag, not the API's field, in its mistakes", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = /project id: (\S+)/.exec(succeeded(yield* cli(env, "demo")))![1]!
      yield* fileTicket(env, projectId)
      succeeded(yield* cli(env, "agents", "create", projectId, "--email", "alex@acme.test", "--name", "Alex"))

      failedWith(
        yield* cli(env, "tickets", "reply", projectId, "1", "Hello", "--author-email", "nobody@acme.test"),
        "--author-email must be the address of an agent of this project"
      )
      failedWith(
        yield* cli(env, "tickets", "reply", projectId, "1", "Hello", "--author-email", "not-an-address"),
        "--author-email must be a valid email address"
      )
      failedWith(
        yield* cli(env, "tickets", "list", projectId, "--contact-email", "nope"),
        "--contact-email must be a valid email address"
      )
      failedWith(
        yield* cli(env, "agents", "create", projectId, "--email", "nope", "--name", "Alex"),
        "--email must be a valid email address"
      )
      failedWith(yield* cli(env, "agents", "create", projectId, "--email", "sam@acme.test", "--name", " "), "--name is required")
      failedWith(
        yield* cli(env, "agents", "create", projectId, "--email", "alex@acme.test", "--name", "Alex again"),
        "an agent with email alex@acme.test exists"
      )
      const unknown = "0b7e1e0c-6a55-4c3e-9d4e-2f1c6a1d9a00"
      failedWith(
        yield* cli(env, "agents", "list", unknown),
        `no project ${unknown} (\`npm run cli -- projects list\` shows the projects)`
      )
      expect(JSON.parse(succeeded(yield* cli(env, "agents", "list", projectId, "--json"))).agents).toHaveLength(1)
    }), 600_000)
})

describe("operator CLI help", () => {
  it.live("names the CLI as it is typed, and says what every command is for", () =>
    Effect.gen(function*() {
      const top = succeeded(yield* cli({}, "--help"))
      expect(top).toContain("npm run cli -- <subcommand>")
      const commands = top.slice(top.indexOf("SUBCOMMANDS")).split("\n").slice(1).filter((line) => line.trim() !== "")
      expect(commands.map((line) => line.trim().split(/\s+/)[0])).toEqual([
        "projects", "keys", "identity", "mail", "agents", "articles", "tickets", "sla", "fields", "satisfaction", "contacts",
        "webhooks", "demo", "admin-token"
      ])
      for (const line of commands) expect(line.trim()).toMatch(/^\S+\s{2,}\S/)

      for (const args of [["--help"], ["agents", "create", "--help"], ["tickets", "reply", "--help"], ["keys", "create", "--help"]]) {
        const help = succeeded(yield* cli({}, ...args))
        expect(help).not.toMatch(/\bsupport /)
      }
      const mistake = yield* cli({}, "agents", "create")
      expect(mistake.stderr).toBe("error: Missing required argument: project-id — see `npm run cli -- agents create --help`\n")
    }), 60_000)
})
