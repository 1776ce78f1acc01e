/**
 * The embedded database has one user, the service that `npm start` runs; the CLI on the same
 * DATA_DIR then does its commands through that service's operator API instead of refusing, and
 * prints exactly what it prints on the database itself.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, statSync } from "node:fs"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { lockFileName, serviceFileName } from "../../src/Database/DataDirLock.ts"
import { freshPgliteDir } from "../support/Databases.ts"
import { callService, freePort, type ServiceProcess, startServiceProcess } from "../support/Process.ts"
import { cli, failedWith, succeeded } from "./CliProcess.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const unknownId = "0b7e1e0c-6a55-4c3e-9d4e-2f1c6a1d9a00"

/** `npm start` on an embedded database, whatever the run's environment holds, listening on every interface. */
const serviceSettings = {
  DATABASE_URL: "",
  ADMIN_TOKEN: "",
  REDIS_URL: "",
  SMTP_URL: "",
  TRIAGE_PROVIDER: "local",
  ERROR_TRACKER: "none",
  HOST: "0.0.0.0",
  LOG_LEVEL: "warning"
}

/** The service on `dataDir`, stopped (SIGTERM) when the test's scope closes. */
const runningService = (dataDir: string, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(() => startServiceProcess(process.execPath, [`${root}src/main.ts`], { ...serviceSettings, DATA_DIR: dataDir, ...env })),
    (service) => Effect.promise(() => service.stop())
  )

/** What the first start printed once: the demo project, its full key, and the admin token it generated. */
const bannerOf = (service: ServiceProcess) => {
  const output = service.output()
  return {
    projectId: /project id:\s+(\S+)/.exec(output)![1]!,
    fullKey: /full key:\s+(tf_\S+)/.exec(output)![1]!,
    adminToken: /Admin token \([^)]*\): (\S+)/.exec(output)?.[1]
  }
}

/** The README's "filed with curl" step: ticket #1 of the demo project, from Jane. */
const fileTicket = (service: ServiceProcess, fullKey: string, subject = "Cannot log in") =>
  Effect.promise(() =>
    callService(service.baseUrl, fullKey, (api) =>
      api.tickets.create({
        payload: { subject, body: "The login page says my password is wrong.", sender_email: "jane@example.com" },
        headers: {}
      }))
  )

/** A shell line's words: blanks split them, and quotes keep a phrase one word, as sh does for these lines. */
const words = (line: string) =>
  [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!)

