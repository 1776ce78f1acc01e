/**
 * The embedded database has one user: PGlite lets a second process open the same DATA_DIR, and
 * one of the two then loses its writes. A lock file in DATA_DIR refuses every second opener
 * (service, CLI, or a second layer in the same process) before it opens anything, takes over a
 * lock whose process is gone, and goes away with a clean shutdown.
 */
import { Cause, Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { execFile, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { DataDirInUse, lockFileName } from "../../src/Database/DataDirLock.ts"
import { pgliteTemplate } from "../support/Databases.ts"
import { freePort, type ServiceProcess, startServiceProcess } from "../support/Process.ts"
import { testSettings } from "../support/Settings.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const deno = fileURLToPath(new URL("../../node_modules/.bin/deno", import.meta.url))
/** The permissions `npm run start:deno` gives: no --allow-run, no --allow-all. */
const denoRun = ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys"]
const embedded = { DATABASE_URL: "", REDIS_URL: "", ADMIN_TOKEN: "lock-admin-token", DENO_NO_UPDATE_CHECK: "1" }

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch((error) => console.error("cleanup failed:", error))
})

/** A copy of the migrated template: an embedded database nobody has open. */
const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "lock-test-"))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  await cp(pgliteTemplate(), dir, { recursive: true })
  return dir
}

const startService = async (command: string, args: ReadonlyArray<string>, dataDir: string) => {
  const service = await startServiceProcess(command, args, { ...embedded, DATA_DIR: dataDir })
  cleanups.push(() => service.crash())
  return service
}

/** Runs a command to its end: its exit code and everything it printed. */
const runToExit = (command: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(command, [...args], { cwd: root, env: { ...process.env, ...embedded, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : child.exitCode ?? 1, stdout, stderr }))
  })

