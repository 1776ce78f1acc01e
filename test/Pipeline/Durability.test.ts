/**
 * Webhook deliveries survive what happens to the processes that send them: a SIGKILL in the
 * middle of an attempt, two instances on one PostgreSQL, a receiver that is down for a while
 * (or for good), and a SIGTERM while an attempt is in flight. Every case runs the real service
 * as child processes (from its sources, as `npm run start:dev` does) and a real HTTP receiver
 * in this process that records every request it gets, headers and body.
 *
 * Nothing here measures speed: outcomes are awaited by polling with a deadline, and the only
 * time comparison is a lower bound (a retry never comes before its configured delay).
 */
import { randomUUID, createHmac } from "node:crypto"
import { cp, mkdtemp, readdir, readFile, readlink, rm } from "node:fs/promises"
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { afterEach, describe, expect, it } from "vitest"
import type { EventKind } from "../../src/Domain/Events.ts"
import type { Delivery } from "../../src/Domain/Webhook.ts"
import { pgliteTemplate } from "../support/Databases.ts"
import { describeNeeding, itNeeding, postgresMissing } from "../support/Requires.ts"
import { callService, postTicket, provisionProject, type ServiceProcess, startServiceProcess } from "../support/Process.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const adminToken = "pipeline-durability-admin-token"
const serverUrl = process.env.DATABASE_URL

type Kind = "pglite" | "postgres"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// Cleanup: everything a test starts is ended after it, whatever happened.

const cleanups: Array<() => Promise<unknown>> = []
const onCleanup = (cleanup: () => Promise<unknown>) => cleanups.push(cleanup)
afterEach(async () => {
  while (cleanups.length > 0) {
    const cleanup = cleanups.pop()!
    await cleanup().catch((error) => console.error("cleanup failed:", error))
  }
})

// ---------------------------------------------------------------------------------------------
// Databases: a copy of the migrated PGlite template, or a fresh database on the PostgreSQL server.

interface Database {
  readonly kind: Kind
  readonly env: Record<string, string>
  /** PostgreSQL only: runs a query on the service's database, with a connection of our own */
  readonly query: <R extends pg.QueryResultRow>(text: string, values?: Array<unknown>) => Promise<Array<R>>
}

const freshDatabase = async (kind: Kind): Promise<Database> => {
  if (kind === "pglite") {
    const dir = await mkdtemp(join(tmpdir(), "pipeline-durability-"))
    onCleanup(() => rm(dir, { recursive: true, force: true }))
    await cp(pgliteTemplate(), dir, { recursive: true })
    return {
      kind,
      env: { DATA_DIR: dir, DATABASE_URL: "" },
      query: () => Promise.reject(new Error("the embedded database is only reachable through the service"))
    }
  }
  const name = `test_${randomUUID().replaceAll("-", "")}`
  const server = new pg.Client({ connectionString: serverUrl })
  await server.connect()
  await server.query(`CREATE DATABASE ${name}`)
  await server.end()
  const url = new URL(serverUrl!)
  url.pathname = `/${name}`
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  onCleanup(async () => {
    await client.end().catch(() => undefined)
    const dropper = new pg.Client({ connectionString: serverUrl })
    await dropper.connect()
    await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => dropper.end())
  })
  return {
    kind,
    env: { DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: "5" },
    query: async (text, values) => (await client.query(text, values)).rows
  }
}

// ---------------------------------------------------------------------------------------------
// The service, in a process of its own.

const start = async (database: Database, settings: Record<string, string> = {}): Promise<ServiceProcess> => {
  const service = await startServiceProcess(process.execPath, [`${root}src/main.ts`], {
    REDIS_URL: "",
    ADMIN_TOKEN: adminToken,
    // a receiver on loopback: refused by default on a PostgreSQL server
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
    TRIAGE_PROVIDER: "local",
    ERROR_TRACKER: "none",
    SMTP_URL: "",
    ...database.env,
    ...settings
  })
  onCleanup(() => service.crash())
  return service
}

