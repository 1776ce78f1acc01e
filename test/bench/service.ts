import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { freePort } from "../support/Process.ts"
import { setTimeout as sleep } from "node:timers/promises"

export interface Service {
  readonly baseUrl: string
  readonly pid: number
  /** the service's recent stdout and stderr, for failure reports */
  readonly output: () => string
  /** how much the service has printed so far, to pass to `outputSince` later */
  readonly outputMark: () => number
  /** what it printed after `mark` (as much as is still kept) */
  readonly outputSince: (mark: number) => string
  /** SIGTERM, then SIGKILL after 10 s; says which one ended it */
  readonly stop: () => Promise<{ readonly killed: boolean; readonly code: number | null }>
}

const outputLimit = 1024 * 1024

/** The node arguments of `npm start` (its V8 flags and the bundle), read from package.json. */
const startArguments = (root: string): Array<string> => {
  const start: string = JSON.parse(readFileSync(`${root}/package.json`, "utf8")).scripts.start
  const command = /\bnode ((?:--\S+ )*)(dist\/main\.mjs)$/.exec(start)
  if (command === null) throw new Error(`npm start no longer ends in "node [flags] dist/main.mjs": ${start}`)
  return [...command[1].split(" ").filter((flag) => flag !== ""), command[2]]
}

/**
 * Runs the bundle that `npm start` runs (`node dist/main.mjs` with the same flags, built by
 * `npm run build` before the benchmark starts) directly, not through npm, so the child's pid is
 * the server process itself and /proc/<pid> measures the server, not a wrapper.
 */
export const startService = async (
  root: string,
  env: Readonly<Record<string, string>>,
  timeoutMs = 120_000
): Promise<Service> => {
  const port = await freePort()
  // the caller picks the database: an inherited DATABASE_URL would quietly turn an embedded run
  // into one against that server (and migrate whatever database it names)
  const { DATABASE_URL: _url, DATA_DIR: _dir, ...inherited } = process.env
  const child: ChildProcess = spawn(process.execPath, startArguments(root), {
    cwd: root,
    env: { ...inherited, HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  let written = 0
  const keep = (chunk: Buffer) => {
    const text = chunk.toString()
    written += text.length
    output = (output + text).slice(-outputLimit)
  }
  const outputSince = (mark: number) => output.slice(Math.max(0, output.length - (written - mark)))
  child.stdout!.on("data", keep)
  child.stderr!.on("data", keep)

  let ready = false
  let stopping = false
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code, signal) => {
      if (ready && !stopping) console.error(`  !! the service exited by itself (code ${code}, signal ${signal}):\n${output.slice(-3000)}`)
      resolve(code)
    }))
  const stop = async () => {
    stopping = true
    if (child.exitCode !== null || child.signalCode !== null) return { killed: false, code: child.exitCode }
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    const code = await exited
    clearTimeout(timer)
    return { killed: child.signalCode === "SIGKILL", code }
  }

  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode} before it was ready:\n${output}`)
    try {
      const response = await fetch(`${baseUrl}/health`)
      if (response.status === 200) {
        ready = true
        return { baseUrl, pid: child.pid!, output: () => output, outputMark: () => written, outputSince, stop }
      }
    } catch {
      // not listening yet
    }
    await sleep(250)
  }
  await stop()
  throw new Error(`service did not answer /health within ${timeoutMs} ms:\n${output}`)
}

/** VmRSS and VmHWM (peak RSS since start) of a process, in KiB. */
export const memoryKiB = (pid: number): { readonly rss: number; readonly hwm: number } | undefined => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN)
    return { rss: field("VmRSS"), hwm: field("VmHWM") }
  } catch {
    return undefined // the process is gone
  }
}

/** Samples VmRSS every `intervalMs` until stopped; returns the peak seen, in KiB. */
export const sampleRss = (pid: number, intervalMs = 100) => {
  let peak = 0
  const sample = () => {
    peak = Math.max(peak, memoryKiB(pid)?.rss ?? 0)
  }
  sample()
  const timer = setInterval(sample, intervalMs)
  return {
    stop: () => {
      clearInterval(timer)
      sample()
      return peak
    }
  }
}

/** CPU time (user + system) the process has used so far, in seconds. */
export const cpuSeconds = (pid: number) => {
  try {
    // the command name in field 2 may hold spaces, so count fields after its closing paren
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 a second on Linux)
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return NaN
  }
}

/**
 * Waits until the server uses under 10% of a core for a second, up to `maxMs`. Ticket creation
 * queues background jobs (triage and the like); without this, the next scenario would be measured
 * while the server is still working through the previous one's backlog.
 */
export const waitUntilIdle = async (pid: number, maxMs = 60_000): Promise<number> => {
  const start = Date.now()
  let before = cpuSeconds(pid)
  while (Date.now() - start < maxMs) {
    await sleep(1000)
    const now = cpuSeconds(pid)
    if (Number.isNaN(now) || now - before < 0.1) break
    before = now
  }
  return Date.now() - start
}

/** JSON over fetch, failing loudly on an unexpected status. */
export const requestJson = async <A>(
  baseUrl: string,
  method: string,
  path: string,
  token: string,
  expectStatus: number,
  body?: unknown
): Promise<A> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (response.status !== expectStatus) {
    throw new Error(`${method} ${path}: expected ${expectStatus}, got ${response.status}: ${text.slice(0, 500)}`)
  }
  return JSON.parse(text) as A
}