/** The README's CLI lines, as a person copies them: the arguments after `npm run cli --`, comments left out. */
const readmeCliLines = async () => {
  const readme = await readFile(join(root, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("## The operator CLI"))
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!
  // a line ending in a backslash goes on in the next, as sh reads it
  return block.replace(/\\\n\s*/g, "").split("\n")
    .map((line) => line.replace(/\s+#\s.*$/, "").trim())
    .filter((line) => line.startsWith("npm run cli -- "))
    .map((line) => line.slice("npm run cli -- ".length))
}

const serviceFileOf = (dataDir: string) => join(dataDir, serviceFileName)

describe("operator CLI while the service holds the embedded database", () => {
  it.live("runs the README's commands through the service, and the agent's reply reaches the contact", () =>
    Effect.gen(function*() {
      const dataDir = yield* freshPgliteDir
      const service = yield* runningService(dataDir)
      const { adminToken, fullKey, projectId } = bannerOf(service)
      const ticket = yield* fileTicket(service, fullKey)
      expect(ticket.ticket_number).toBe(1)
      // the README's block merges #2 into #1, as it would a contact writing twice about one problem
      const second = yield* fileTicket(service, fullKey, "Still cannot log in")
      expect(second.ticket_number).toBe(2)

      // where the operator API answers, for this machine only: loopback, though HOST is 0.0.0.0
      const announced = JSON.parse(yield* Effect.promise(() => readFile(serviceFileOf(dataDir), "utf8")))
      expect(announced).toMatchObject({ pid: service.pid, url: service.baseUrl })
      expect(service.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(statSync(serviceFileOf(dataDir)).mode & 0o777).toBe(0o600)

      const lines = yield* Effect.promise(readmeCliLines)
      const commands = lines.map((line) => words(line).slice(0, 2).join(" "))
      expect(commands).toEqual(expect.arrayContaining([
        "agents create", "agents list", "tickets list", "tickets show", "tickets reply", "tickets assign",
        "tickets status", "projects list", "projects create", "keys create", "keys limit", "keys revoke", "admin-token",
        "identity secret", "identity require", "identity show", "identity remove", "tickets merge", "fields create",
        "tickets set-field", "sla hours", "sla policies", "satisfaction show", "satisfaction settings"
      ]))
      const vars: Record<string, string> = { PID: projectId }
      for (const line of lines) {
        const args = words(line.replace(/\$\{?([A-Z_]+)\}?/g, (_, name: string) => vars[name] ?? `$${name}`))
        const run = yield* cli({ DATA_DIR: dataDir }, ...args)
        if (args[0] === "demo") {
          failedWith(run, `demo needs the database itself: stop the service (pid ${service.pid}) first`)
        } else if (args[0] === "articles" && args[1] === "import") {
          failedWith(run, new RegExp(`^error: articles import needs the database itself: stop the service \\(pid ${service.pid}\\) first`))
        } else {
          expect({ line, code: run.code, stderr: run.stderr }).toEqual({ line, code: 0, stderr: "" })
        }
        const keyId = /key id: (\S+)/.exec(run.stdout)?.[1]
        if (keyId !== undefined) vars.KEY_ID = keyId
        if (args[0] === "admin-token") expect(run.stdout).toBe(`${adminToken}\n`)
        if (args[0] === "identity" && args[1] === "secret") {
          expect(run.stdout).toMatch(/^identity secret: ids_[A-Za-z0-9_-]{43}\n/)
          expect(run.stdout).toContain("shown only once")
        }
        if (args[0] === "identity" && args[1] === "show") expect(run.stdout).toMatch(/require verified visitors: on\n$/)
      }

      // the service did it all: it still holds the database, and sees every change at once
      expect(JSON.parse(yield* Effect.promise(() => readFile(join(dataDir, lockFileName), "utf8"))).pid).toBe(service.pid)
      const read = yield* Effect.promise(() =>
        callService(service.baseUrl, fullKey, (api) => api.tickets.get({ params: { id: ticket.ticket_id }, query: {}, headers: {} }))
      )
      expect(read.status).toBe("resolved")
      expect(read.messages.map((message) => [message.author_type, message.body])).toEqual([
        // #2's opening message, its subject heading it, at its own time
        ["contact", "Still cannot log in\n\nThe login page says my password is wrong."],
        ["agent", "Fixed, please try again"],
        ["system", "Ticket #2 “Still cannot log in” was merged into this ticket."]
      ])
      expect(read.custom_fields).toEqual({ plan: "pro" })
      const keys = yield* Effect.promise(() =>
        callService(service.baseUrl, adminToken, (api) => api.admin.listKeys({ params: { pid: projectId } }))
      )
      const revoked = keys.api_keys.find((key) => key.key_id === vars.KEY_ID)
      expect(revoked).toMatchObject({ name: "website", scope: "widget", rate_limit_per_minute: 300, revoked_at: expect.any(String) })
      // what the README's commands changed is the CLI's in the service's audit log, once each
      const audited = yield* Effect.promise(() =>
        callService(service.baseUrl, adminToken, (api) => api.audit.list({ query: { project_id: projectId, action: "admin.revokeKey" } }))
      )
      expect(audited.entries.map((entry) => [entry.actor, entry.target])).toEqual([["cli", { key_id: vars.KEY_ID }]])
      const identity = yield* Effect.promise(() =>
        callService(service.baseUrl, adminToken, (api) => api.admin.getIdentity({ params: { pid: projectId } }))
      )
      expect(identity).toEqual({ has_identity_secret: false, identity_secret_created_at: null, require_verified_visitors: false })
      const projects = yield* Effect.promise(() => callService(service.baseUrl, adminToken, (api) => api.admin.listProjects()))
      expect(projects.projects.map((project) => project.name)).toEqual(expect.arrayContaining(["Demo project", "Acme"]))
      const shown = succeeded(yield* cli({ DATA_DIR: dataDir }, "tickets", "show", projectId, "1"))
      expect(shown).toMatch(/--- agent \(internal\) · \S+\nCustomer is on the old plan/)
    }), 600_000)

  it.live("prints the same answers and the same mistakes as on the database itself, once the service has stopped", () =>
    Effect.gen(function*() {
      const dataDir = yield* freshPgliteDir
      const service = yield* runningService(dataDir)
      const { adminToken, fullKey, projectId } = bannerOf(service)
      yield* fileTicket(service, fullKey)
      const keys = yield* Effect.promise(() =>
        callService(service.baseUrl, adminToken, (api) => api.admin.listKeys({ params: { pid: projectId } }))
      )
      const keyId = keys.api_keys.at(-1)!.key_id
      succeeded(yield* cli({ DATA_DIR: dataDir }, "agents", "create", projectId, "--email", "alex@acme.test", "--name", "Alex"))
      succeeded(yield* cli({ DATA_DIR: dataDir }, "tickets", "reply", projectId, "1", "On it", "--author-email", "alex@acme.test"))

      const probes: ReadonlyArray<ReadonlyArray<string>> = [
        ["tickets", "show", projectId, "1"],
        ["tickets", "show", projectId, "#1", "--json"],
        ["tickets", "list", projectId],
        ["tickets", "list", projectId, "--json"],
        ["agents", "list", projectId],
        ["agents", "list", projectId, "--json"],
        ["projects", "list"],
        // refused by the service's own checks (the operator API's error envelope, remotely)
        ["tickets", "reply", projectId, "1", "Hello", "--author-email", "nobody@acme.test"],
        ["tickets", "assign", projectId, "1", "nobody@acme.test"],
        ["agents", "create", projectId, "--email", "alex@acme.test", "--name", "Alex again"],
        ["tickets", "show", projectId, unknownId],
        ["keys", "revoke", "--project", projectId, unknownId],
        // refused by the input's schema, or by the CLI's own lookups
        ["tickets", "status", projectId, "1", "done"],
        ["tickets", "show", projectId, "7"],
        ["agents", "list", unknownId],
        // a key's own limit, and the project's visitor identity (never the secret, which differs each time it is made)
        ["keys", "limit", "--project", projectId, keyId, "120"],
        ["keys", "limit", "--project", projectId, keyId, "default"],
        ["keys", "limit", "--project", projectId, unknownId, "120"],
        ["keys", "limit", "--project", projectId, keyId, "0"],
        ["keys", "limit", "--project", projectId, keyId, "lots"],
        ["identity", "show", "--project", projectId],
        ["identity", "require", "--project", projectId, "on"],
        ["identity", "require", "--project", projectId, "off"],
        ["identity", "remove", "--project", projectId],
        ["identity", "show", "--project", unknownId]
      ]
      const runAll = Effect.forEach(probes, (args) => cli({ DATA_DIR: dataDir }, ...args))
      const remote = yield* runAll
      yield* Effect.promise(() => service.stop())
      expect(existsSync(serviceFileOf(dataDir))).toBe(false)
      const direct = yield* runAll

      expect(remote).toEqual(direct)
      failedWith(remote[7]!, "--author-email must be the address of an agent of this project")
      failedWith(remote[8]!, "<agent-email> must be the address of an agent of this project")
      failedWith(remote[9]!, "an agent with email alex@acme.test exists")
      failedWith(remote[10]!, "ticket not found")
      failedWith(remote[11]!, new RegExp(`^error: no API key ${unknownId} in project ${projectId}\\b`))
      failedWith(remote[12]!, "status must be one of open, in_progress, waiting, resolved, closed")
      failedWith(remote[13]!, `no ticket 7 in project ${projectId}`)
      expect(succeeded(remote[15]!)).toBe(`key ${keyId}: 120 requests a minute, from its next request on\n`)
      expect(succeeded(remote[16]!)).toBe(`key ${keyId}: the service's (RATE_LIMIT_PER_MINUTE), from its next request on\n`)
      failedWith(remote[17]!, new RegExp(`^error: no API key ${unknownId} in project ${projectId}\\b`))
      failedWith(remote[18]!, "<limit> must be between 1 and 1,000,000")
      failedWith(remote[19]!, "<limit> must be a number of requests a minute, or default")
      expect(succeeded(remote[20]!)).toBe("identity secret:           none\nrequire verified visitors: off\n")
      failedWith(remote[21]!, new RegExp(`^error: project ${projectId} has no identity secret: create one first with \``))
      expect(succeeded(remote[22]!)).toBe("identity secret:           none\nrequire verified visitors: off\n")
      expect(succeeded(remote[23]!)).toMatch(/^identity secret removed: /)
      failedWith(remote[24]!, new RegExp(`^error: no project ${unknownId}\\b`))
      expect(JSON.parse(succeeded(remote[1]!)).messages.map((m: any) => m.body)).toEqual(["On it"])
    }), 600_000)

  it.live("with a service started with ADMIN_TOKEN, needs the same token, which the service never writes down", () =>
    Effect.gen(function*() {
      const dataDir = yield* freshPgliteDir
      const token = "operator-token-of-the-service"
      const service = yield* runningService(dataDir, { ADMIN_TOKEN: token })
      const announced = yield* Effect.promise(() => readFile(serviceFileOf(dataDir), "utf8"))
      expect(JSON.parse(announced)).toMatchObject({ pid: service.pid, url: service.baseUrl })
      expect(announced).not.toContain(token)
      expect(JSON.parse(announced)).not.toHaveProperty("admin_token")

      failedWith(
        yield* cli({ DATA_DIR: dataDir }, "projects", "list"),
        `the service (pid ${service.pid}) that holds DATA_DIR ${dataDir} was started with its own ADMIN_TOKEN: set ADMIN_TOKEN to the same value here, or stop the service first`
      )
      failedWith(
        yield* cli({ DATA_DIR: dataDir, ADMIN_TOKEN: "a-wrong-token" }, "projects", "list"),
        `the service (pid ${service.pid}) that holds DATA_DIR ${dataDir} refused the admin token in ADMIN_TOKEN: set it to the one the service was started with`
      )
      expect(succeeded(yield* cli({ DATA_DIR: dataDir, ADMIN_TOKEN: token }, "projects", "list"))).toMatch(/^\S+ +\S+ +Demo project\n$/)
    }), 300_000)

  it.live("ignores an announcement left by a process that is gone, and opens the database itself", () =>
    Effect.gen(function*() {
      const dataDir = yield* freshPgliteDir
      const gone = yield* Effect.promise(deadPid)
      // were it believed, the CLI would call this port, where nothing listens, and fail
      const url = `http://127.0.0.1:${yield* Effect.promise(freePort)}`
      yield* Effect.promise(() =>
        writeFile(serviceFileOf(dataDir), JSON.stringify({ pid: gone, started_at: "2026-01-01T00:00:00.000Z", url, admin_token: "x" }))
      )
      expect(succeeded(yield* cli({ DATA_DIR: dataDir }, "projects", "create", "After a crash"))).toMatch(/^project id: /)
      expect(succeeded(yield* cli({ DATA_DIR: dataDir }, "projects", "list"))).toMatch(/ After a crash\n$/)
    }), 300_000)

  it.live("says in one line when the service does not answer: nothing listening, or a socket that never answers", () =>
    Effect.gen(function*() {
      const dataDir = yield* scratchDir
      // a process that runs: this test's own
      const announce = (url: string) =>
        Effect.promise(() =>
          writeFile(serviceFileOf(dataDir), JSON.stringify({ pid: process.pid, started_at: "2026-01-01T00:00:00.000Z", url, admin_token: "x" }))
        )
      const closed = `http://127.0.0.1:${yield* Effect.promise(freePort)}`
      yield* announce(closed)
      failedWith(
        yield* cli({ DATA_DIR: dataDir }, "projects", "list"),
        `the service (pid ${process.pid}) that holds DATA_DIR ${dataDir} does not answer at ${closed} (connect ECONNREFUSED ${
          closed.slice("http://".length)
        }): check that it runs, or stop it to use the database directly`
      )

      const hung = yield* silentServer
      yield* announce(hung)
      const started = Date.now()
      failedWith(
        yield* cli({ DATA_DIR: dataDir }, "tickets", "show", unknownId, "1"),
        `the service (pid ${process.pid}) that holds DATA_DIR ${dataDir} does not answer at ${hung} (no answer within 10s): check that it runs, or stop it to use the database directly`
      )
      expect(Date.now() - started).toBeLessThan(30_000)
    }), 120_000)

  it.live("on PostgreSQL opens the database the settings name, whatever DATA_DIR announces", () =>
    Effect.gen(function*() {
      const dataDir = yield* scratchDir
      const hung = yield* silentServer
      yield* Effect.promise(() =>
        writeFile(serviceFileOf(dataDir), JSON.stringify({ pid: process.pid, started_at: "2026-01-01T00:00:00.000Z", url: hung, admin_token: "x" }))
      )
      const port = yield* Effect.promise(freePort)
      failedWith(
        yield* cli({ DATA_DIR: dataDir, DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/nowhere` }, "projects", "list"),
        `the database does not answer (connect ECONNREFUSED 127.0.0.1:${port}): check DATABASE_URL and that PostgreSQL runs`
      )
    }), 120_000)
})

/** An empty directory, removed after the test. */
const scratchDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "support-cli-remote-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** A loopback address that accepts connections and never answers, as a stuck service would: its URL. */
const silentServer = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ server: Server; sockets: Set<Socket> }>((resolve) => {
      const sockets = new Set<Socket>()
      const server = createServer((socket) => void sockets.add(socket))
      server.listen(0, "127.0.0.1", () => resolve({ server, sockets }))
    })
  ),
  ({ server, sockets }) =>
    Effect.promise(() =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      })
    )
).pipe(Effect.map(({ server }) => `http://127.0.0.1:${(server.address() as { port: number }).port}`))

/** A pid that was a process a moment ago and is none now. */
const deadPid = () =>
  new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
    child.once("exit", () => resolve(child.pid!))
  })
