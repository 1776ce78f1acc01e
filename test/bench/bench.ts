/**
 * Load benchmark: starts the service as its own process on each database (embedded PGlite always,
 * PostgreSQL when DATABASE_URL is set), seeds 10,000 help-centre articles, and drives four
 * scenarios with autocannon while watching the server's memory.
 *
 *   npm run bench
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench
 *
 * Then, on PostgreSQL, the pipeline: how soon after a 10 s burst of tickets at full speed its
 * jobs are done and its deliveries arrived, and the highest steady creation rate at which triage
 * and delivery keep a p99 lag under 1 s for BENCH_STEADY_SECONDS (60). Then the ticket streams
 * (streams.ts): BENCH_STREAMS (10,000) ticket event streams held open while agents reply to 1,000
 * tickets a minute for BENCH_STREAMS_SECONDS (60), on one instance and on two. Then inbound mail
 * (email.ts), on each database: BENCH_EMAIL_MESSAGES mails (2,000 on PostgreSQL, 500 on PGlite)
 * over BENCH_EMAIL_SENDERS (8) SMTP connections to the service's SMTP listener, each mail checked
 * in the database afterwards (BENCH_EMAIL_PROJECTS spreads them over several projects, a diagnosis).
 * Then the ticket lists (lists.ts), on each database: the operator's and a contact's lists with
 * BENCH_LIST_TICKETS (100,000) tickets in the project; BENCH_SERVICE_ROOT measures another checkout,
 * and BENCH_LISTS_AGAINST=<checkout> compares this build with it side by side, BENCH_LISTS_ROUNDS (4)
 * rounds of BENCH_LIST_SECONDS (10; 5 is enough side by side) a list and build.
 * BENCH_ONLY=http|pipeline|streams|email|lists runs one part; BENCH_DATABASE=pglite|postgres one database.
 *
 * It is a measurement: missed targets are reported, not failed. It exits non-zero only when the
 * service does not start or a scenario sees errors or non-2xx responses.
 */
import autocannon, { type Request, type Result } from "autocannon"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { generateArticles, searchQueries, ticketPayload } from "./corpus.ts"
import { benchPipeline, printPipeline } from "./pipeline.ts"
import { createScratchDatabase, seedPglite, seedPostgres } from "./seed.ts"
import { benchStreams, printStreams, type StreamsResult } from "./streams.ts"
import { benchEmail, emailFailed, type EmailResult, printEmail } from "./email.ts"
import {
  benchLists,
  compareLists,
  listsFailed,
  type ListsComparison,
  type ListsResult,
  printLists,
  printListsComparison
} from "./lists.ts"
import { cpuSeconds, memoryKiB, requestJson, sampleRss, type Service, startService, waitUntilIdle } from "./service.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const adminToken = "bench-admin-token"
const articleCount = 10_000
const ticketPoolSize = 200
const connections = 50
const warmupSeconds = 2
const durationSeconds = 10

const serviceEnv = {
  ADMIN_TOKEN: adminToken,
  // the default budget (100 a minute per key) would turn nearly every request into a 429
  RATE_LIMIT_PER_MINUTE: "100000000",
  // Effect's log levels are ALL, FATAL, ERROR, WARN, INFO, DEBUG, TRACE, OFF: "warning" is refused
  LOG_LEVEL: "warn",
  // the pipeline figures deliver webhooks to a receiver in this process, on loopback
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true"
}

const only = process.env.BENCH_ONLY as "http" | "pipeline" | "streams" | "email" | "lists" | undefined
/** The pipeline (PostgreSQL only): a burst at full speed, then steady rates, each this long. */
const burstSeconds = 10
const steadySeconds = Number(process.env.BENCH_STEADY_SECONDS ?? 60)
/** The ticket streams (PostgreSQL only): how many held open, and agent replies a minute for how long. */
const streamCount = Number(process.env.BENCH_STREAMS ?? 10_000)
const streamRepliesPerMinute = 1_000
const streamSeconds = Number(process.env.BENCH_STREAMS_SECONDS ?? 60)
/** Inbound mail: how many mails (PGlite takes them more slowly), over how many SMTP connections. */
const emailMessages = (kind: DatabaseKind) =>
  Number(process.env.BENCH_EMAIL_MESSAGES ?? (kind === "postgres" ? 2_000 : 500))
