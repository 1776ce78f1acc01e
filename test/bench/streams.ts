/**
 * Ticket streams (PostgreSQL only). 10,000 tickets, each with its event stream held open by this
 * process (`GET /v1/tickets/:id/events`, plain node:http, one socket per stream), while agents
 * reply to 1,000 of those tickets a minute, spread evenly. For every reply: when its 201 arrived
 * here, and when the matching `ticket_replied` event (same message_id) arrived on that ticket's
 * stream. Run on one instance, then on two instances on the same database, half the streams held
 * by each and every reply sent to the instance that does not hold that ticket's stream.
 *
 * Until the ticket's stream exists the project stream (`GET /v1/events`, every event of the
 * project to every stream, filtered here by ticket) stands in for it, with at most
 * `projectStreamCap` streams: it sends each reply to every stream, which at 10,000 streams would
 * measure that fan-out and not the ticket's stream.
 *
 * It is a measurement: missed targets are reported, not failed; only a setup error (the service
 * does not start, tickets cannot be created, no stream endpoint answers) throws.
 */
import { Agent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { setTimeout as sleep } from "node:timers/promises"
import { ticketPayload } from "./corpus.ts"
import { createScratchDatabase } from "./seed.ts"
import { cpuSeconds, memoryKiB, sampleRss, type Service, startService, waitUntilIdle } from "./service.ts"

/** The targets: a reply's event on its ticket's stream within a second (p99), and the server's memory. */
export const streamTargets = { maxP99Ms: 1_000, maxRssMiB: 400 } as const

/** How many project streams stand in for ticket streams at most, while the ticket's stream does not exist. */
const projectStreamCap = 200
/** How many stream requests wait for their answer at once while the streams are being opened. */
const openingAtOnce = 500
/** How long a stream may take to answer before it counts as not opened. */
const openTimeoutMs = 60_000
/** How long after the last reply's 201 its event may still come. */
const graceMs = 10_000
/** File descriptors this process needs besides the streams (reply and creation sockets, files). */
const fdReserve = 512

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/** CPU pressure so far: microseconds in which some runnable task waited for a core (PSI), if the kernel tells. */
const cpuStalledMicros = () => {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync("/proc/pressure/cpu", "utf8"))?.[1] ?? NaN)
  } catch {
    return NaN
  }
}

/** The soft limit on open files of this process (the services it starts inherit it). */
const openFileLimit = () => {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"))
    return line === null || line[1] === "unlimited" ? Infinity : Number(line[1])
  } catch {
    return Infinity
  }
}

interface Answer {
  readonly status: number
  readonly text: string
  readonly at: number
}

/**
 * One request over `agent`, its whole answer, and when it arrived (performance.now()). A request
 * reset on a kept-alive socket, before any answer, is sent once more on a new one: the server
 * closed that socket as idle just as it was reused, so it never read the request (Node's advice).
 */
const call = (agent: Agent, baseUrl: string, method: string, path: string, token: string, body?: unknown, retried = false) =>
  new Promise<Answer & { readonly retried: boolean }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = httpRequest(`${baseUrl}${path}`, {
      method,
      agent,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) })
      }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, at: performance.now(), retried }))
      res.on("error", reject)
    })
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (!retried && req.reusedSocket && error.code === "ECONNRESET") {
        call(agent, baseUrl, method, path, token, body, true).then(resolve, reject)
      } else {
        reject(error)
      }
    })
    req.end(payload)
  })

/** The body of an answer, with or without the `{"data": …}` envelope. */
const unwrap = <A>(text: string): A => {
  const json = JSON.parse(text) as { data?: A } & A
  return (json.data !== undefined && typeof json.data === "object" ? json.data : json) as A
}

const expect = async <A>(answer: Promise<Answer>, status: number, what: string): Promise<A> => {
  const got = await answer
  if (got.status !== status) throw new Error(`${what}: expected ${status}, got ${got.status}: ${got.text.slice(0, 300)}`)
  return unwrap<A>(got.text)
}