/** The last lines a service printed, for failure messages. */
const tail = (service: ServiceProcess | undefined, lines = 40) =>
  service === undefined ? "" : `\n--- service output (last ${lines} lines) ---\n${service.output().split("\n").slice(-lines).join("\n")}`

const registerWebhook = async (baseUrl: string, projectId: string, url: string, events?: ReadonlyArray<EventKind>) => {
  const [webhook, response] = await callService(baseUrl, adminToken, (api) =>
    api.webhooks.register({
      params: { pid: projectId },
      payload: events === undefined ? { url } : { url, events },
      responseMode: "decoded-and-response"
    }))
  if (response.status !== 201) throw new Error(`webhook not registered: ${response.status}`)
  return { webhookId: webhook.webhook_id, secret: webhook.secret }
}

const deliveryLog = async (baseUrl: string, projectId: string, webhookId: string): Promise<ReadonlyArray<Delivery>> => {
  const [log, response] = await callService(baseUrl, adminToken, (api) =>
    api.webhooks.deliveries({ params: { pid: projectId, webhook_id: webhookId }, responseMode: "decoded-and-response" }))
  if (response.status !== 200) throw new Error(`deliveries log: ${response.status}`)
  return log.deliveries
}

const createTicket = async (baseUrl: string, key: string, subject: string) => {
  const [created, response] = await postTicket(baseUrl, key, { subject, body: `${subject}: the body` })
  if (response.status !== 202) throw new Error(`ticket not accepted: ${response.status}`)
  return created.ticket_id
}

/**
 * Polls `probe` until it returns something other than undefined/false, or fails after
 * `timeoutMs` saying what was awaited and what was last seen.
 */
const waitFor = async <A>(
  what: string,
  probe: () => Promise<A | undefined | false> | A | undefined | false,
  options: { readonly timeoutMs?: number; readonly context?: () => string } = {}
): Promise<A> => {
  const timeoutMs = options.timeoutMs ?? 60_000
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  while (Date.now() < deadline) {
    try {
      const value = await probe()
      if (value !== undefined && value !== false) return value
    } catch (error) {
      lastError = error
    }
    await sleep(100)
  }
  throw new Error(
    `gave up after ${timeoutMs} ms waiting for ${what}` +
      (lastError === undefined ? "" : `\nlast error: ${String(lastError)}`) +
      (options.context === undefined ? "" : `\n${options.context()}`)
  )
}

// ---------------------------------------------------------------------------------------------
// The receiver: a plain node:http server on loopback that records every request.

interface Received {
  readonly path: string
  /** Date.now() when the request's headers arrived */
  readonly at: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly socket: Socket
  /** the delivery id, from x-service-delivery */
  readonly delivery: string
}

/** How to answer one request: hold it (never answer) or answer `status` after `delayMs`. */
type Behaviour = "hold" | { readonly status: number; readonly delayMs?: number }

interface Receiver {
  readonly url: string
  readonly port: number
  readonly requests: Array<Received>
  readonly on: (path: string) => Array<Received>
  readonly server: Server
}

const startReceiver = async (
  answer: (request: Received, nthOnPath: number) => Behaviour
): Promise<Receiver> => {
  const requests: Array<Received> = []
  const held: Array<ServerResponse> = []
  const server = createServer((req, res) => {
    const at = Date.now()
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const received: Received = {
        path: req.url ?? "",
        at,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        socket: req.socket,
        delivery: String(req.headers["x-service-delivery"])
      }
      requests.push(received)
      const behaviour = answer(received, requests.filter((r) => r.path === received.path).length)
      if (behaviour === "hold") {
        held.push(res)
        return
      }
      setTimeout(() => {
        if (res.destroyed) return
        res.writeHead(behaviour.status, { "content-type": "text/plain" })
        res.end(String(behaviour.status))
      }, behaviour.delayMs ?? 0)
    })
  })
  // keep-alive connections outlive our polls: the owner of a connection is looked up by it
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  onCleanup(() =>
    new Promise<void>((resolve) => {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      server.close(() => resolve())
    })
  )
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    on: (path) => requests.filter((r) => r.path === path),
    server
  }
}

