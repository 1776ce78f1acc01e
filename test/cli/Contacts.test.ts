/**
 * `contacts export` and `contacts erase` on the database itself, both databases: the JSON and the
 * zip hold the contact's ticket, the erasure says what it changed and cannot be undone, a second
 * one changes nothing, and each is the CLI's in the audit log.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { unzipSync, strFromU8 } from "fflate"
import { mkdtemp, readFile, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Audit } from "../../src/Audit/Audit.ts"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { testSettings } from "../support/Settings.ts"
import { cli, createProject, failedWith, succeeded } from "./CliProcess.ts"

/** Runs `effect` with the tickets and the audit log over the database of `env`, closed before the next CLI run. */
const withServices = <A, E>(env: Record<string, string>, effect: Effect.Effect<A, E, Tickets | Audit>) =>
  Effect.gen(function*() {
    const config = yield* testSettings(env)
    return yield* effect.pipe(Effect.provide(Layer.mergeAll(Tickets.layer, Audit.layer).pipe(
      Layer.provideMerge(Database.layer),
      Layer.provide(Layer.succeed(AppConfig, config))
    )))
  })

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "contacts-cli-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

describe.each(databaseKinds)("operator CLI contacts on %s", (kind) => {
  it.live("exports a contact as JSON and as a zip, erases them once, and logs both as the CLI's", () =>
    Effect.scoped(Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const ticket = yield* withServices(env, Effect.flatMap(Effect.service(Tickets), (tickets) =>
        tickets.create(projectId, { subject: "Invoice address", body: "Please change it to Baker Street.", sender_email: "kim@example.com" })))

      const exported = JSON.parse(succeeded(yield* cli(env, "contacts", "export", projectId, "kim@example.com")))
      expect(exported.contact.email).toBe("kim@example.com")
      expect(exported.tickets.map((t: any) => [t.ticket_id, t.subject])).toEqual([[ticket.ticket_id, "Invoice address"]])

      const zipPath = join(yield* tempDir, "kim.zip")
      expect(succeeded(yield* cli(env, "contacts", "export", projectId, "kim@example.com", "--zip", zipPath)))
        .toMatch(/^wrote .*kim\.zip \(\d+ bytes\): contact\.json and the contact's files\n$/)
      expect((yield* Effect.promise(() => stat(zipPath))).mode & 0o777).toBe(0o600)
      const files = unzipSync(new Uint8Array(yield* Effect.promise(() => readFile(zipPath))))
      expect(JSON.parse(strFromU8(files["contact.json"]!)).tickets[0].body).toBe("Please change it to Baker Street.")

      const erased = succeeded(yield* cli(env, "contacts", "erase", projectId, "kim@example.com"))
      expect(erased).toMatch(
        /^contact \S+ erased: 1 tickets, 0 messages and 0 files no longer hold their data\nan erasure cannot be undone\n$/
      )
      expect(succeeded(yield* cli(env, "contacts", "erase", projectId, "KIM@example.com"))).toMatch(/was erased already, at .*: nothing changed\n$/)
      failedWith(yield* cli(env, "contacts", "export", projectId, "kim@example.com"), "no contact with that email in this project")
      failedWith(yield* cli(env, "contacts", "erase", projectId, "kim@"), "<email> must be a valid email address")
      const shown = JSON.parse(succeeded(yield* cli(env, "tickets", "show", projectId, "1", "--json")))
      expect([shown.subject, shown.body, shown.sender_email]).toEqual(["[erased]", "[erased]", null])

      const logged = yield* withServices(env, Effect.flatMap(Effect.service(Audit), (audit) => audit.list({ project_id: projectId })))
      expect(logged.entries.map((entry) => [entry.actor, entry.action])).toEqual([
        ["cli", "privacy.eraseContact"],
        ["cli", "privacy.eraseContact"],
        ["cli", "privacy.exportContactZip"],
        ["cli", "privacy.exportContact"]
      ])
    })), 600_000)
})
