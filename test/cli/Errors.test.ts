import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { freePort } from "../support/Process.ts"
import { type CliRun, cli, createProject } from "./CliProcess.ts"

const unknownId = "0b7e1e0c-6a55-4c3e-9d4e-2f1c6a1d9a00"

/** What every user error must look like: exactly one line on stderr, nothing on stdout, exit status 1. */
const expectOneLineError = (run: CliRun, line: RegExp) => {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: "" })
  expect(run.stderr.endsWith("\n")).toBe(true)
  expect(run.stderr.slice(0, -1)).not.toContain("\n")
  expect(run.stderr.slice(0, -1)).toMatch(line)
}

describe.each(databaseKinds)("operator CLI user errors on %s", (kind) => {
  it.live("keys create for a project that does not exist", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const run = yield* cli(env, "keys", "create", "--project", unknownId)
      expectOneLineError(run, new RegExp(`^error: no project ${unknownId} \\(\`npm run cli -- projects list\` shows the projects\\)$`))
    }), 120_000)

  it.live("a --project that is not a project id", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const run = yield* cli(env, "keys", "create", "--project", "not-a-uuid")
      expectOneLineError(run, /^error: .*--project.*"not-a-uuid".*a project id/)
    }), 120_000)

  it.live("keys revoke of a key that does not exist", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const run = yield* cli(env, "keys", "revoke", "--project", projectId, unknownId)
      expectOneLineError(run, new RegExp(`^error: no API key ${unknownId} in project ${projectId}\\b`))
    }), 120_000)

  it.live("articles import of a folder that does not exist", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const run = yield* cli(env, "articles", "import", "--project", projectId, "/no/such/folder")
      expectOneLineError(run, /^error: folder \/no\/such\/folder does not exist$/)
    }), 120_000)

  if (kind === "postgres") {
    it.live("admin-token with no ADMIN_TOKEN says so in one line and exits 1", () =>
      Effect.gen(function*() {
        const env = yield* freshDatabase(kind)
        const run = yield* cli(env, "admin-token")
        expectOneLineError(run, /^error: no admin token: set ADMIN_TOKEN\b/)
      }), 120_000)
  } else {
    it.live("admin-token prints the token generated for the embedded database, and the same one again", () =>
      Effect.gen(function*() {
        const env = yield* freshDatabase(kind)
        const first = yield* cli(env, "admin-token")
        expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: "" })
        expect(first.stdout).toMatch(/^\S+\n$/)
        expect((yield* cli(env, "admin-token")).stdout).toBe(first.stdout)
      }), 120_000)
  }
})

describe("operator CLI without a database", () => {
  /** A PostgreSQL address where nothing listens. */
  const unreachable = Effect.promise(freePort).pipe(
    Effect.map((port) => ({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/nowhere` }))
  )

  it.live("--help needs no database", () =>
    Effect.gen(function*() {
      const run = yield* cli(yield* unreachable, "articles", "import", "--help")
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" })
      expect(run.stdout).toContain("npm run cli -- articles import")
      expect(run.stdout).toContain("--publish publishes every file and --no-publish none")
    }), 60_000)

  it.live("a mistyped command line gets its mistake in one line, not a page of help", () =>
    Effect.gen(function*() {
      const run = yield* cli(yield* unreachable, "keys", "create")
      expectOneLineError(run, /^error: Missing required flag: --project — see `npm run cli -- keys create --help`$/)
    }), 60_000)

  it.live("a database that cannot be reached", () =>
    Effect.gen(function*() {
      const run = yield* cli(yield* unreachable, "projects", "list")
      expectOneLineError(run, /^error: the database does not answer \(connect ECONNREFUSED 127\.0\.0\.1:\d+\): check DATABASE_URL and that PostgreSQL runs$/)
    }), 60_000)

  it.live("a setting that does not parse", () =>
    Effect.gen(function*() {
      const run = yield* cli({ ...(yield* unreachable), WEBHOOK_RETRY_SCHEDULE: "soon" }, "projects", "list")
      expectOneLineError(run, /^error: WEBHOOK_RETRY_SCHEDULE must be durations such as 1m,5m,30m$/)
    }), 60_000)
})