const summary = (requests: ReadonlyArray<Received>) =>
  requests.map((r, i) => `#${i + 1} ${r.path} delivery=${r.delivery} event=${r.headers["x-service-event"]}`).join("\n")

/** Both signatures of a request verify with the endpoint's secret. */
const expectSigned = (request: Received, secret: string) => {
  const expected = `sha256=${createHmac("sha256", Buffer.from(secret, "utf8")).update(request.body, "utf8").digest("hex")}`
  expect(request.headers["x-service-signature"]).toBe(expected)
  expect(request.headers["webhook-id"]).toBe(request.delivery)
  expect(() =>
    new StandardWebhook(secret).verify(request.body, {
      "webhook-id": String(request.headers["webhook-id"]),
      "webhook-timestamp": String(request.headers["webhook-timestamp"]),
      "webhook-signature": String(request.headers["webhook-signature"])
    })
  ).not.toThrow()
}

// ---------------------------------------------------------------------------------------------
// Which process holds the client end of a connection to the receiver (Linux /proc).

const procAvailable = async () => {
  try {
    await readFile("/proc/net/tcp", "utf8")
    return true
  } catch {
    return false
  }
}

/** The socket inode of the loopback connection from `clientPort` to `serverPort`. */
const socketInode = async (clientPort: number, serverPort: number) => {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, "0")
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const text = await readFile(table, "utf8").catch(() => "")
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10) continue
      const local = fields[1]!.split(":")
      const remote = fields[2]!.split(":")
      if (local[local.length - 1] === hex(clientPort) && remote[remote.length - 1] === hex(serverPort)) return fields[9]!
    }
  }
  return undefined
}

/** The pid among `pids` that has the socket `inode` open. */
const ownerOf = async (inode: string, pids: ReadonlyArray<number>) => {
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as Array<string>)
    for (const fd of fds) {
      const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => "")
      if (link === `socket:[${inode}]`) return pid
    }
  }
  return undefined
}

// =============================================================================================

const kinds: ReadonlyArray<Kind> = ["pglite", "postgres"]

