/**
 * What `npm start` says and does before it answers: a port in use stops it before the demo
 * project's one-time keys are made (so they are never shown and lost), and its first lines say
 * what it runs on (database, rate-limit store, triage, error tracker) and where it listens,
 * without a password or a key.
 */
import { Effect } from "effect"
import { execFile, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { closeSync, openSync, readFileSync } from "node:fs"
import { cp, mkdtemp, rm } from "node:fs/promises"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterEach, describe, expect, it } from "vitest"
import { serviceVersion } from "../src/Health/Version.ts"
import { environmentLines } from "../src/Startup.ts"
import { databaseKinds, type DatabaseKind, pgliteTemplate } from "./support/Databases.ts"
import { postgresMissing } from "./support/Requires.ts"
import { freePort, startServiceProcess } from "./support/Process.ts"
import { testSettings } from "./support/Settings.ts"

const root = fileURLToPath(new URL("../", import.meta.url))

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch((error) => console.error("cleanup failed:", error))
})

/** Settings that pin every edge to a known value, whatever the run's environment holds. */
const quiet = {
  REDIS_URL: "",
  TRIAGE_PROVIDER: "local",
  ERROR_TRACKER: "none",
  SMTP_URL: "",
  ADMIN_TOKEN: ""
}

/** Environment entries for a fresh database of `kind`: a copy of the migrated template, or a new database on the server. */
const freshDatabase = async (kind: DatabaseKind): Promise<Record<string, string>> => {
  if (kind === "pglite") {
    const dir = await mkdtemp(join(tmpdir(), "startup-test-"))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    await cp(pgliteTemplate(), dir, { recursive: true })
    return { DATA_DIR: dir, DATABASE_URL: "" }
  }
  if (postgresMissing !== undefined) throw new Error(`the PostgreSQL half cannot run: ${postgresMissing}`)
  const name = `test_${randomUUID().replaceAll("-", "")}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await client.connect()
    await client.query(statement).finally(() => client.end())
  }
  await admin(`CREATE DATABASE ${name}`)
  cleanups.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  const url = new URL(process.env.DATABASE_URL!)
  url.pathname = `/${name}`
  return { DATABASE_URL: url.toString() }
}

/** A port of 127.0.0.1 that something else listens on, until `release`. */
const portInUse = async () => {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const release = () => new Promise<void>((resolve) => server.close(() => resolve()))
  cleanups.push(async () => server.listening && release())
  return { port: (server.address() as { port: number }).port, release }
}

/** The service from its sources, run to its end: its exit code and everything it printed. */
const runService = (env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ["src/main.ts"],
      { cwd: root, env: { ...process.env, ...quiet, HOST: "127.0.0.1", ...env }, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : child.exitCode ?? 1, stdout, stderr })
    )
  })

/** The lines printed besides `message`, which is to be the only one: no stack trace, no log. */
const linesOtherThan = (output: string, message: string) =>
  output.split("\n").filter((line) => line.trim() !== "" && line !== message && !line.includes("dist/widget.js is missing"))

describe("start-up with a setting or a database it cannot use", () => {
  // each refused in one line naming what to change, exit 1, and no stack or log besides
  const cases: ReadonlyArray<readonly [string, Record<string, string>, string]> = [
    ["a port that is not a number", { DATA_DIR: "memory://", PORT: "abc" }, "PORT is not valid: expected a string representing a finite number"],
    ["a duration that does not read", { DATA_DIR: "memory://", REQUEST_TIMEOUT: "soon" }, "REQUEST_TIMEOUT must be one duration such as 10s"],
    ["a choice that is not one", { DATA_DIR: "memory://", TRIAGE_PROVIDER: "magic" }, "TRIAGE_PROVIDER is not valid: expected \"local\" | \"openai\""],
    [
      "a PostgreSQL server that does not answer",
      { DATABASE_URL: "postgres://postgres@127.0.0.1:9/support" },
      "the database does not answer (connect ECONNREFUSED 127.0.0.1:9): check DATABASE_URL and that PostgreSQL runs"
    ]
  ]
  for (const [name, env, message] of cases) {
    it(`refuses ${name} in one line`, async () => {
      const refused = await runService(env)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain(message)
      expect(linesOtherThan(refused.stdout + refused.stderr, message)).toEqual([])
    }, 60_000)
  }
})

describe.each(databaseKinds)("start-up on %s", (kind) => {
  it("with its port in use: stops before the demo project is made, says so in one line, and the next start shows the keys", async () => {
    const database = await freshDatabase(kind)
    const taken = await portInUse()
    const refused = await runService({ ...database, PORT: String(taken.port) })
    const message = `port ${taken.port} on 127.0.0.1 is in use: stop what listens there or set PORT`
    expect(refused.stdout).not.toContain("full key")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(message)
    expect(linesOtherThan(refused.stdout + refused.stderr, message)).toEqual([])
    await taken.release()

    const next = await startServiceProcess(process.execPath, [`${root}src/main.ts`], { ...quiet, ...database })
    cleanups.push(() => next.stop())
    if (kind === "pglite") {
      // the refused start made no demo project: this one does, and shows its keys
      expect(next.output()).toContain("A demo project was created on this new embedded database")
      const key = /full key: +(tf_\S+)/.exec(next.output())![1]!
      const search = await fetch(`${next.baseUrl}/v1/articles/search?q=reset+password`, { headers: { authorization: `Bearer ${key}` } })
      expect(search.status).toBe(200)
    } else {
      expect(next.output()).not.toContain("demo project")
    }
  }, 180_000)

  it("says what it runs on and where it listens, without a secret", async () => {
    const database = await freshDatabase(kind)
    const secrets = ["db-password-xyz", "openai-key-xyz", "sentry-token-xyz"]
    const env: Record<string, string> = kind === "pglite"
      // a relative DATA_DIR is shown as the directory it resolves to
      ? { ...database, DATA_DIR: relative(root, database.DATA_DIR!) }
      : {
        DATABASE_URL: Object.assign(new URL(database.DATABASE_URL!), { password: secrets[0] }).toString(),
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
        TRIAGE_PROVIDER: "openai",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        OPENAI_API_KEY: secrets[1]!,
        TRIAGE_MODEL: "tiny-model",
        ERROR_TRACKER: "sentry",
        SENTRY_BASE_URL: "http://127.0.0.1:9",
        SENTRY_ORG: "acme",
        SENTRY_AUTH_TOKEN: secrets[2]!
      }
    const service = await startServiceProcess(process.execPath, [`${root}src/main.ts`], { ...quiet, ...env })
    cleanups.push(() => service.stop())
    const output = service.output()
    expect(output).toContain(`is listening on ${service.baseUrl}`)
    if (kind === "pglite") {
      expect(output).toContain(`  database:      embedded PGlite in ${database.DATA_DIR}\n`)
      expect(output).toContain("  rate limits:   counted in this process's memory")
      expect(output).toContain("  triage:        the built-in local classifier (no network)")
      expect(output).not.toContain("error tracker:")
      // and the demo text is still there
      expect(output).toContain("A demo project was created")
    } else {
      const url = new URL(database.DATABASE_URL!)
      expect(output).toContain(`  database:      PostgreSQL at ${url.hostname}:${url.port || 5432}, database ${url.pathname.slice(1)}\n`)
      if (process.env.REDIS_URL) expect(output).toContain(`  rate limits:   Redis at ${new URL(process.env.REDIS_URL).host}`)
      expect(output).toContain("  triage:        OpenAI-compatible API at 127.0.0.1:9, model tiny-model")
      expect(output).toContain("  error tracker: Sentry at 127.0.0.1:9, organization acme")
      for (const secret of secrets) expect(output).not.toContain(secret)
    }
    // and a line when it stops
    await service.stop()
    expect(service.output()).toContain("shutting down: finishing what is in flight")
  }, 120_000)
})

describe("the first start on an empty embedded database", () => {
  it("answers no request before the demo project is made and the start-up lines are out, though its port opens before", async () => {
    const database = await freshDatabase("pglite")
    const port = await freePort()
    // a file, not a pipe: the service's writes to it are done before its next step, so what the
    // file holds when an answer arrives is what the service had printed before answering
    const outputFile = `${database.DATA_DIR}.out`
    const output = openSync(outputFile, "w")
    cleanups.push(() => rm(outputFile, { force: true }))
    const child = spawn(process.execPath, ["src/main.ts"], {
      cwd: root,
      env: { ...process.env, ...quiet, ...database, HOST: "127.0.0.1", PORT: String(port) },
      stdio: ["ignore", output, output]
    })
    closeSync(output)
    const exited = new Promise((resolve) => child.once("exit", resolve))
    cleanups.push(async () => {
      child.kill("SIGTERM")
      await exited
    })
    // asks as often as it can from the moment the process starts
    const deadline = Date.now() + 90_000
    let printedBeforeAnswer: string | undefined
    while (printedBeforeAnswer === undefined && Date.now() < deadline && child.exitCode === null) {
      const health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined)
      if (health === undefined) await new Promise((resolve) => setTimeout(resolve, 10))
      else printedBeforeAnswer = readFileSync(outputFile, "utf8")
    }
    expect(printedBeforeAnswer).toContain("A demo project was created on this new embedded database")
    expect(printedBeforeAnswer).toContain("API reference:")
  }, 120_000)
})

describe("the start-up lines", () => {
  const linesOf = (env: Record<string, string>) =>
    Effect.runPromise(Effect.map(testSettings(env), (config) => environmentLines(config, "http://localhost:3000")))

  it("name each setting's choice, and none of the passwords and keys", async () => {
    const lines = await linesOf({
      DATABASE_URL: "postgres://app:db-secret@db.internal:6432/tickets?sslmode=require",
      REDIS_URL: "redis://default:redis-secret@cache.internal",
      TRIAGE_PROVIDER: "openai",
      OPENAI_BASE_URL: "https://llm.example.com/v1",
      OPENAI_API_KEY: "sk-secret",
      TRIAGE_MODEL: "small-1",
      ERROR_TRACKER: "sentry",
      SENTRY_ORG: "acme",
      SENTRY_AUTH_TOKEN: "sentry-secret",
      SMTP_URL: "smtp://mailer:smtp-secret@mail.example.com:587",
      HOST: "0.0.0.0"
    })
    expect(lines).toEqual([
      `support-ticketing ${serviceVersion} is listening on http://localhost:3000 (every interface, HOST=0.0.0.0)`,
      "  database:      PostgreSQL at db.internal:6432, database tickets",
      "  rate limits:   Redis at cache.internal:6379",
      "  triage:        OpenAI-compatible API at llm.example.com, model small-1",
      "  error tracker: Sentry at sentry.io, organization acme",
      "  mail:          SMTP at mail.example.com:587",
      ""
    ])
    expect(lines.join("\n")).not.toMatch(/secret/)
  })

  it("name the server the connections go to, a Unix socket or a host parameter included", async () => {
    const database = async (url: string) => (await linesOf({ DATABASE_URL: url, HOST: "127.0.0.1" }))[1]
    expect(await database("postgres:///tickets?host=/var/run/postgresql")).toBe(
      "  database:      PostgreSQL at /var/run/postgresql/.s.PGSQL.5432, database tickets"
    )
    expect(await database("postgres://app@ignored/tickets?host=db2&port=7000")).toBe(
      "  database:      PostgreSQL at db2:7000, database tickets"
    )
    expect(await database("postgres://app@[::1]:5433/tickets")).toBe(
      "  database:      PostgreSQL at [::1]:5433, database tickets"
    )
  })

  it("say who keeps a server's tables vacuumed and analyzed: its autovacuum, or this service where that is off", async () => {
    const config = await Effect.runPromise(testSettings({ DATABASE_URL: "postgres://app@db.internal/tickets" }))
    const upkeep = (autovacuum: boolean) =>
      environmentLines(config, "http://localhost:3000", { kind: "server", autovacuum }).filter((line) => line.includes("upkeep"))
    expect(upkeep(true)).toEqual(["  table upkeep:  the server's autovacuum"])
    expect(upkeep(false)).toEqual(["  table upkeep:  this service, every 2s (the server's autovacuum is off)"])
    const embedded = environmentLines(config, "http://localhost:3000", { kind: "embedded", autovacuum: false })
    expect(embedded.filter((line) => line.includes("upkeep"))).toEqual([])
  })

  it("say when the embedded database lives only in memory", async () => {
    const lines = await linesOf({ DATA_DIR: "memory://", HOST: "127.0.0.1" })
    expect(lines.slice(0, 4)).toEqual([
      `support-ticketing ${serviceVersion} is listening on http://localhost:3000`,
      "  database:      embedded PGlite in memory (DATA_DIR=memory://): nothing is kept when the process ends",
      "  rate limits:   counted in this process's memory (set REDIS_URL to share them between instances)",
      "  triage:        the built-in local classifier (no network)"
    ])
  })
})