/** `count` tickets, `concurrency` requests at a time; their ids in order. */
const createTickets = async (baseUrl: string, apiKey: string, count: number, concurrency = 50) => {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const ids: Array<string> = new Array(count)
  let next = 0
  const worker = async () => {
    while (next < count) {
      const n = next++
      const created = await expect<{ ticket_id: string }>(
        call(agent, baseUrl, "POST", "/v1/tickets", apiKey, ticketPayload(5_000_000 + n)),
        202,
        "POST /v1/tickets"
      )
      ids[n] = created.ticket_id
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, worker))
  } finally {
    agent.destroy()
  }
  return ids
}

type Endpoint = "ticket" | "project"

const streamPath = (endpoint: Endpoint, ticketId: string) =>
  endpoint === "ticket" ? `/v1/tickets/${ticketId}/events` : "/v1/events"

/** Whether `path` answers as an event stream: status and content type, then hangs up. */
const probe = (baseUrl: string, path: string, apiKey: string) =>
  new Promise<{ readonly ok: boolean; readonly detail: string }>((resolve) => {
    const req = httpRequest(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" }, agent: false }, (res) => {
      const type = String(res.headers["content-type"] ?? "")
      if (res.statusCode === 200 && type.startsWith("text/event-stream")) {
        resolve({ ok: true, detail: `200 ${type}` })
        req.destroy()
        return
      }
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ ok: false, detail: `${res.statusCode} ${type}: ${text.slice(0, 200)}` }))
    })
    req.on("error", (error) => resolve({ ok: false, detail: String(error) }))
    req.setTimeout(10_000, () => req.destroy(new Error("no answer within 10 s")))
    req.end()
  })

interface Held {
  readonly ticketId: string
  /** which instance holds it */
  readonly instance: number
  req?: ClientRequest
  open: boolean
  closing: boolean
  /** why it ended before the benchmark closed it */
  lost?: string
}

/** What all the streams of a run heard. */
interface Heard {
  /** message_id → when its ticket_replied arrived on its ticket's stream */
  readonly arrivals: Map<string, number>
  duplicates: number
  /** a ticket_replied of a bench reply on a ticket's stream that is not that ticket's */
  misrouted: number
  keepAlives: number
  otherEvents: number
  unparsable: number
}

/**
 * An SSE block (the lines between two blank lines): a comment (`: keep-alive`), or an event's
 * `id:`, `event:` and `data:` lines.
 */
const hear = (held: Held, block: string, heard: Heard, endpoint: Endpoint) => {
  let event = "message"
  const data: Array<string> = []
  let comment = false
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) comment = true
    else if (line.startsWith("event:")) event = line.slice(6).trimStart()
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""))
  }
  if (data.length === 0) {
    if (comment) heard.keepAlives++
    return
  }
  if (event === "heartbeat") {
    heard.keepAlives++
    return
  }
  if (event !== "ticket_replied") {
    heard.otherEvents++
    return
  }
  const at = performance.now()
  let body: { id?: string; message_id?: string; data?: { id?: string; message_id?: string } }
  try {
    body = JSON.parse(data.join("\n"))
  } catch {
    heard.unparsable++
    return
  }
  // the ticket's stream sends the event's data; the project stream the webhook body, data inside
  const fields = body.data !== undefined && typeof body.data === "object" ? body.data : body
  if (fields.message_id === undefined) {
    heard.unparsable++
    return
  }
  if (fields.id !== held.ticketId) {
    // every ticket's event reaches every project stream: only the ticket's own counts
    if (endpoint === "ticket") heard.misrouted++
    return
  }
  if (heard.arrivals.has(fields.message_id)) heard.duplicates++
  else heard.arrivals.set(fields.message_id, at)
}