describe.each(kinds)("webhook deliveries on %s", (kind) => {
  const missing = kind === "postgres" ? postgresMissing : undefined

  itNeeding(
    missing,
    "a delivery in flight when the process is SIGKILLed is sent again after a restart, same id and body, and ends delivered",
    async () => {
      const database = await freshDatabase(kind)
      // the first request is never answered: the service dies with it in hand
      const receiver = await startReceiver((_, n) => (n === 1 ? "hold" : { status: 200 }))
      const settings = { JOB_LEASE: "2s", JOB_POLL_INTERVAL: "300ms", WEBHOOK_TIMEOUT: "2s" }

      const first = await start(database, settings)
      const { key, projectId } = await provisionProject(first.baseUrl, adminToken, "Crash mid-delivery")
      const hook = await registerWebhook(first.baseUrl, projectId, `${receiver.url}/crash`, ["ticket_created"])
      const ticketId = await createTicket(first.baseUrl, key, "Crash while delivering")

      await waitFor("the first attempt to reach the receiver", () => receiver.requests.length >= 1, {
        context: () => tail(first)
      })
      const before = await deliveryLog(first.baseUrl, projectId, hook.webhookId)
      expect(before).toHaveLength(1)
      expect(before[0]!.status).toBe("pending")
      await first.crash()
      expect(await first.exited).toMatchObject({ signal: "SIGKILL" })

      const second = await start(database, settings)
      const delivered = await waitFor(
        "the delivery to end delivered after the restart",
        async () => {
          const log = await deliveryLog(second.baseUrl, projectId, hook.webhookId)
          return log.length === 1 && log[0]!.status === "delivered" ? log[0]! : undefined
        },
        {
          context: () => `receiver saw:\n${summary(receiver.requests)}${tail(second)}`
        }
      )

      const requests = receiver.on("/crash")
      expect(requests.map((r) => r.delivery), summary(requests)).toEqual([delivered.delivery_id, delivered.delivery_id])
      expect(requests[1]!.body).toBe(requests[0]!.body)
      for (const request of requests) {
        expect(request.headers["x-service-event"]).toBe("ticket_created")
        expectSigned(request, hook.secret)
      }
      const body = JSON.parse(requests[0]!.body)
      expect(body).toMatchObject({ event: "ticket_created", data: { id: ticketId, project_id: projectId } })
      expect(delivered).toMatchObject({
        event: "ticket_created",
        status: "delivered",
        last_status_code: 200,
        next_attempt_at: null
      })
      // the attempt cut short by the crash left no outcome behind; the one after the restart did
      expect(delivered.attempts).toBeGreaterThanOrEqual(1)
      if (kind === "postgres") {
        const jobs = await database.query<{ status: string; attempts: number }>(
          `SELECT status, attempts FROM jobs WHERE kind = 'webhook_delivery' AND payload->>'delivery_id' = $1`,
          [delivered.delivery_id]
        )
        expect(jobs).toEqual([{ status: "done", attempts: 2 }])
      }
    },
    180_000
  )

  itNeeding(
    missing,
    "a receiver down for three attempts gets the event on the fourth; one always down ends failed after four",
    async () => {
      const database = await freshDatabase(kind)
      const delays = [300, 600, 900]
      const receiver = await startReceiver((request, n) =>
        request.path === "/flaky" ? { status: n <= 3 ? 503 : 200 } : { status: 503 }
      )
      const service = await start(database, {
        WEBHOOK_RETRY_SCHEDULE: delays.map((d) => `${d}ms`).join(","),
        JOB_POLL_INTERVAL: "300ms"
      })
      const { key, projectId } = await provisionProject(service.baseUrl, adminToken, "Retries")
      const flaky = await registerWebhook(service.baseUrl, projectId, `${receiver.url}/flaky`, ["ticket_created"])
      const down = await registerWebhook(service.baseUrl, projectId, `${receiver.url}/down`, ["ticket_created"])
      const ticketId = await createTicket(service.baseUrl, key, "Is anybody there")

      const context = () => `receiver saw:\n${summary(receiver.requests)}${tail(service)}`
      const settled = (webhookId: string, status: Delivery["status"]) =>
        waitFor(
          `the delivery of ${webhookId} to end ${status}`,
          async () => {
            const log = await deliveryLog(service.baseUrl, projectId, webhookId)
            return log.length === 1 && log[0]!.status === status ? log[0]! : undefined
          },
          { context }
        )
      const delivered = await settled(flaky.webhookId, "delivered")
      const failed = await settled(down.webhookId, "failed")

      // the endpoint that came back: four attempts of one delivery, each after at least its delay
      const flakyRequests = receiver.on("/flaky")
      expect(flakyRequests.map((r) => r.delivery), summary(flakyRequests)).toEqual(Array(4).fill(delivered.delivery_id))
      expect(new Set(flakyRequests.map((r) => r.body)).size).toBe(1)
      expect(JSON.parse(flakyRequests[0]!.body)).toMatchObject({ event: "ticket_created", data: { id: ticketId } })
      for (const request of flakyRequests) expectSigned(request, flaky.secret)
      const gaps = flakyRequests.slice(1).map((r, i) => r.at - flakyRequests[i]!.at)
      gaps.forEach((gap, i) => expect(gap, `gap before attempt ${i + 2}: ${gaps.join(", ")} ms`).toBeGreaterThanOrEqual(delays[i]!))
      expect(delivered).toMatchObject({ status: "delivered", attempts: 4, last_status_code: 200, next_attempt_at: null })

      // the endpoint that never came back: four attempts, then failed for good
      expect(failed).toMatchObject({ status: "failed", attempts: 4, last_status_code: 503, next_attempt_at: null })
      expect(failed.last_error).toBeTypeOf("string")
      const downRequests = receiver.on("/down")
      expect(downRequests.map((r) => r.delivery), summary(downRequests)).toEqual(Array(4).fill(failed.delivery_id))
      const downGaps = downRequests.slice(1).map((r, i) => r.at - downRequests[i]!.at)
      downGaps.forEach((gap, i) => expect(gap, `gap before attempt ${i + 2}: ${downGaps.join(", ")} ms`).toBeGreaterThanOrEqual(delays[i]!))
      // and nothing more comes: the schedule is over (several times its last delay, no timing claim)
      await sleep(3 * delays[2]!)
      expect(receiver.on("/down")).toHaveLength(4)
      expect((await deliveryLog(service.baseUrl, projectId, down.webhookId))[0]).toMatchObject({ status: "failed", attempts: 4 })
      if (kind === "postgres") {
        const jobs = await database.query<{ status: string; attempts: number; delivery: string }>(
          `SELECT status, attempts, payload->>'delivery_id' AS delivery FROM jobs WHERE kind = 'webhook_delivery' ORDER BY delivery`
        )
        expect(jobs).toEqual(
          [
            { status: "done", attempts: 4, delivery: delivered.delivery_id },
            { status: "failed", attempts: 4, delivery: failed.delivery_id }
          ].sort((a, b) => a.delivery.localeCompare(b.delivery))
        )
      }
    },
    180_000
  )

  itNeeding(
    missing,
    "a SIGTERM while a delivery is in flight: the attempt finishes within the grace period and is logged delivered",
    async () => {
      const database = await freshDatabase(kind)
      // every answer takes 1.5 s, so the SIGTERM lands while the attempt is in flight
      const receiver = await startReceiver(() => ({ status: 200, delayMs: 1_500 }))
      const settings = { JOB_POLL_INTERVAL: "300ms" }

      // the default grace period (10 s) is long enough for the attempt in hand
      const first = await start(database, settings)
      const { key, projectId } = await provisionProject(first.baseUrl, adminToken, "Graceful")
      const hook = await registerWebhook(first.baseUrl, projectId, `${receiver.url}/slow`, ["ticket_created"])
      const ticketId = await createTicket(first.baseUrl, key, "Finish me before you go")
      await waitFor("the attempt to reach the receiver", () => receiver.requests.length >= 1, {
        context: () => tail(first)
      })
      first.signal("SIGTERM")
      const exit = await first.exited
      expect(exit.signal, tail(first)).not.toBe("SIGKILL")
      expect(first.output(), tail(first)).toMatch(/waiting up to 10s for (1 job|\d+ jobs) in hand/)

      // after a restart (the embedded database has no other reader), the log shows it delivered, once
      const second = await start(database, settings)
      const log = await waitFor(
        "the delivery to be logged delivered",
        async () => {
          const log = await deliveryLog(second.baseUrl, projectId, hook.webhookId)
          return log.length === 1 && log[0]!.status === "delivered" ? log : undefined
        },
        { context: () => `receiver saw:\n${summary(receiver.requests)}${tail(first)}${tail(second)}` }
      )
      expect(log[0]).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 200, next_attempt_at: null })
      expect(receiver.requests.map((r) => r.delivery)).toEqual([log[0]!.delivery_id])
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ event: "ticket_created", data: { id: ticketId } })
      expectSigned(receiver.requests[0]!, hook.secret)
    },
    180_000
  )

  /*
   * JOB_SHUTDOWN_GRACE: "how long a stopping instance lets the jobs in hand finish before it
   * hands them back". Here the grace (300 ms) is far shorter than the receiver's answer (4 s):
   * the attempt should be cut off, the job handed back, and the next start should send it again
   * with the same delivery id and body.
   */
  itNeeding(
    missing,
    "a SIGTERM with a grace period shorter than the attempt hands the job back, and the next start delivers it",
    async () => {
      const database = await freshDatabase(kind)
      // the first attempt is answered only after 4 s; any later one at once
      const receiver = await startReceiver((_, n) => ({ status: 200, delayMs: n === 1 ? 4_000 : 0 }))
      const settings = { JOB_POLL_INTERVAL: "300ms", JOB_SHUTDOWN_GRACE: "300ms" }

      const first = await start(database, settings)
      const { key, projectId } = await provisionProject(first.baseUrl, adminToken, "Hand back")
      const hook = await registerWebhook(first.baseUrl, projectId, `${receiver.url}/slow`, ["ticket_created"])
      const ticketId = await createTicket(first.baseUrl, key, "Hand me back")
      await waitFor("the first attempt to reach the receiver", () => receiver.requests.length >= 1, {
        context: () => tail(first)
      })
      first.signal("SIGTERM")
      await first.exited

      // never lost: delivered once the service runs again
      const second = await start(database, { JOB_POLL_INTERVAL: "300ms" })
      const log = await waitFor(
        "the delivery to be logged delivered after the restart",
        async () => {
          const log = await deliveryLog(second.baseUrl, projectId, hook.webhookId)
          return log.length === 1 && log[0]!.status === "delivered" ? log : undefined
        },
        { context: () => `receiver saw:\n${summary(receiver.requests)}${tail(first)}${tail(second)}` }
      )
      expect(log[0]).toMatchObject({ status: "delivered", last_status_code: 200, next_attempt_at: null })
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ event: "ticket_created", data: { id: ticketId } })

      // handed back, not waited for: the grace period ran out with the attempt in hand
      const handedBack = /handing back (\d+) unfinished jobs/.exec(first.output())
      expect(
        Number(handedBack?.[1] ?? 0),
        `JOB_SHUTDOWN_GRACE=300ms was not honoured: the stopping service waited for the attempt in flight ` +
          `(the receiver answered it after 4 s) and handed back ${handedBack?.[1] ?? "nothing"}${tail(first)}`
      ).toBeGreaterThanOrEqual(1)
      // the attempt cut off by the shutdown, then the one after the restart: same id, same body
      expect(receiver.requests.map((r) => r.delivery), summary(receiver.requests)).toEqual([log[0]!.delivery_id, log[0]!.delivery_id])
      expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body)
      for (const request of receiver.requests) expectSigned(request, hook.secret)
      if (kind === "postgres") {
        // the handed-back attempt does not count against the schedule
        const jobs = await database.query<{ status: string; attempts: number }>(
          `SELECT status, attempts FROM jobs WHERE kind = 'webhook_delivery' AND payload->>'delivery_id' = $1`,
          [log[0]!.delivery_id]
        )
        expect(jobs).toEqual([{ status: "done", attempts: 1 }])
      }
    },
    180_000
  )
})

