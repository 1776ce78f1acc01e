import { Data, DateTime, Effect, type Scope } from "effect"
import { open, readFile, rename, unlink } from "node:fs/promises"
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

/**
 * The file in DATA_DIR where the service that holds the lock says where its operator API answers,
 * so that the CLI can work through it instead of opening the database. Mode 0600: it may hold the
 * admin token kept in the database, which lives in the same directory.
 */
export const serviceFileName = "support-ticketing.service.json"

/** The service that holds DATA_DIR, as it announced itself. */
export interface AnnouncedService {
  readonly pid: number
  /** its operator API from this machine: `http://127.0.0.1:PORT` when it listens on every interface */
  readonly url: string
  /** the admin token the service generated and keeps in the database; absent when ADMIN_TOKEN set it */
  readonly adminToken: string | undefined
}

interface Announcement extends Holder {
  readonly url: string
  readonly admin_token?: string | undefined
}

const parseAnnouncement = (text: string): Announcement | undefined => {
  const holder = parseHolder(text) as Partial<Announcement> | undefined
  return holder !== undefined && typeof holder.url === "string" &&
      (holder.admin_token === undefined || typeof holder.admin_token === "string")
    ? holder as Announcement
    : undefined
}

const announceFile = async (serviceFile: string, text: string) => {
  // written whole under another name and renamed: a reader finds the old file, none, or this one;
  // only the lock's holder writes it, so one draft name does
  const draft = `${serviceFile}.tmp`
  await unlink(draft).catch(() => undefined)
  const file = await open(draft, "wx", 0o600)
  try {
    await file.writeFile(text)
  } finally {
    await file.close()
  }
  await rename(draft, serviceFile)
}

const withdraw = async (serviceFile: string, text: string) => {
  const found = await readFile(serviceFile, "utf8").catch(() => undefined)
  if (found === text) await unlink(serviceFile).catch(() => undefined)
}

/**
 * Says, beside the lock, where this process's operator API answers, until the scope closes. For
 * the process that holds DATA_DIR, once it listens.
 */
export const announce = (
  dataDir: string,
  service: { readonly url: string; readonly adminToken: string | undefined }
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.flatMap(DateTime.now, (now) => {
      const serviceFile = join(resolve(dataDir), serviceFileName)
      return Effect.tryPromise(async () => {
        const text = JSON.stringify({
          pid: process.pid,
          started_at: DateTime.formatIso(now),
          process_start: await processStart(process.pid),
          url: service.url,
          ...(service.adminToken === undefined ? {} : { admin_token: service.adminToken })
        } satisfies Announcement)
        await announceFile(serviceFile, text)
        return { serviceFile, text }
      }).pipe(
        // the service runs without it: the CLI then finds DATA_DIR in use, as before
        Effect.catch((error) =>
          Effect.as(Effect.logWarning(`cannot write ${serviceFile}, so the CLI cannot reach this service: ${error.cause}`), undefined)
        )
      )
    }),
    (written) => written === undefined ? Effect.void : Effect.promise(() => withdraw(written.serviceFile, written.text))
  ).pipe(Effect.asVoid)

/**
 * The service that holds DATA_DIR and answers its operator API, when one announced itself and
 * still runs; a file left by a process that is gone (a crash, a kill -9) is ignored.
 */
export const announcedService = (dataDir: string): Effect.Effect<AnnouncedService | undefined> =>
  Effect.promise(async () => {
    const text = await readFile(join(resolve(dataDir), serviceFileName), "utf8").catch(() => undefined)
    const found = text === undefined ? undefined : parseAnnouncement(text)
    return found === undefined || (await holderState(found)) === "gone"
      ? undefined
      : { pid: found.pid, url: found.url, adminToken: found.admin_token }
  })
