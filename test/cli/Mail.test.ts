/**
 * The CLI's mail commands: the address mail to a project is sent to, shown, set and removed, on
 * the database itself and through the service that holds the embedded database, with the
 * operator API's refusals (an address another project has, a +tag) in the CLI's terms.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createTransport } from "nodemailer"
import { lockFileName } from "../../src/Database/DataDirLock.ts"
import { ProjectId } from "../../src/Domain/Ids.ts"
import { MailRepo } from "../../src/Mail/Repo.ts"
import { freshPgliteDir } from "../support/Databases.ts"
import { callService, freePort, startServiceProcess } from "../support/Process.ts"
import { cli, failedWith, onDatabase, succeeded } from "./CliProcess.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const unknownId = "0b7e1e0c-6a55-4c3e-9d4e-2f1c6a1d9a00"

/** The project's inbound address as the database holds it: null when it has none. */
const addressOnDatabase = (env: Record<string, string>, projectId: string) =>
  onDatabase(
    env,
    Effect.flatMap(Effect.service(MailRepo), (mail) => mail.addressOf(ProjectId.make(projectId))).pipe(
      Effect.provide(MailRepo.layer),
      Effect.map((found) => found._tag === "Some" ? found.value : "no such project")
    )
  )

/** Sends a mail over SMTP to the listener; the server's answer: its reply code (250 when taken). */
const sendSmtp = (port: number, to: string) =>
  Effect.promise(async () => {
    const transport = createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true })
    try {
      await transport.sendMail({ from: "kim@example.com", to, subject: "Printer on fire", text: "It smokes." })
      return 250
    } catch (error) {
      return (error as { responseCode?: number }).responseCode ?? 0
    } finally {
      transport.close()
    }
  })

/** The refusals of `mail address` (project B's), the same on the database and through the service. */
const refusals = (taken: string, projectId: string) =>
  [
    [["mail", "address", projectId, taken], "<address> is another project's"],
    [["mail", "address", projectId, "help+b@acme.test"], "<address> must not carry a +tag: replies add their own"],
    [["mail", "address", projectId, "not an address"], "<address> must be a valid email address"],
    [["mail", "address", projectId], "<address> must be given, or --remove"],
    [["mail", "address", projectId, "x@acme.test", "--remove"], "<address> and --remove cannot go together"],
    [["mail", "show", unknownId], new RegExp(`^error: no project ${unknownId} \\(`)],
    [["mail", "address", unknownId, "x@acme.test"], new RegExp(`^error: no project ${unknownId} \\(`)]
  ] as const