describeNeeding(postgresMissing, "two instances on one PostgreSQL", () => {
  it("deliver every event exactly once, every job runs once, and both instances do some of the work", async () => {
    const database = await freshDatabase("postgres")
    const count = 40
    // a little latency, and few slots per instance, so that neither instance can take everything
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 100 }))
    const pids: Array<number> = []
    const owners = new Map<Socket, Promise<number | undefined>>()
    const tracing = await procAvailable()
    receiver.server.on("connection", (socket: Socket) => {
      if (tracing) owners.set(socket, socketInode(socket.remotePort!, receiver.port).then((inode) => (inode === undefined ? undefined : ownerOf(inode, pids))))
    })

    const settings = { JOB_POLL_INTERVAL: "300ms", JOB_CONCURRENCY: "webhook_delivery=4" }
    const [a, b] = await Promise.all([start(database, settings), start(database, settings)])
    pids.push(a.pid, b.pid)
    const { key, projectId } = await provisionProject(a.baseUrl, adminToken, "Two instances")
    const hook = await registerWebhook(b.baseUrl, projectId, `${receiver.url}/hook`)

    const ticketIds = await Promise.all(
      Array.from({ length: count }, (_, i) => createTicket(i % 2 === 0 ? a.baseUrl : b.baseUrl, key, `Ticket ${i}`))
    )
    expect(new Set(ticketIds).size).toBe(count)

    const context = () => `receiver saw ${receiver.requests.length} requests${tail(a, 20)}${tail(b, 20)}`
    await waitFor(
      `${count} ticket_created deliveries and every job finished`,
      async () => {
        const created = receiver.requests.filter((r) => r.headers["x-service-event"] === "ticket_created")
        if (created.length < count) return undefined
        const open = await database.query<{ n: string }>(`SELECT count(*) AS n FROM jobs WHERE status IN ('pending', 'running')`)
        return Number(open[0]!.n) === 0
      },
      { timeoutMs: 90_000, context }
    )

    // exactly once per delivery id, over every event that went out
    const perDelivery = new Map<string, number>()
    for (const request of receiver.requests) perDelivery.set(request.delivery, (perDelivery.get(request.delivery) ?? 0) + 1)
    const doubled = [...perDelivery].filter(([, n]) => n > 1)
    expect(doubled, `deliveries received more than once: ${JSON.stringify(doubled)}`).toEqual([])

    const created = receiver.requests.filter((r) => r.headers["x-service-event"] === "ticket_created")
    expect(created).toHaveLength(count)
    expect(new Set(created.map((r) => JSON.parse(r.body).data.id))).toEqual(new Set(ticketIds))
    for (const request of created) expectSigned(request, hook.secret)

    // every job of the outbox ran once, and every delivery is logged delivered after one attempt
    const jobs = await database.query<{ id: string; kind: string; status: string; attempts: number; last_error: string | null }>(
      `SELECT id, kind, status, attempts, last_error FROM jobs ORDER BY kind, created_at`
    )
    expect(jobs.filter((job) => job.kind === "webhook_delivery").length).toBeGreaterThanOrEqual(count)
    const offenders = jobs.filter((job) => job.status !== "done" || job.attempts !== 1)
    expect(offenders, `jobs not done after exactly one run: ${JSON.stringify(offenders, null, 1)}`).toEqual([])
    const deliveries = await database.query<{ id: string; status: string; attempts: number }>(
      `SELECT id, status, attempts FROM webhook_deliveries WHERE webhook_id = $1`,
      [hook.webhookId]
    )
    expect(deliveries).toHaveLength(receiver.requests.length)
    expect(deliveries.filter((d) => d.status !== "delivered" || d.attempts !== 1)).toEqual([])
    const log = await deliveryLog(a.baseUrl, projectId, hook.webhookId)
    expect(log.filter((d) => d.event === "ticket_created")).toHaveLength(count)

    // both instances sent deliveries: the client end of each connection belongs to one of them
    if (tracing) {
      const byOwner = new Map<number | undefined, number>()
      for (const request of receiver.requests) {
        const owner = await owners.get(request.socket)
        byOwner.set(owner, (byOwner.get(owner) ?? 0) + 1)
      }
      const description = JSON.stringify(Object.fromEntries([...byOwner].map(([pid, n]) => [String(pid), n])))
      console.info(`deliveries sent per instance: a=${byOwner.get(a.pid) ?? 0}, b=${byOwner.get(b.pid) ?? 0}`)
      expect(byOwner.get(undefined), `requests whose sender could not be told: ${description}`).toBeUndefined()
      expect(byOwner.get(a.pid) ?? 0, `requests per sender pid (a=${a.pid}, b=${b.pid}): ${description}`).toBeGreaterThan(0)
      expect(byOwner.get(b.pid) ?? 0, `requests per sender pid (a=${a.pid}, b=${b.pid}): ${description}`).toBeGreaterThan(0)
    } else {
      console.warn("no /proc/net/tcp here: cannot tell which instance sent which delivery; exactly-once is still checked")
    }
  }, 240_000)
})
