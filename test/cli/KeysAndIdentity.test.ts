/**
 * The CLI's key limits and identity commands on the database itself: a limit given at creation
 * and changed later is the key's, and the identity secret is printed once, when it is made.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ProjectId } from "../../src/Domain/Ids.ts"
import { Projects } from "../../src/Projects/Projects.ts"
import { freshPgliteDir } from "../support/Databases.ts"
import { cli, onDatabase, succeeded } from "./CliProcess.ts"

describe("operator CLI: key limits and visitor identity", () => {
  it.live("issues a key with its own limit, changes it, and shows an identity secret only when it is made", () =>
    Effect.gen(function*() {
      const env = { DATA_DIR: yield* freshPgliteDir }
      const projectId = /project id: (\S+)/.exec(succeeded(yield* cli(env, "projects", "create", "Acme")))![1]!
      const created = succeeded(yield* cli(env, "keys", "create", "--project", projectId, "--rate-limit", "250"))
      expect(created).toMatch(/^key id: \S+\nscope:  full\nlimit:  250 requests a minute\nkey:    tf_\S+\n$/)
      const keyId = /key id: (\S+)/.exec(created)![1]!
      const plain = succeeded(yield* cli(env, "keys", "create", "--project", projectId))
      expect(plain).toContain("limit:  the service's (RATE_LIMIT_PER_MINUTE)\n")
      succeeded(yield* cli(env, "keys", "limit", "--project", projectId, keyId, "1000000"))
      const limitOf = onDatabase(env, Effect.gen(function*() {
        const list = yield* (yield* Projects).listKeys(ProjectId.make(projectId)).pipe(Effect.orDie)
        return list.api_keys.find((key) => key.key_id === keyId)!.rate_limit_per_minute
      }))
      expect(yield* limitOf).toBe(1_000_000)
      succeeded(yield* cli(env, "keys", "limit", "--project", projectId, keyId, "default"))
      expect(yield* limitOf).toBeNull()

      const made = succeeded(yield* cli(env, "identity", "secret", "--project", projectId))
      const secret = /^identity secret: (ids_[A-Za-z0-9_-]{43})\n/.exec(made)![1]!
      expect(made).toContain("shown only once")
      const shown = succeeded(yield* cli(env, "identity", "show", "--project", projectId))
      expect(shown).toMatch(/^identity secret:           set, created \S+Z\nrequire verified visitors: off\n$/)
      expect(shown).not.toContain(secret)
      const rotated = /^identity secret: (ids_\S+)\n/.exec(succeeded(yield* cli(env, "identity", "secret", "--project", projectId)))![1]!
      expect(rotated).not.toBe(secret)
      expect(succeeded(yield* cli(env, "identity", "require", "--project", projectId, "on"))).toMatch(/require verified visitors: on\n$/)
      succeeded(yield* cli(env, "identity", "remove", "--project", projectId))
      expect(succeeded(yield* cli(env, "identity", "show", "--project", projectId)))
        .toBe("identity secret:           none\nrequire verified visitors: off\n")
      const refused = yield* cli(env, "identity", "require", "--project", projectId, "on")
      expect(refused.code).toBe(1)
      expect(refused.stderr).toBe(
        `error: project ${projectId} has no identity secret: create one first with \`npm run cli -- identity secret --project ${projectId}\`\n`
      )
    }), 300_000)
})