const emailSenders = Number(process.env.BENCH_EMAIL_SENDERS ?? 8)
/** A diagnosis, not the scenario: the mails spread over this many projects (1). */
const emailProjects = Number(process.env.BENCH_EMAIL_PROJECTS ?? 1)
/** Neither the seeded service nor its HTTP scenarios: the parts that start services of their own. */
const ownServicesOnly = only === "streams" || only === "email" || only === "lists"
/** The ticket lists: how many tickets the project holds, and each list's measured seconds. */
const listTickets = Number(process.env.BENCH_LIST_TICKETS ?? 100_000)
const listSeconds = Number(process.env.BENCH_LIST_SECONDS ?? 10)
/** Another checkout (built) whose lists are compared with this build's, side by side. */
const listsAgainst = process.env.BENCH_LISTS_AGAINST
const listsRounds = Number(process.env.BENCH_LISTS_ROUNDS ?? 4)

type DatabaseKind = "pglite" | "postgres"

interface Target {
  readonly minRps?: number
  readonly maxP99Ms?: number
}

/** Throughput and latency targets, set for PostgreSQL; every scenario shares the memory target. */
const targets: Record<string, Target> = {
  "health": {},
  "create ticket": { minRps: 800, maxP99Ms: 150 },
  "read ticket": { minRps: 2500, maxP99Ms: 50 },
  "article search": { minRps: 400, maxP99Ms: 400 }
}
const maxRssMiB = 300

interface Scenario {
  readonly name: string
  readonly requests: ReadonlyArray<Request>
}

interface ScenarioResult {
  readonly name: string
  readonly requestsPerSecond: number
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
  readonly ok: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly statusCodes: Record<string, number>
  readonly errorSamples: ReadonlyArray<string>
  readonly peakRssMiB: number
  /** server CPU time over the measured run, in % of one core: near 100 means the event loop was the limit */
  readonly serverCpuPercent: number
  /** this process's CPU (autocannon) over the run, in % of one core: it shares the 2 cores with the server */
  readonly loadGeneratorCpuPercent: number
  /** the machine's 1-minute load average after the run: above 2 (cores), others were competing for CPU */
  readonly loadAverage: number
  /** how long the server took to go quiet before this scenario started */
  readonly settleMs: number
  /** what the server logged (at warn level) while the scenario ran: entries counted, and the last few */
  readonly serverLog: { readonly counts: Record<string, number>; readonly tail: string }
  readonly missed: ReadonlyArray<string>
}

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10

const scenarios = (apiKey: string, ticketIds: ReadonlyArray<string>): ReadonlyArray<Scenario> => {
  const auth = { authorization: `Bearer ${apiKey}` }
  // counters shared by all connections, so consecutive requests differ across the whole run
  let ticket = 0
  let read = 0
  let search = 0
  return [
    { name: "health", requests: [{ method: "GET", path: "/health" }] },
    {
      name: "create ticket",
      requests: [{
        method: "POST",
        path: "/v1/tickets",
        headers: { ...auth, "content-type": "application/json" },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(ticketPayload(ticketPoolSize + ++ticket)) })
      }]
    },
    {
      name: "read ticket",
      requests: [{
        method: "GET",
        headers: auth,
        setupRequest: (request) => ({ ...request, path: `/v1/tickets/${ticketIds[read++ % ticketIds.length]!}` })
      }]
    },
    {
      name: "article search",
      requests: [{
        method: "GET",
        headers: auth,
        setupRequest: (request) => {
          const q = new URLSearchParams({ q: searchQueries[search++ % searchQueries.length]!, limit: "10" })
          return { ...request, path: `/v1/articles/search?${q}` }
        }
      }]
    }
  ]
}

const fire = async (url: string, scenario: Scenario, duration: number) => {
  const errorSamples = new Set<string>()
  const instance = autocannon({ url, connections, duration, requests: scenario.requests })
  instance.on("reqError", (error) => {
    if (errorSamples.size < 5) errorSamples.add(String(error))
  })
  const result: Result = await instance
  return { result, errorSamples: [...errorSamples] }
}