/** Whatever the embedded database layer of this process does on `dataDir`: the projects it finds, or why it failed. */
const openInProcess = (dataDir: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM projects`
  }).pipe(
    Effect.provide(Layer.unwrap(Effect.map(testSettings({ DATA_DIR: dataDir }), (config) =>
      Database.layer.pipe(Layer.provide(Layer.succeed(AppConfig, config)))))),
    Effect.scoped,
    Effect.runPromiseExit
  )

const refusalOf = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined

const lockOf = async (dataDir: string) => JSON.parse(await readFile(join(dataDir, lockFileName), "utf8"))

/** A pid that was a process a moment ago and is none now. */
const deadPid = () =>
  new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
    child.once("exit", () => resolve(child.pid!))
  })

const inUseBy = (pid: number) => new RegExp(`DATA_DIR .+ is in use by process ${pid} \\(since [^)]+\\): stop that process, or set DATA_DIR to another directory`)

/** The lines a process printed that are not the one message it should have printed: a stack trace, a log. */
const linesOtherThan = (output: string, message: RegExp) =>
  output.split("\n").filter((line) => line.trim() !== "" && !message.test(line) && !line.includes("dist/widget.js is missing"))

describe("the embedded database's DATA_DIR has one user at a time", () => {
  it("refuses a second service and a second opener while the service runs, sends the CLI through it, and lets go on a clean shutdown", async () => {
    const dataDir = await freshDir()
    const holder: ServiceProcess = await startService(process.execPath, [`${root}src/main.ts`], dataDir)
    expect(await lockOf(dataDir)).toMatchObject({ pid: holder.pid })

    const secondService = await runToExit(process.execPath, ["src/main.ts"], { DATA_DIR: dataDir, PORT: String(await freePort()) })
    expect(secondService.code).toBe(1)
    expect(secondService.stderr).toMatch(inUseBy(holder.pid))
    // one line, no stack trace, nothing started
    expect(linesOtherThan(secondService.stdout + secondService.stderr, inUseBy(holder.pid))).toEqual([])

    // the CLI does not open the database: it asks the service that holds it (test/cli/WhileServiceRuns)
    const cli = await runToExit(process.execPath, ["src/cli/main.ts", "projects", "create", "Through"], { DATA_DIR: dataDir })
    expect(cli.code).toBe(0)
    expect(cli.stdout).toContain("project id")

    const inProcess = await openInProcess(dataDir)
    expect(refusalOf(inProcess)).toBeInstanceOf(DataDirInUse)
    expect(String((refusalOf(inProcess) as DataDirInUse).message)).toMatch(inUseBy(holder.pid))

    await holder.stop()
    expect(existsSync(join(dataDir, lockFileName))).toBe(false)
    // now the CLI opens the database itself, and finds what the service left
    const after = await runToExit(process.execPath, ["src/cli/main.ts", "projects", "list"], { DATA_DIR: dataDir })
    expect(after.code).toBe(0)
    expect(after.stdout).toContain("Demo")
    expect(after.stdout).toContain("Through")
  }, 180_000)

  it("refuses a second layer in the same process", async () => {
    const dataDir = await freshDir()
    const nested = await Effect.gen(function*() {
      yield* SqlClient.SqlClient
      return yield* Effect.promise(() => openInProcess(dataDir))
    }).pipe(
      Effect.provide(Layer.unwrap(Effect.map(testSettings({ DATA_DIR: dataDir }), (config) =>
        Database.layer.pipe(Layer.provide(Layer.succeed(AppConfig, config)))))),
      Effect.scoped,
      Effect.runPromise
    )
    expect((refusalOf(nested) as DataDirInUse).message).toMatch(inUseBy(process.pid))
    expect(existsSync(join(dataDir, lockFileName))).toBe(false)
  })

  it("takes over a lock whose process is gone, or whose pid now belongs to another program", async () => {
    const dataDir = await freshDir()
    const lockFile = join(dataDir, lockFileName)
    const gone = await deadPid()
    await writeFile(lockFile, JSON.stringify({ pid: gone, started_at: "2026-01-01T00:00:00.000Z" }))
    const opened = await openInProcess(dataDir)
    expect(opened).toEqual(Exit.succeed([{ n: 0 }]))
    expect(existsSync(lockFile)).toBe(false)

    // a live pid whose process started at another time than the lock's holder did: the pid was reused
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" })
    cleanups.push(async () => void other.kill("SIGKILL"))
    await writeFile(lockFile, JSON.stringify({ pid: other.pid, started_at: "2026-01-01T00:00:00.000Z", process_start: "1" }))
    expect(await openInProcess(dataDir)).toEqual(Exit.succeed([{ n: 0 }]))
    // while the same live process, with no sign of reuse, is respected
    await writeFile(lockFile, JSON.stringify({ pid: other.pid, started_at: "2026-01-01T00:00:00.000Z" }))
    expect((refusalOf(await openInProcess(dataDir)) as DataDirInUse).message).toMatch(inUseBy(other.pid!))
  })

  it("needs no lock in memory://", async () => {
    const twice = await Effect.gen(function*() {
      yield* SqlClient.SqlClient
      return yield* Effect.promise(() => openInProcess("memory://"))
    }).pipe(
      Effect.provide(Layer.unwrap(Effect.map(testSettings({ DATA_DIR: "memory://" }), (config) =>
        Database.layer.pipe(Layer.provide(Layer.succeed(AppConfig, config)))))),
      Effect.scoped,
      Effect.runPromise
    )
    expect(twice).toEqual(Exit.succeed([{ n: 0 }]))
  }, 240_000)

  it("under Deno too: refused while a service holds the directory, and takes over once it was killed", async () => {
    const dataDir = await freshDir()
    const holder = await startService(process.execPath, [`${root}src/main.ts`], dataDir)
    const refused = await runToExit(deno, [...denoRun, "src/main.ts"], { DATA_DIR: dataDir, PORT: String(await freePort()) })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(inUseBy(holder.pid))

    await holder.crash()
    expect((await lockOf(dataDir)).pid).toBe(holder.pid)
    const successor = await startService(deno, [...denoRun, `${root}src/main.ts`], dataDir)
    expect(await lockOf(dataDir)).toMatchObject({ pid: successor.pid })
    await successor.stop()
    expect(existsSync(join(dataDir, lockFileName))).toBe(false)
  }, 240_000)
})
