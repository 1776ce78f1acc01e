import { Data, DateTime, Effect, type Scope } from "effect"
import { open, readFile, unlink } from "node:fs/promises"
import { getPriority } from "node:os"
import { join, resolve } from "node:path"
import process from "node:process"

/** The file in DATA_DIR that says which process has the embedded database open. */
export const lockFileName = "support-ticketing.lock"

/** Another process has the embedded database open: PGlite has one user, and a second would lose writes. */
export class DataDirInUse extends Data.TaggedError("DataDirInUse")<{
  readonly message: string
  readonly pid: number
  readonly lockFile: string
}> {}

interface Holder {
  readonly pid: number
  readonly started_at: string
  /** the kernel's start time of the process, where /proc tells it: a pid given to another program since does not match */
  readonly process_start?: string | undefined
}

/** Lock files this process holds: a second opener inside the same process is refused as well. */
const held = new Set<string>()

const errorCode = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined

/** Field 22 of /proc/<pid>/stat, after the command name, which may itself hold spaces and parentheses. */
const processStart = async (pid: number): Promise<string | undefined> => {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
  } catch {
    // not Linux, or Deno without --allow-all: the pid alone has to do
    return undefined
  }
}

/**
 * Whether the holder still runs. getpriority answers for any process without a permission to
 * signal it, on Node and on Deno (where `process.kill(pid, 0)` needs --allow-run); a process that
 * is gone is ESRCH. The holder's own pid is a previous life of this pid (a restarted container
 * numbers its processes the same way), since this process's locks are in `held`.
 */
const holderState = async (holder: Holder): Promise<"running" | "gone" | "unknown"> => {
  if (holder.pid === process.pid) return "gone"
  try {
    getPriority(holder.pid)
  } catch (error) {
    const described = `${errorCode(error)} ${(error as { info?: { code?: unknown } }).info?.code} ${String(error)}`
    if (described.includes("ESRCH")) return "gone"
    if (/EPERM|EACCES/.test(described)) return "running"
    return "unknown"
  }
  const start = holder.process_start === undefined ? undefined : await processStart(holder.pid)
  return start !== undefined && start !== holder.process_start ? "gone" : "running"
}

const parseHolder = (text: string): Holder | undefined => {
  try {
    const value = JSON.parse(text)
    return typeof value?.pid === "number" && Number.isInteger(value.pid) && value.pid > 0 ? value : undefined
  } catch {
    return undefined
  }
}

/** The lock file's text, or undefined when there is none; a holder writes right after creating it, so an empty file is read again. */
const readLock = async (lockFile: string): Promise<string | undefined> => {
  for (let attempt = 0; ; attempt++) {
    let text: string
    try {
      text = await readFile(lockFile, "utf8")
    } catch (error) {
      if (errorCode(error) === "ENOENT") return undefined
      throw error
    }
    if (parseHolder(text) !== undefined || attempt === 20) return text
    await new Promise((resume) => setTimeout(resume, 50))
  }
}

const inUse = (dataDir: string, lockFile: string, holder: Holder, checkable: boolean) =>
  new DataDirInUse({
    pid: holder.pid,
    lockFile,
    message: checkable
      ? `DATA_DIR ${dataDir} is in use by process ${holder.pid} (since ${holder.started_at}): stop that process, or set DATA_DIR to another directory`
      : `DATA_DIR ${dataDir} is locked by process ${holder.pid} (since ${holder.started_at}), and whether it still runs cannot be checked here: stop it, or delete ${lockFile} if it is gone, or set DATA_DIR to another directory`
  })

const acquire = async (dataDir: string, startedAt: string): Promise<{ lockFile: string; text: string }> => {
  const lockFile = join(dataDir, lockFileName)
  const text = JSON.stringify({ pid: process.pid, started_at: startedAt, process_start: await processStart(process.pid) })
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      // exclusive create: of two processes that start at once, one gets the file
      const file = await open(lockFile, "wx")
      try {
        await file.writeFile(text)
      } finally {
        await file.close()
      }
      held.add(lockFile)
      return { lockFile, text }
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error
    }
    const found = await readLock(lockFile)
    if (found === undefined) continue
    const holder = parseHolder(found)
    if (holder !== undefined) {
      if (held.has(lockFile)) throw inUse(dataDir, lockFile, holder, true)
      const state = await holderState(holder)
      if (state !== "gone") throw inUse(dataDir, lockFile, holder, state === "running")
    }
    // left behind by a process that is gone (a crash, a kill -9): taken over, unless another
    // starter replaced it in the meantime
    if ((await readLock(lockFile)) === found) await unlink(lockFile).catch(() => undefined)
  }
  throw new Error(`cannot create ${lockFile}: other processes keep replacing it`)
}

const release = async ({ lockFile, text }: { lockFile: string; text: string }) => {
  held.delete(lockFile)
  if ((await readLock(lockFile).catch(() => undefined)) === text) await unlink(lockFile).catch(() => undefined)
}

/**
 * Holds DATA_DIR for this process until the scope closes: a second service or CLI on the same
 * directory fails with DataDirInUse before it opens the database. A lock whose process is gone
 * is taken over.
 */
export const hold = (dataDir: string): Effect.Effect<void, DataDirInUse, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.flatMap(DateTime.now, (now) =>
      Effect.tryPromise({
        try: () => acquire(resolve(dataDir), DateTime.formatIso(now)),
        catch: (error) => error
      })).pipe(
        Effect.catch((error) => error instanceof DataDirInUse ? Effect.fail(error) : Effect.die(error))
      ),
    (lock) => Effect.promise(() => release(lock))
  ).pipe(Effect.asVoid)