const missedTargets = (name: string, rps: number, p99: number, peakRssMiB: number) => {
  const target = targets[name] ?? {}
  const missed: Array<string> = []
  if (target.minRps !== undefined && rps < target.minRps) missed.push(`req/s < ${target.minRps}`)
  if (target.maxP99Ms !== undefined && p99 >= target.maxP99Ms) missed.push(`p99 ≥ ${target.maxP99Ms} ms`)
  if (peakRssMiB >= maxRssMiB) missed.push(`RSS ≥ ${maxRssMiB} MB`)
  return missed
}

/**
 * Effect's logger writes `[time] LEVEL (#fiber): message` and then indented details; entries are
 * counted by level, message and first detail, as a run can log the same failure hundreds of times.
 */
const summariseLog = (log: string): Map<string, number> => {
  const counts = new Map<string, number>()
  // without colour codes, in case the logger believes it writes to a terminal
  const lines = log.replace(/\x1b\[[0-9;]*m/g, "").split("\n")
  lines.forEach((line, i) => {
    const entry = /^\[[\d:.]+\] ([A-Z]+) \(#\d+\): ?(.*)$/.exec(line)
    if (entry === null) return
    const key = `${entry[1]} "${entry[2]}${lines[i + 1]?.startsWith("  ") ? `: ${lines[i + 1]!.trim()}` : ""}"`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  })
  // output the logger did not format (a crash, a stray console.log) still deserves a mention
  if (counts.size === 0 && log.trim() !== "") counts.set(`unformatted output: ${log.trim().slice(-500)}`, 1)
  return counts
}

const runScenario = async (service: Service, scenario: Scenario): Promise<ScenarioResult> => {
  const settleMs = await waitUntilIdle(service.pid)
  const logMark = service.outputMark()
  // memory is sampled over the warm-up too: it is load the server had to hold all the same
  const rss = sampleRss(service.pid)
  await fire(service.baseUrl, scenario, warmupSeconds)
  const cpuBefore = cpuSeconds(service.pid)
  const ownCpuBefore = process.cpuUsage()
  const started = Date.now()
  const { result, errorSamples } = await fire(service.baseUrl, scenario, durationSeconds)
  const elapsedSeconds = (Date.now() - started) / 1000
  const serverCpuPercent = Math.round(((cpuSeconds(service.pid) - cpuBefore) / elapsedSeconds) * 100)
  const ownCpu = process.cpuUsage(ownCpuBefore)
  const loadGeneratorCpuPercent = Math.round(((ownCpu.user + ownCpu.system) / 1e6 / elapsedSeconds) * 100)
  const peakRssMiB = mib(rss.stop())
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count])
  )
  const rps = Math.round(result.requests.average)
  const log = service.outputSince(logMark)
  return {
    name: scenario.name,
    requestsPerSecond: rps,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    errorSamples,
    peakRssMiB,
    serverCpuPercent,
    loadGeneratorCpuPercent,
    loadAverage: Math.round(loadavg()[0]! * 100) / 100,
    settleMs,
    serverLog: { counts: Object.fromEntries(summariseLog(log)), tail: log.slice(-2000) },
    missed: missedTargets(scenario.name, rps, result.latency.p99, peakRssMiB)
  }
}

/** Tickets for the read scenario, made a few at a time like a busy help desk would. */
const createTicketPool = async (baseUrl: string, apiKey: string) => {
  const ids: Array<string> = []
  for (let i = 0; i < ticketPoolSize; i += 10) {
    const batch = Array.from({ length: Math.min(10, ticketPoolSize - i) }, (_, j) =>
      requestJson<{ ticket_id: string }>(baseUrl, "POST", "/v1/tickets", apiKey, 202, ticketPayload(i + j)))
    ids.push(...(await Promise.all(batch)).map((created) => created.ticket_id))
  }
  return ids
}

/** How many articles each query matches: search cost grows with it, so it belongs in the report. */
const queryMatches = async (baseUrl: string, apiKey: string) => {
  const totals: Record<string, number> = {}
  for (const q of searchQueries) {
    const found = await requestJson<{ total: number }>(
      baseUrl,
      "GET",
      `/v1/articles/search?${new URLSearchParams({ q, limit: "10" })}`,
      apiKey,
      200
    )
    totals[q] = found.total
  }
  return totals
}

interface Project {
  readonly project_id: string
  readonly api_key: string
}

const createProject = (baseUrl: string) =>
  requestJson<Project>(baseUrl, "POST", "/v1/admin/projects", adminToken, 201, { name: "bench" })