/** Opens one stream; resolves once it answered 200, rejects with why it did not. */
const openStream = (held: Held, baseUrl: string, agent: Agent, apiKey: string, endpoint: Endpoint, heard: Heard) =>
  new Promise<void>((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${streamPath(endpoint, held.ticketId)}`, {
      agent,
      headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" }
    })
    held.req = req
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${openTimeoutMs / 1000} s`)), openTimeoutMs)
    const lose = (why: string) => {
      if (held.open && !held.closing && held.lost === undefined) held.lost = why
    }
    req.on("error", (error) => {
      clearTimeout(timer)
      if (held.open) lose(String(error))
      else reject(error)
    })
    req.on("response", (res: IncomingMessage) => {
      clearTimeout(timer)
      if (res.statusCode !== 200) {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (text += chunk))
        res.on("end", () => reject(new Error(`${res.statusCode}: ${text.slice(0, 200)}`)))
        return
      }
      held.open = true
      resolve()
      let buffer = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        buffer += chunk
        if (buffer.includes("\r")) buffer = buffer.replace(/\r\n?/g, "\n")
        let end: number
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          hear(held, block, heard, endpoint)
        }
      })
      res.on("end", () => lose("the server ended the stream"))
      res.on("close", () => lose("the connection closed"))
      res.on("error", (error) => lose(String(error)))
    })
    req.end()
  })

/** Why streams did not open or were lost, counted by reason (the first 200 characters). */
const tally = (reasons: Iterable<string>) => {
  const counts: Record<string, number> = {}
  for (const reason of reasons) {
    const key = reason.slice(0, 200)
    counts[key] = (counts[key] ?? 0) + 1
  }
  return counts
}

export interface StreamsRun {
  readonly instances: number
  readonly streamsRequested: number
  readonly streamsOpened: number
  /** why the others did not open, by reason */
  readonly openFailures: Record<string, number>
  readonly openSeconds: number
  readonly repliesPerMinute: number
  readonly seconds: number
  readonly repliesSent: number
  readonly replies201: number
  readonly replyFailures: Record<string, number>
  /** replies sent again after a reset on a reused kept-alive socket */
  readonly repliesRetried: number
  readonly replyP99Ms: number
  readonly eventsReceived: number
  /** replies answered 201 whose event never arrived on their ticket's stream */
  readonly missing: number
  readonly duplicates: number
  readonly misrouted: number
  /** events that arrived before their reply's 201 (their latency counts as 0) */
  readonly eventsBefore201: number
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
  readonly keepAlives: number
  readonly streamsDropped: number
  readonly dropReasons: Record<string, number>
  /** per instance: before the streams, with every stream open (idle), and the peak over the run */
  readonly rssMiB: ReadonlyArray<{ readonly before: number; readonly open: number; readonly peak: number; readonly hwm: number }>
  /** per instance, over the replies, in % of one core */
  readonly serverCpuPercent: ReadonlyArray<number>
  readonly loadGeneratorCpuPercent: number
  readonly loadAverage: number
  /** the share of the replies' time in which some task waited for a core (/proc/pressure/cpu): others' work too */
  readonly cpuPressurePercent: number
  readonly serverLog: ReadonlyArray<string>
  readonly missed: ReadonlyArray<string>
}

export interface StreamsResult {
  readonly endpoint: string
  readonly streams: number
  readonly streamsAsked: number
  readonly openFileLimit: number
  readonly tickets: number
  readonly createSeconds: number
  readonly repliesPerMinute: number
  readonly seconds: number
  readonly targets: typeof streamTargets
  readonly runs: ReadonlyArray<StreamsRun>
}

