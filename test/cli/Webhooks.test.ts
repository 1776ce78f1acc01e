/**
 * `webhooks list`, `enable`, `replay` and `replays` on the database itself, both databases: what
 * the operator API answers, as lines a person reads, the mistakes as one line each, and every
 * change the CLI's in the audit log. What a replay sends, and in which order, is shown against a
 * receiver in test/Webhooks/Health.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Audit } from "../../src/Audit/Audit.ts"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { Webhooks } from "../../src/Webhooks/Webhooks.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { testSettings } from "../support/Settings.ts"
import { cli, createProject, failedWith, succeeded } from "./CliProcess.ts"

/** Runs `effect` with the webhooks and the audit log over the database of `env`, closed before the next CLI run. */
const withServices = <A, E>(env: Record<string, string>, effect: Effect.Effect<A, E, Webhooks | Audit>) =>
  Effect.gen(function*() {
    const config = yield* testSettings(env)
    return yield* effect.pipe(Effect.provide(Layer.mergeAll(Webhooks.layer, Audit.layer).pipe(
      Layer.provideMerge(Database.layer),
      Layer.provide(Layer.succeed(AppConfig, config))
    )))
  })

describe.each(databaseKinds)("operator CLI webhooks on %s", (kind) => {
  it.live("lists endpoints, enables one, replays a range and lists the replays", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const hook = yield* withServices(env, Effect.flatMap(Effect.service(Webhooks), (webhooks) =>
        webhooks.register(projectId, { url: "https://hooks.example.com/support", retry_schedule: "extended" })))

      const listed = succeeded(yield* cli(env, "webhooks", "list", projectId))
      expect(listed).toMatch(new RegExp(`^ID\\s+STATUS\\s+SCHEDULE\\s+URL\\s+FAILING SINCE\\n${hook.webhook_id}\\s+enabled\\s+extended\\s+https://hooks\\.example\\.com/support\\s+-\\n$`))
      expect(succeeded(yield* cli(env, "webhooks", "enable", projectId, hook.webhook_id)))
        .toBe(`webhook ${hook.webhook_id} is enabled: https://hooks.example.com/support\n`)

      const replayed = succeeded(yield* cli(env, "webhooks", "replay", projectId, hook.webhook_id, "--since", "2026-11-01T00:00:00Z", "--all"))
      expect(replayed).toMatch(/^replay \S+: done, 0 of 0 sent \(0 delivered, 0 failed\), every delivery from 2026-11-01T00:00:00\.000Z until \S+Z\n$/)
      const replays = succeeded(yield* cli(env, "webhooks", "replays", projectId, hook.webhook_id))
      expect(replays).toBe(replayed)

      failedWith(
        yield* cli(env, "webhooks", "replay", projectId, hook.webhook_id, "--since", "yesterday"),
        "--since must be an ISO 8601 timestamp such as 2026-11-28T09:00:00Z"
      )
      failedWith(
        yield* cli(env, "webhooks", "replay", projectId, hook.webhook_id, "--since", "2026-11-02T00:00:00Z", "--until", "2026-11-01T00:00:00Z"),
        "--until must be later than since"
      )
      failedWith(yield* cli(env, "webhooks", "enable", projectId, "nope"), /^error: no webhook nope \(`npm run cli -- webhooks list <project>` shows them\)$/)
      failedWith(yield* cli(env, "webhooks", "enable", projectId, crypto.randomUUID()), "webhook not found")

      const logged = yield* withServices(env, Effect.flatMap(Effect.service(Audit), (audit) => audit.list({ project_id: projectId })))
      expect(logged.entries.map((entry) => [entry.actor, entry.action, entry.target])).toEqual([
        ["cli", "webhooks.replay", { webhook_id: hook.webhook_id }],
        ["cli", "webhooks.enable", { webhook_id: hook.webhook_id }]
      ])
    }), 600_000)
})
