import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { freshPgliteDir } from "../support/Databases.ts"
import { testSettings } from "../support/Settings.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const run = promisify(execFile)

/** The CLI under test works on the embedded database, whatever the run's DATABASE_URL. */
const withoutServerDatabase = () => {
  const { DATABASE_URL: _, ...env } = process.env
  return env
}

const cli = (dataDir: string, ...args: Array<string>) =>
  Effect.promise(() =>
    run(process.execPath, ["src/cli/main.ts", ...args], {
      cwd: root,
      env: { ...withoutServerDatabase(), DATA_DIR: dataDir }
    }).then((result) => result.stdout)
  )

describe("operator CLI", () => {
  it.live("creates projects and keys, imports a folder of Markdown articles, and revokes keys", () =>
    Effect.gen(function*() {
      const DATA_DIR = yield* freshPgliteDir
      const created = yield* cli(DATA_DIR, "projects", "create", "From the CLI")
      const projectId = /project id: (\S+)/.exec(created)![1]!
      const widget = yield* cli(DATA_DIR, "keys", "create", "--project", projectId, "--scope", "widget")
      expect(widget).toMatch(/scope: +widget/)
      const keyId = /key id: (\S+)/.exec(widget)![1]!
      const imported = yield* cli(DATA_DIR, "articles", "import", "--project", projectId, "--publish", "src/Demo/articles")
      expect(imported).toContain("created 24, updated 0, unchanged 0")
      yield* cli(DATA_DIR, "keys", "revoke", "--project", projectId, keyId)

      const config = yield* testSettings({ DATA_DIR })
      const counts = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [articles] = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM articles WHERE project_id = ${projectId} AND published`
        const keys = yield* sql<{ scope: string; revoked: boolean }>`
          SELECT scope, revoked_at IS NOT NULL AS revoked FROM api_keys WHERE project_id = ${projectId} ORDER BY scope`
        return { articles: articles!.n, keys }
      }).pipe(Effect.provide(Database.layer.pipe(Layer.provide(Layer.succeed(AppConfig, config)))))
      expect(counts).toEqual({
        articles: 24,
        keys: [{ scope: "full", revoked: false }, { scope: "widget", revoked: true }]
      })
    }), 300_000)
})