/** One run: every stream opened over `services`, replies for `seconds`, then everything closed. */
const runStreams = async (options: {
  readonly services: ReadonlyArray<Service>
  readonly ticketIds: ReadonlyArray<string>
  readonly apiKey: string
  readonly projectId: string
  readonly adminToken: string
  readonly endpoint: Endpoint
  readonly repliesPerMinute: number
  readonly seconds: number
}): Promise<StreamsRun> => {
  const { services, endpoint } = options
  const count = services.length
  const heard: Heard = { arrivals: new Map(), duplicates: 0, misrouted: 0, keepAlives: 0, otherEvents: 0, unparsable: 0 }
  const logMarks = services.map((s) => s.outputMark())
  const rssBefore = services.map((s) => mib(memoryKiB(s.pid)?.rss ?? 0))
  const rss = services.map((s) => sampleRss(s.pid))
  // one socket per stream: an agent that keeps no limit, one per instance
  const streamAgents = services.map(() => new Agent({ keepAlive: true, maxSockets: Infinity }))
  const replyAgents = services.map(() => new Agent({ keepAlive: true, maxSockets: 32 }))
  const held: Array<Held> = options.ticketIds.map((ticketId, i) => ({ ticketId, instance: i % count, open: false, closing: false }))
  try {
    // 1. open every stream, `openingAtOnce` waiting for an answer at a time
    const failures: Array<string> = []
    const openStarted = performance.now()
    let next = 0
    const opener = async () => {
      while (next < held.length) {
        const h = held[next++]!
        await openStream(h, services[h.instance]!.baseUrl, streamAgents[h.instance]!, options.apiKey, endpoint, heard)
          .catch((error: unknown) => {
            failures.push(error instanceof Error ? error.message : String(error))
          })
      }
    }
    await Promise.all(Array.from({ length: Math.min(openingAtOnce, held.length) }, opener))
    const openSeconds = Math.round((performance.now() - openStarted) / 100) / 10
    const opened = held.filter((h) => h.open && h.lost === undefined)
    console.log(`    ${opened.length} of ${held.length} streams open in ${openSeconds} s${failures.length > 0 ? `; ${failures.length} failed` : ""}`)
    if (opened.length === 0) throw new Error(`no stream opened: ${JSON.stringify(tally(failures))}`)
    // let the server finish whatever opening them started before the replies are timed
    await sleep(2_000)
    await Promise.all(services.map((s) => waitUntilIdle(s.pid, 60_000)))
    const rssOpen = services.map((s) => mib(memoryKiB(s.pid)?.rss ?? 0))

    // 2. replies, evenly spread, each to the instance that does not hold its ticket's stream
    const total = Math.max(1, Math.round((options.seconds * options.repliesPerMinute) / 60))
    const interval = 60_000 / options.repliesPerMinute
    const answered = new Map<string, number>()
    const replyFailures: Array<string> = []
    const replyTimes: Array<number> = []
    const cpuBefore = services.map((s) => cpuSeconds(s.pid))
    const ownBefore = process.cpuUsage()
    const stalledBefore = cpuStalledMicros()
    let retried = 0
    const started = performance.now()
    const pending: Array<Promise<void>> = []
    for (let i = 0; i < total; i++) {
      const due = started + i * interval
      const wait = due - performance.now()
      if (wait > 0) await sleep(wait)
      const h = opened[i % opened.length]!
      const to = count === 1 ? 0 : (h.instance + 1) % count
      const sent = performance.now()
      pending.push(
        call(
          replyAgents[to]!,
          services[to]!.baseUrl,
          "POST",
          `/v1/admin/projects/${options.projectId}/tickets/${h.ticketId}/messages`,
          options.adminToken,
          { body: `Thanks for waiting: reply ${i + 1} from the streams benchmark.` }
        ).then((answer) => {
          replyTimes.push(answer.at - sent)
          if (answer.retried) retried++
          if (answer.status !== 201) {
            replyFailures.push(`${answer.status}: ${answer.text.slice(0, 200)}`)
            return
          }
          answered.set(unwrap<{ message_id: string }>(answer.text).message_id, answer.at)
        }, (error: unknown) => {
          replyFailures.push(error instanceof Error ? error.message : String(error))
        })
      )
    }
    await Promise.all(pending)
    const repliedFor = (performance.now() - started) / 1000
    const serverCpuPercent = services.map((s, i) => Math.round(((cpuSeconds(s.pid) - cpuBefore[i]!) / repliedFor) * 100))
    const own = process.cpuUsage(ownBefore)
    const loadGeneratorCpuPercent = Math.round(((own.user + own.system) / 1e6 / repliedFor) * 100)
    const cpuPressurePercent = Math.round((cpuStalledMicros() - stalledBefore) / 1e4 / repliedFor)

    // 3. the last events, then the figures
    const deadline = performance.now() + graceMs
    const outstanding = () => [...answered.keys()].filter((id) => !heard.arrivals.has(id)).length
    while (outstanding() > 0 && performance.now() < deadline) await sleep(50)
    const latencies: Array<number> = []
    let early = 0
    for (const [messageId, okAt] of answered) {
      const eventAt = heard.arrivals.get(messageId)
      if (eventAt === undefined) continue
      if (eventAt < okAt) early++
      latencies.push(Math.max(0, eventAt - okAt))
    }
    latencies.sort((a, b) => a - b)
    replyTimes.sort((a, b) => a - b)
    const round = (ms: number) => Math.round(ms * 10) / 10
    const peaks = rss.map((r) => mib(r.stop()))
    const dropped = held.filter((h) => h.open && h.lost !== undefined)
    const received = [...answered.keys()].filter((id) => heard.arrivals.has(id)).length
    const missing = answered.size - received
    const p99 = percentile(latencies, 99)
    const missed: Array<string> = []
    if (opened.length < held.length) missed.push(`${held.length - opened.length} streams did not open`)
    if (missing > 0) missed.push(`${missing} events missing`)
    if (!(p99 < streamTargets.maxP99Ms)) missed.push(`p99 ≥ ${streamTargets.maxP99Ms} ms`)
    if (peaks.some((peak) => peak >= streamTargets.maxRssMiB)) missed.push(`RSS ≥ ${streamTargets.maxRssMiB} MB`)
    if (dropped.length > 0) missed.push(`${dropped.length} streams dropped`)
    if (replyFailures.length > 0) missed.push(`${replyFailures.length} replies failed`)
    if (heard.duplicates > 0) missed.push(`${heard.duplicates} duplicate events`)
    if (heard.misrouted > 0) missed.push(`${heard.misrouted} events on another ticket's stream`)
    return {
      instances: count,
      streamsRequested: held.length,
      streamsOpened: opened.length,
      openFailures: tally(failures),
      openSeconds,
      repliesPerMinute: options.repliesPerMinute,
      seconds: options.seconds,
      repliesSent: total,
      replies201: answered.size,
      replyFailures: tally(replyFailures),
      repliesRetried: retried,
      replyP99Ms: round(percentile(replyTimes, 99)),
      eventsReceived: received,
      missing,
      duplicates: heard.duplicates,
      misrouted: heard.misrouted,
      eventsBefore201: early,
      latencyMs: {
        p50: round(percentile(latencies, 50)),
        p90: round(percentile(latencies, 90)),
        p99: round(p99),
        max: round(latencies.at(-1) ?? NaN)
      },
      keepAlives: heard.keepAlives,
      streamsDropped: dropped.length,
      dropReasons: tally(dropped.map((h) => h.lost!)),
      rssMiB: services.map((s, i) => ({
        before: rssBefore[i]!,
        open: rssOpen[i]!,
        peak: peaks[i]!,
        hwm: mib(memoryKiB(s.pid)?.hwm ?? 0)
      })),
      serverCpuPercent,
      loadGeneratorCpuPercent,
      loadAverage: Math.round(loadavg()[0]! * 100) / 100,
      cpuPressurePercent,
      serverLog: services.map((s, i) => s.outputSince(logMarks[i]!).slice(-2000)),
      missed
    }
  } finally {
    for (const r of rss) r.stop()
    for (const h of held) {
      h.closing = true
      h.req?.destroy()
    }
    for (const agent of [...streamAgents, ...replyAgents]) agent.destroy()
  }
}