describe("operator CLI: a project's inbound mail address", () => {
  it.live("sets, shows and removes it on the database; refuses another project's address and a +tag", () =>
    Effect.gen(function*() {
      const env = { DATA_DIR: yield* freshPgliteDir }
      const a = /project id: (\S+)/.exec(succeeded(yield* cli(env, "projects", "create", "A")))![1]!
      const b = /project id: (\S+)/.exec(succeeded(yield* cli(env, "projects", "create", "B")))![1]!
      expect(succeeded(yield* cli(env, "mail", "show", a))).toBe("inbound address: none\n")

      // held as the operator API holds it: lower-cased
      expect(succeeded(yield* cli(env, "mail", "address", a, "Help@Acme.test"))).toBe("inbound address: help@acme.test\n")
      expect(yield* addressOnDatabase(env, a)).toBe("help@acme.test")
      expect(succeeded(yield* cli(env, "mail", "show", a))).toBe("inbound address: help@acme.test\n")

      for (const [args, line] of refusals("HELP@acme.test", b)) failedWith(yield* cli(env, ...args), line)
      // nothing refused was written
      expect(yield* addressOnDatabase(env, b)).toBeNull()
      expect(yield* addressOnDatabase(env, a)).toBe("help@acme.test")

      expect(succeeded(yield* cli(env, "mail", "address", a, "--remove"))).toBe("inbound address: none\n")
      expect(yield* addressOnDatabase(env, a)).toBeNull()
      // once free, the address is anyone's
      expect(succeeded(yield* cli(env, "mail", "address", b, "help@acme.test"))).toBe("inbound address: help@acme.test\n")
      expect(yield* addressOnDatabase(env, b)).toBe("help@acme.test")
    }), 300_000)

  it.live("through the running service: it takes mail at the address set, and every answer is the database's own", () =>
    Effect.gen(function*() {
      const dataDir = yield* freshPgliteDir
      const smtpPort = yield* Effect.promise(freePort)
      const service = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startServiceProcess(process.execPath, [`${root}src/main.ts`], {
            DATABASE_URL: "",
            ADMIN_TOKEN: "",
            REDIS_URL: "",
            SMTP_URL: "",
            TRIAGE_PROVIDER: "local",
            ERROR_TRACKER: "none",
            LOG_LEVEL: "warning",
            DATA_DIR: dataDir,
            SMTP_LISTEN_PORT: String(smtpPort),
            SMTP_LISTEN_HOST: "127.0.0.1"
          })
        ),
        (service) => Effect.promise(() => service.stop())
      )
      const env = { DATA_DIR: dataDir }
      const projectId = /project id:\s+(\S+)/.exec(service.output())![1]!
      const adminToken = /Admin token \([^)]*\): (\S+)/.exec(service.output())![1]!
      const other = /project id: (\S+)/.exec(succeeded(yield* cli(env, "projects", "create", "Other")))![1]!

      expect(succeeded(yield* cli(env, "mail", "address", projectId, "help@demo.test"))).toBe("inbound address: help@demo.test\n")
      // the service did it, holding the database all along, and takes mail there at once
      expect(JSON.parse(yield* Effect.promise(() => readFile(join(dataDir, lockFileName), "utf8"))).pid).toBe(service.pid)
      const settings = yield* Effect.promise(() =>
        callService(service.baseUrl, adminToken, (api) => api.mailAdmin.getMail({ params: { pid: projectId } }))
      )
      expect(settings).toEqual({ inbound_address: "help@demo.test" })
      expect(yield* sendSmtp(smtpPort, "help@demo.test")).toBe(250)
      const filed = JSON.parse(succeeded(yield* cli(env, "tickets", "list", projectId, "--source", "email", "--json")))
      expect(filed.tickets.map((ticket: any) => [ticket.subject, ticket.sender_email])).toEqual([["Printer on fire", "kim@example.com"]])

      expect(succeeded(yield* cli(env, "mail", "address", projectId, "--remove"))).toBe("inbound address: none\n")
      // mail for an address no project has is refused at RCPT TO
      expect(yield* sendSmtp(smtpPort, "help@demo.test")).toBe(550)

      // the same command lines on the database itself, once the service has stopped, print the same
      const probes: ReadonlyArray<ReadonlyArray<string>> = [
        ["mail", "show", projectId],
        ["mail", "address", projectId, "Help@Demo.test"],
        ["mail", "show", projectId],
        ...refusals("help@demo.test", other).map(([args]) => args),
        ["mail", "show", other],
        ["mail", "address", projectId, "--remove"]
      ]
      const runAll = Effect.forEach(probes, (args) => cli(env, ...args))
      const remote = yield* runAll
      yield* Effect.promise(() => service.stop())
      const direct = yield* runAll
      expect(remote).toEqual(direct)
      expect(succeeded(remote[0]!)).toBe("inbound address: none\n")
      expect(succeeded(remote[1]!)).toBe("inbound address: help@demo.test\n")
      expect(succeeded(remote[2]!)).toBe("inbound address: help@demo.test\n")
      refusals("help@demo.test", other).forEach(([, line], index) => failedWith(remote[3 + index]!, line))
      expect(succeeded(remote[10]!)).toBe("inbound address: none\n")
      expect(succeeded(remote[11]!)).toBe("inbound address: none\n")
    }), 600_000)
})
