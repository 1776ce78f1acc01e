import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createServer } from "node:net"
import type { ApiClient } from "./TestServer.ts"

/** A loopback port nobody listens on right now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

export interface RunningService {
  readonly baseUrl: string
  readonly output: () => string
  readonly stop: () => Promise<void>
  /** SIGKILL: the process gets no chance to flush or close anything, as in a crash. */
  readonly crash: () => Promise<void>
}

/**
 * A call of the contract's typed client to a service running in another process, sending `token`
 * (a project key or the admin token) if given; for suites written with plain promises.
 */
export const callService = async <A, E>(
  baseUrl: string,
  token: string | undefined,
  request: (api: ApiClient) => Effect.Effect<A, E>
): Promise<A> => {
  // loaded on first use: the benchmark, which takes only freePort from here, needs none of the service
  const { apiClient } = await import("./TestServer.ts")
  return Effect.runPromise(Effect.flatMap(apiClient(baseUrl, token), request))
}

/** A project and its full key on a service running in another process, through the admin API. */
export const provisionProject = async (baseUrl: string, adminToken: string, name: string) => {
  const [project, response] = await callService(baseUrl, adminToken, (api) =>
    api.admin.createProject({ payload: { name }, responseMode: "decoded-and-response" }))
  if (response.status !== 201) throw new Error(`project not created: ${response.status}`)
  return { projectId: project.project_id, key: project.api_key }
}

/** Files a ticket with the project's key: what the service answered, and the response it came in. */
export const postTicket = (baseUrl: string, key: string, ticket: { subject: string; body: string }) =>
  callService(baseUrl, key, (api) =>
    api.tickets.create({ payload: ticket, headers: {}, responseMode: "decoded-and-response" }))

export interface ServiceProcess extends RunningService {
  /** the operating-system process id of the service */
  readonly pid: number
  /** sends a signal and returns at once; `exited` tells when the process is gone */
  readonly signal: (signal: NodeJS.Signals) => void
  /** settles when the process has exited, with its exit code or the signal that ended it */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

/**
 * `startService`, with the child process in reach: its pid, a way to send it any signal without
 * waiting (a SIGTERM in the middle of work), and a promise of its exit.
 */
export const startServiceProcess = async (
  command: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  timeoutMs = 90_000
): Promise<ServiceProcess> => {
  const port = await freePort()
  const child: ChildProcess = spawn(command, args, {
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  const gone = () => child.exitCode !== null || child.signalCode !== null
  const baseUrl = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (gone()) return
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    await exited
    clearTimeout(timer)
  }
  const crash = async () => {
    if (gone()) return
    child.kill("SIGKILL")
    await exited
  }
  const signal = (name: NodeJS.Signals) => {
    if (!gone()) child.kill(name)
  }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (gone()) throw new Error(`service exited with ${child.exitCode ?? child.signalCode}:\n${output}`)
    try {
      // a socket that accepts and never answers must not stall the wait past its deadline
      const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) })
      if (response.ok) return { baseUrl, output: () => output, stop, crash, pid: child.pid!, signal, exited }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  await stop()
  throw new Error(`service did not answer /health within ${timeoutMs} ms:\n${output}`)
}

/** Starts the service as a separate process (`npm start` or Deno) and waits until /health answers. */
export const startService: (
  command: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  timeoutMs?: number
) => Promise<RunningService> = startServiceProcess