/**
 * The whole scenario on a scratch database of the PostgreSQL server at `serverUrl`: the tickets
 * made through one instance, then a run on a fresh instance, then one on two fresh instances.
 */
export const benchStreams = async (options: {
  readonly root: string
  readonly serverUrl: string
  readonly serviceEnv: Readonly<Record<string, string>>
  readonly adminToken: string
  readonly streams: number
  readonly repliesPerMinute: number
  readonly seconds: number
}): Promise<StreamsResult> => {
  const limit = openFileLimit()
  // this process holds every stream; a service at most as many
  const streams = Math.max(1, Math.min(options.streams, limit - fdReserve))
  if (streams < options.streams) {
    console.log(
      `  !! ulimit -n is ${limit}: ${streams} streams instead of ${options.streams} (raise it to ${options.streams + fdReserve} or more for all)`
    )
  }
  const database = await createScratchDatabase(options.serverUrl)
  console.log(`  scratch database ${database.name}`)
  const env = { ...options.serviceEnv, DATABASE_URL: database.url }
  const running: Array<Service> = []
  const start = async () => {
    const service = await startService(options.root, env)
    running.push(service)
    return service
  }
  const stopAll = async () => {
    for (const service of running.splice(0)) {
      const stopped = await service.stop()
      if (stopped.killed) console.log("  !! the service ignored SIGTERM for 10 s and was killed")
    }
  }
  try {
    const first = await start()
    const project = await expect<{ project_id: string; api_key: string }>(
      call(new Agent(), first.baseUrl, "POST", "/v1/admin/projects", options.adminToken, { name: "bench streams" }),
      201,
      "POST /v1/admin/projects"
    )
    const probeTicket = await createTickets(first.baseUrl, project.api_key, 1)
    const ticketStream = await probe(first.baseUrl, streamPath("ticket", probeTicket[0]!), project.api_key)
    let endpoint: Endpoint = "ticket"
    let count = streams
    if (!ticketStream.ok) {
      const projectStream = await probe(first.baseUrl, streamPath("project", ""), project.api_key)
      if (!projectStream.ok) throw new Error(`neither event stream answers: ticket ${ticketStream.detail}; project ${projectStream.detail}`)
      endpoint = "project"
      count = Math.min(streams, projectStreamCap)
      console.log(
        `  !! GET /v1/tickets/:id/events answers ${ticketStream.detail}; the project stream GET /v1/events stands in, ` +
          `with ${count} streams (it sends every reply to every stream)`
      )
    }
    const createStarted = performance.now()
    const ticketIds = await createTickets(first.baseUrl, project.api_key, count)
    const createSeconds = Math.round((performance.now() - createStarted) / 100) / 10
    console.log(`  ${count} tickets created in ${createSeconds} s; waiting for their jobs`)
    await waitUntilIdle(first.pid, 300_000)
    await stopAll()

    const runs: Array<StreamsRun> = []
    for (const instances of [1, 2]) {
      console.log(`  ${count} streams on ${instances === 1 ? "one instance" : "two instances"}, ${options.repliesPerMinute} replies a minute for ${options.seconds} s`)
      // fresh processes, so each run's memory is its own
      const services: Array<Service> = []
      for (let i = 0; i < instances; i++) services.push(await start())
      await Promise.all(services.map((s) => waitUntilIdle(s.pid)))
      try {
        runs.push(await runStreams({
          services,
          ticketIds,
          apiKey: project.api_key,
          projectId: project.project_id,
          adminToken: options.adminToken,
          endpoint,
          repliesPerMinute: options.repliesPerMinute,
          seconds: options.seconds
        }))
      } finally {
        await stopAll()
      }
    }
    return {
      endpoint: endpoint === "ticket" ? "GET /v1/tickets/:id/events" : "GET /v1/events (stand-in)",
      streams: count,
      streamsAsked: options.streams,
      openFileLimit: limit,
      tickets: count,
      createSeconds,
      repliesPerMinute: options.repliesPerMinute,
      seconds: options.seconds,
      targets: streamTargets,
      runs
    }
  } catch (error) {
    const last = running.at(-1)
    if (last !== undefined) console.error(`  service output before the failure:\n${last.output().slice(-3000)}`)
    throw error
  } finally {
    await stopAll()
    await database.drop()
  }
}