/**
 * Brings up a seeded service on one database and hands it to `use`. For PGlite the database lives
 * inside the server process, so the server is started once to migrate and create the project,
 * stopped while this process writes the articles into the same directory, then started again.
 */
const withSeededService = async <A>(
  kind: DatabaseKind,
  use: (service: Service, project: Project, databaseUrl: string | undefined) => Promise<A>
): Promise<A> => {
  const articles = generateArticles(articleCount)
  if (kind === "pglite") {
    const dataDir = await mkdtemp(join(tmpdir(), "bench-pglite-"))
    const env = { ...serviceEnv, DATA_DIR: dataDir }
    try {
      const first = await startService(root, env)
      const project = await createProject(first.baseUrl).finally(async () => {
        // /health answers while the demo project is still being seeded: let that finish first
        await waitUntilIdle(first.pid)
        await first.stop()
      })
      const started = Date.now()
      await seedPglite(dataDir, project.project_id, articles)
      console.log(`  seeded ${articleCount} articles with SQL in ${((Date.now() - started) / 1000).toFixed(1)} s`)
      const service = await startService(root, env)
      return await useThenStop(service, (s) => use(s, project, undefined))
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }
  const database = await createScratchDatabase(process.env.DATABASE_URL!)
  console.log(`  scratch database ${database.name}`)
  try {
    const service = await startService(root, { ...serviceEnv, DATABASE_URL: database.url })
    return await useThenStop(service, async (s) => {
      const project = await createProject(s.baseUrl)
      const started = Date.now()
      await seedPostgres(database.url, project.project_id, articles)
      console.log(`  seeded ${articleCount} articles with SQL in ${((Date.now() - started) / 1000).toFixed(1)} s`)
      return use(s, project, database.url)
    })
  } finally {
    await database.drop()
  }
}

const useThenStop = async <A>(service: Service, use: (service: Service) => Promise<A>): Promise<A> => {
  try {
    return await use(service)
  } catch (error) {
    // the server's own last words usually say more than the client's "fetch failed"
    console.error(`  service output before the failure:\n${service.output().slice(-3000)}`)
    throw error
  } finally {
    const stopped = await service.stop()
    if (stopped.killed) console.log("  !! the service ignored SIGTERM for 10 s and was killed")
  }
}

const targetText = (name: string) => {
  const target = targets[name] ?? {}
  return [
    target.minRps === undefined ? undefined : `≥ ${target.minRps} req/s`,
    target.maxP99Ms === undefined ? undefined : `p99 < ${target.maxP99Ms} ms`,
    `RSS < ${maxRssMiB} MB`
  ].filter((part) => part !== undefined).join(", ")
}

interface Column {
  readonly title: string
  /** positive: right-aligned (figures); negative: left-aligned (words) */
  readonly width: number
  readonly cell: (r: ScenarioResult) => string | number
}

const columns = (kind: DatabaseKind): ReadonlyArray<Column> => [
  { title: "scenario", width: -15, cell: (r) => r.name },
  { title: "req/s", width: 7, cell: (r) => r.requestsPerSecond },
  { title: "p50 ms", width: 7, cell: (r) => r.latencyMs.p50 },
  { title: "p99 ms", width: 7, cell: (r) => r.latencyMs.p99 },
  { title: "non-2xx", width: 8, cell: (r) => r.non2xx },
  { title: "errors", width: 7, cell: (r) => r.errors },
  { title: "peak RSS MB", width: 12, cell: (r) => r.peakRssMiB.toFixed(1) },
  { title: "srv CPU%", width: 9, cell: (r) => r.serverCpuPercent },
  { title: "load", width: 5, cell: (r) => r.loadAverage.toFixed(1) },
  { title: kind === "pglite" ? "  target (targets are for PostgreSQL)" : "  target", width: -42, cell: (r) => `  ${targetText(r.name)}` },
  { title: "met", width: 0, cell: (r) => r.missed.length === 0 ? "yes" : `NO (${r.missed.join(", ")})` }
]

const row = (texts: ReadonlyArray<string | number>, cols: ReadonlyArray<Column>) =>
  texts.map((text, i) => {
    const width = cols[i]!.width
    return width >= 0 ? String(text).padStart(width) : String(text).padEnd(-width)
  }).join(" ")

const printTable = (kind: DatabaseKind, results: ReadonlyArray<ScenarioResult>, hwmMiB: number) => {
  const title = kind === "pglite" ? "PGlite (embedded)" : "PostgreSQL"
  console.log(`\n${title}: ${articleCount} articles, ${connections} connections, ${durationSeconds} s per scenario after ${warmupSeconds} s warm-up`)
  const cols = columns(kind)
  const header = row(cols.map((c) => c.title), cols)
  console.log(header)
  console.log("-".repeat(header.length + 20))
  for (const r of results) console.log(row(cols.map((c) => c.cell(r)), cols))
  console.log("srv CPU% = the server process over the measured run (100 = one core); load = 1-minute load average (2 cores); MB = MiB")
  console.log(`VmHWM (peak RSS since the server started) at the end: ${hwmMiB.toFixed(1)} MB`)
  for (const r of results) {
    if (r.settleMs > 2000) console.log(`note: before "${r.name}" the server stayed busy for ${(r.settleMs / 1000).toFixed(0)} s with earlier work`)
    for (const [entry, count] of Object.entries(r.serverLog.counts)) console.log(`note: during "${r.name}" the server logged ${count}× ${entry}`)
  }
  for (const r of results.filter((r) => r.errors > 0 || r.non2xx > 0)) {
    console.log(`\n!!!!!! ERRORS in "${r.name}" on ${title}: ${r.non2xx} non-2xx responses, ${r.errors} errors (${r.timeouts} timeouts)`)
    console.log(`!!!!!! status codes: ${JSON.stringify(r.statusCodes)}`)
    for (const sample of r.errorSamples) console.log(`!!!!!! ${sample}`)
  }
}

const benchDatabase = async (kind: DatabaseKind) => {
  if (!ownServicesOnly) console.log(`\n== ${kind}: starting and seeding`)
  const startLoad = loadavg()
  const skipped = { results: [], idleRssMiB: 0, hwmMiB: 0, matches: {} as Record<string, number>, pipeline: undefined }
  const { results, idleRssMiB, hwmMiB, matches, pipeline } = ownServicesOnly ? skipped : await withSeededService(kind, async (service, project, databaseUrl) => {
    const idleRssMiB = mib(memoryKiB(service.pid)?.rss ?? 0)
    const ticketIds = await createTicketPool(service.baseUrl, project.api_key)
    const matches = await queryMatches(service.baseUrl, project.api_key)
    const results: Array<ScenarioResult> = []
    for (const scenario of only === "pipeline" ? [] : scenarios(project.api_key, ticketIds)) {
      console.log(`  running "${scenario.name}"`)
      results.push(await runScenario(service, scenario))
    }
    // the pipeline's figures need the jobs table, which only a database server shares with this process
    if (only === "http" || databaseUrl === undefined) {
      return { results, idleRssMiB, hwmMiB: mib(memoryKiB(service.pid)?.hwm ?? 0), matches, pipeline: undefined }
    }
    console.log(
      `  running the pipeline: a ${burstSeconds} s burst, then steady rates for ${steadySeconds} s each`
    )
    const pipeline = await benchPipeline({
      service,
      apiKey: project.api_key,
      projectId: project.project_id,
      adminToken,
      databaseUrl,
      burstSeconds,
      steadySeconds,
      steady: true
    })
    return { results, idleRssMiB, hwmMiB: mib(memoryKiB(service.pid)?.hwm ?? 0), matches, pipeline }
  })
  if (!ownServicesOnly) {
    printTable(kind, results, hwmMiB)
    if (pipeline !== undefined) printPipeline(kind, pipeline)
    console.log(`RSS of the seeded server before any load: ${idleRssMiB.toFixed(1)} MB`)
    const counts = Object.values(matches)
    console.log(`search queries match ${Math.min(...counts)}–${Math.max(...counts)} articles each`)
  }
  // on a scratch database of its own, with fresh service processes (the seeded one has stopped)
  let streams: StreamsResult | { readonly error: string } | undefined
  if (kind === "postgres" && (only === undefined || only === "streams")) {
    console.log(`\n== ${kind}: ticket streams`)
    try {
      streams = await benchStreams({
        root,
        serverUrl: process.env.DATABASE_URL!,
        serviceEnv,
        adminToken,
        streams: streamCount,
        repliesPerMinute: streamRepliesPerMinute,
        seconds: streamSeconds
      })
      printStreams(streams)
    } catch (error) {
      const cause = error instanceof Error && error.cause !== undefined ? ` (${String(error.cause)})` : ""
      streams = { error: `${error instanceof Error ? error.message : String(error)}${cause}` }
      console.error(`\n!!!!!! ${kind}: the ticket streams could not run: ${streams.error}`)
    }
  }
  // inbound mail over SMTP, on a fresh service and database of its own
  let email: EmailResult | { readonly error: string } | undefined
  if (only === undefined || only === "email") {
    console.log(`\n== ${kind}: inbound mail over SMTP`)
    try {
      email = await benchEmail({
        root,
        kind,
        serverUrl: process.env.DATABASE_URL,
        serviceEnv,
        adminToken,
        messages: emailMessages(kind),
        senders: emailSenders,
        projects: emailProjects,
        maxRssMiB
      })
      printEmail(email, maxRssMiB)
    } catch (error) {
      const cause = error instanceof Error && error.cause !== undefined ? ` (${String(error.cause)})` : ""
      email = { error: `${error instanceof Error ? error.message : String(error)}${cause}` }
      console.error(`\n!!!!!! ${kind}: inbound mail could not run: ${email.error}`)
    }
  }

  // the lists with 100,000 tickets in the project, on a fresh service and database of their own
  let lists: ListsResult | ListsComparison | { readonly error: string } | undefined
  if (only === undefined || only === "lists") {
    console.log(`\n== ${kind}: ticket lists with ${listTickets} tickets`)
    const listsOptions = {
      root,
      kind,
      serverUrl: process.env.DATABASE_URL,
      serviceEnv,
      adminToken,
      tickets: listTickets,
      seconds: listSeconds,
      connections: 10
    }
    try {
      if (listsAgainst === undefined) {
        const measured = await benchLists(listsOptions)
        printLists(measured)
        lists = measured
      } else {
        const compared = await compareLists({ ...listsOptions, otherRoot: listsAgainst, rounds: listsRounds })
        printListsComparison(compared)
        lists = compared
      }
    } catch (error) {
      const cause = error instanceof Error && error.cause !== undefined ? ` (${String(error.cause)})` : ""
      lists = { error: `${error instanceof Error ? error.message : String(error)}${cause}` }
      console.error(`\n!!!!!! ${kind}: the ticket lists could not run: ${lists.error}`)
    }
  }

  await mkdir(join(root, ".bench"), { recursive: true })
  const file = join(root, ".bench", `results-${kind}.json`)
  await writeFile(file, JSON.stringify({
    database: kind,
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadAverageAtStart: startLoad,
    articles: articleCount,
    connections,
    warmupSeconds,
    durationSeconds,
    targetsAreFor: "postgres",
    targets,
    maxRssMiB,
    searchMatches: matches,
    idleRssMiB,
    vmHwmMiB: hwmMiB,
    scenarios: results,
    pipeline,
    streams,
    email,
    lists
  }, null, 2) + "\n")
  console.log(`results written to ${file}`)
  return results.some((r) => r.errors > 0 || r.non2xx > 0) ||
    (pipeline !== undefined && pipeline.burst.workedOffSeconds === undefined) ||
    (streams !== undefined && "error" in streams) ||
    (email !== undefined && ("error" in email || emailFailed(email))) ||
    (lists !== undefined && ("error" in lists || listsFailed(lists)))
}

const main = async () => {
  const kinds = (process.env.DATABASE_URL ? ["pglite", "postgres"] as const : ["pglite"] as const)
    .filter((kind) => process.env.BENCH_DATABASE === undefined || process.env.BENCH_DATABASE === kind)
    // the ticket streams run on PostgreSQL only
    .filter((kind) => only !== "streams" || kind === "postgres")
  if (kinds.length === 0) {
    console.error("!!!!!! nothing to run: BENCH_ONLY=streams needs DATABASE_URL (PostgreSQL)")
    process.exitCode = 1
    return
  }
  let failed = false
  for (const kind of kinds) {
    try {
      if (await benchDatabase(kind)) failed = true
    } catch (error) {
      const cause = error instanceof Error && error.cause !== undefined ? ` (${String(error.cause)})` : ""
      console.error(`\n!!!!!! ${kind}: the benchmark could not run: ${error instanceof Error ? error.message : String(error)}${cause}`)
      failed = true
    }
  }
  process.exitCode = failed ? 1 : 0
}

await main()