export const printStreams = (result: StreamsResult) => {
  console.log(
    `\nTicket streams on PostgreSQL: ${result.streams} streams (${result.endpoint}), ` +
      `${result.repliesPerMinute} agent replies a minute for ${result.seconds} s; latency = reply's 201 → its event on the ticket's stream`
  )
  const cols: ReadonlyArray<readonly [string, number, (r: StreamsRun) => string | number]> = [
    ["instances", -10, (r) => r.instances],
    ["open", 6, (r) => r.streamsOpened],
    ["open s", 7, (r) => r.openSeconds],
    ["replies", 8, (r) => r.replies201],
    ["events", 7, (r) => r.eventsReceived],
    ["missing", 8, (r) => r.missing],
    ["p50 ms", 7, (r) => r.latencyMs.p50],
    ["p99 ms", 7, (r) => r.latencyMs.p99],
    ["max ms", 7, (r) => r.latencyMs.max],
    ["dropped", 8, (r) => r.streamsDropped],
    ["peak RSS MB", 14, (r) => r.rssMiB.map((m) => m.peak.toFixed(1)).join(" / ")],
    ["srv CPU%", 9, (r) => r.serverCpuPercent.join(" / ")],
    ["load", 5, (r) => r.loadAverage.toFixed(1)],
    ["cpu wait%", 10, (r) => Number.isNaN(r.cpuPressurePercent) ? "?" : r.cpuPressurePercent],
    ["  target", -32, () => `  p99 < ${streamTargets.maxP99Ms} ms, RSS < ${streamTargets.maxRssMiB} MB`],
    ["met", 0, (r) => r.missed.length === 0 ? "yes" : `NO (${r.missed.join(", ")})`]
  ]
  const line = (texts: ReadonlyArray<string | number>) =>
    texts.map((text, i) => {
      const width = cols[i]![1]
      return width >= 0 ? String(text).padStart(width) : String(text).padEnd(-width)
    }).join(" ")
  const header = line(cols.map((c) => c[0]))
  console.log(header)
  console.log("-".repeat(header.length + 20))
  for (const r of result.runs) console.log(line(cols.map((c) => c[2](r))))
  console.log("cpu wait% = share of the replies' time in which some process waited for a core (/proc/pressure/cpu, others' work included)")
  console.log("two instances: streams alternate between A and B, each reply goes to the one not holding its stream; RSS and CPU per instance (A / B)")
  for (const r of result.runs) {
    const on = `on ${r.instances} instance${r.instances === 1 ? "" : "s"}`
    console.log(
      `${on}: RSS before the streams ${r.rssMiB.map((m) => m.before.toFixed(1)).join(" / ")} MB, with them all open ${
        r.rssMiB.map((m) => m.open.toFixed(1)).join(" / ")
      } MB; reply 201 p99 ${r.replyP99Ms} ms${
        r.repliesRetried > 0 ? ` (${r.repliesRetried} sent again after a reset kept-alive socket)` : ""
      }; ${r.keepAlives} keep-alives heard; this process ${r.loadGeneratorCpuPercent}% CPU`
    )
    if (r.eventsBefore201 > 0) console.log(`note ${on}: ${r.eventsBefore201} events arrived before their reply's 201 (counted as 0 ms)`)
    for (const [reason, n] of Object.entries(r.openFailures)) console.log(`!!!!!! ${on}: ${n} streams did not open: ${reason}`)
    for (const [reason, n] of Object.entries(r.dropReasons)) console.log(`!!!!!! ${on}: ${n} streams dropped: ${reason}`)
    for (const [reason, n] of Object.entries(r.replyFailures)) console.log(`!!!!!! ${on}: ${n} replies failed: ${reason}`)
    r.serverLog.forEach((log, i) => {
      if (log.trim() !== "") console.log(`note ${on}: instance ${"AB"[i]} logged (last lines):\n${log.trim().split("\n").slice(-10).join("\n")}`)
    })
  }
}
