/**
 * The ticket lists with 100,000 tickets in the project: the operator's list (newest first, by
 * status, by tag, recently updated, a later page, full text) and a contact's list through the
 * public API, each driven by autocannon on a fresh service. The tickets are written with SQL, as
 * the articles of the main benchmark are: a list's cost depends on the table, not on how it filled.
 *
 * BENCH_SERVICE_ROOT runs the service of another checkout (built with `npm run build`) under the
 * same load, which is how the figures of two commits are compared. BENCH_LISTS_AGAINST=<checkout>
 * compares more finely: both services run side by side, each on its own seeded database, and are
 * driven in turn, list by list, for several rounds, with each one's CPU time a request read from
 * /proc; a machine whose speed drifts between runs then drifts under both alike.
 */
import autocannon, { type Request, type Result } from "autocannon"
import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Pg from "pg"
import { createScratchDatabase } from "./seed.ts"
import { cpuSeconds, requestJson, type Service, startService, waitUntilIdle } from "./service.ts"

type DatabaseKind = "pglite" | "postgres"

export interface ListsOptions {
  readonly root: string
  readonly kind: DatabaseKind
  readonly serverUrl: string | undefined
  readonly serviceEnv: Readonly<Record<string, string>>
  readonly adminToken: string
  readonly tickets: number
  readonly seconds: number
  readonly connections: number
}

export interface ListResult {
  readonly name: string
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly non2xx: number
  readonly errors: number
}

export interface ListsResult {
  readonly kind: DatabaseKind
  readonly tickets: number
  readonly serviceRoot: string
  readonly seedSeconds: number
  readonly scenarios: ReadonlyArray<ListResult>
}

const contacts = 1_000
const statuses = ["open", "in_progress", "waiting", "resolved", "closed"]

/**
 * Every ticket of the project in one statement: numbers 1..n a minute apart, statuses, priorities
 * and categories in turn, a thousand senders, one ticket in five tagged `vip` and one in fifty
 * `refund`, then ANALYZE as autovacuum would soon after such a load. Only columns that every
 * migration since the first has, so the same seed serves an older checkout.
 */
const seedStatements = (projectId: string, tickets: number) => [
  `INSERT INTO contacts (project_id, email, name)
   SELECT '${projectId}', 'contact' || i || '@example.com', 'Contact ' || i FROM generate_series(0, ${contacts - 1}) AS i`,
  `INSERT INTO tags (project_id, name) VALUES ('${projectId}', 'vip'), ('${projectId}', 'refund')`,
  `INSERT INTO tickets (project_id, ticket_number, subject, body, status, priority, category, source, sender_email,
     contact_id, triage_status, created_at, updated_at)
   SELECT '${projectId}', i,
     'Ticket ' || i || CASE WHEN i % 50 = 0 THEN ' refund request' ELSE ' login trouble' END,
     'The customer of ticket ' || i || ' writes about ' || CASE WHEN i % 50 = 0 THEN 'a refund for an invoice' ELSE 'signing in' END,
     (ARRAY['${statuses.join("','")}'])[1 + i % 5],
     (ARRAY['p1_critical','p2_high','p3_medium','p4_low'])[1 + i % 4],
     (ARRAY['billing','bug','account','feature_request','question','other'])[1 + i % 6],
     'api', 'contact' || (i % ${contacts}) || '@example.com',
     (SELECT c.id FROM contacts c WHERE c.project_id = '${projectId}' AND c.email = 'contact' || (i % ${contacts}) || '@example.com'),
     'done',
     now() - make_interval(mins => ${tickets} - i),
     now() - make_interval(mins => ${tickets} - i) + make_interval(secs => (i * 7919) % 3600)
   FROM generate_series(1, ${tickets}) AS i`,
  `INSERT INTO ticket_tags (ticket_id, tag_id)
   SELECT t.id, g.id FROM tickets t JOIN tags g ON g.project_id = t.project_id
   WHERE t.project_id = '${projectId}'
     AND ((g.name = 'vip' AND t.ticket_number % 5 = 0) OR (g.name = 'refund' AND t.ticket_number % 50 = 0))`,
  `UPDATE projects SET ticket_seq = ${tickets} WHERE id = '${projectId}'`,
  `ANALYZE`
]

type Query = (text: string) => Promise<unknown>

const seed = async (query: Query, projectId: string, tickets: number) => {
  for (const statement of seedStatements(projectId, tickets)) await query(statement)
}

interface Project {
  readonly project_id: string
  readonly api_key: string
}

/** A service on a fresh database holding a project with `tickets` tickets. */
const withTickets = async <A>(
  options: ListsOptions,
  use: (service: Service, project: Project) => Promise<A>,
  root = process.env.BENCH_SERVICE_ROOT ?? options.root
) => {
  const createProject = (service: Service) =>
    requestJson<Project>(service.baseUrl, "POST", "/v1/admin/projects", options.adminToken, 201, { name: "lists" })
  const started = Date.now()
  const run = async (service: Service, project: Project) => {
    try {
      return await use(service, project)
    } finally {
      await service.stop()
    }
  }
  if (options.kind === "pglite") {
    const dataDir = await mkdtemp(join(tmpdir(), "bench-lists-"))
    const env = { ...options.serviceEnv, DATA_DIR: dataDir }
    try {
      const first = await startService(root, env)
      const project = await createProject(first).finally(async () => {
        await waitUntilIdle(first.pid)
        await first.stop()
      })
      // the embedded database belongs to one process at a time: seeded while the service is stopped
      const db = await PGlite.create(dataDir, { extensions: { pg_trgm } })
      try {
        await seed((text) => db.exec(text), project.project_id, options.tickets)
      } finally {
        await db.close()
      }
      const seedSeconds = (Date.now() - started) / 1000
      return { seedSeconds, value: await run(await startService(root, env), project) }
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  }
  const database = await createScratchDatabase(options.serverUrl!)
  try {
    const service = await startService(root, { ...options.serviceEnv, DATABASE_URL: database.url })
    const project = await createProject(service)
    const client = new Pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      await seed((text) => client.query(text), project.project_id, options.tickets)
    } finally {
      await client.end()
    }
    const seedSeconds = (Date.now() - started) / 1000
    return { seedSeconds, value: await run(service, project) }
  } finally {
    await database.drop()
  }
}

const measure = async (baseUrl: string, name: string, requests: Array<Request>, options: ListsOptions): Promise<ListResult> => {
  const fire = async (duration: number): Promise<Result> =>
    await autocannon({ url: baseUrl, connections: options.connections, duration, requests })
  await fire(2)
  const result = await fire(options.seconds)
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors
  }
}

/** The lists, each a name and what autocannon asks for it, in a project of the service. */
const listScenarios = async (service: Service, project: Project, adminToken: string) => {
  const admin = { authorization: `Bearer ${adminToken}` }
  const key = { authorization: `Bearer ${project.api_key}` }
  const list = `/v1/admin/projects/${project.project_id}/tickets`
  const first = await requestJson<{ next_cursor: string }>(service.baseUrl, "GET", `${list}?limit=25`, adminToken, 200)
  let contact = 0
  const scenarios: ReadonlyArray<readonly [string, Array<Request>]> = [
    ["newest 25", [{ method: "GET", path: `${list}?limit=25`, headers: admin }]],
    ["by status", [{ method: "GET", path: `${list}?status=waiting&limit=25`, headers: admin }]],
    ["by tag", [{ method: "GET", path: `${list}?tag=refund&limit=25`, headers: admin }]],
    ["updated", [{ method: "GET", path: `${list}?sort=updated&limit=25`, headers: admin }]],
    ["next page", [{ method: "GET", path: `${list}?limit=25&cursor=${encodeURIComponent(first.next_cursor)}`, headers: admin }]],
    ["text", [{ method: "GET", path: `${list}?q=refund&limit=25`, headers: admin }]],
    ["contact's", [{
      method: "GET",
      headers: key,
      setupRequest: (request) => ({
        ...request,
        path: `/v1/tickets?contact_email=contact${contact++ % contacts}%40example.com&limit=10`
      })
    }]]
  ]
  return scenarios
}

export const benchLists = (options: ListsOptions): Promise<ListsResult> =>
  withTickets(options, async (service, project) => {
    const results: Array<ListResult> = []
    for (const [name, requests] of await listScenarios(service, project, options.adminToken)) {
      await waitUntilIdle(service.pid)
      console.log(`  running "${name}"`)
      results.push(await measure(service.baseUrl, name, requests, options))
    }
    return results
  }).then(({ seedSeconds, value }) => ({
    kind: options.kind,
    tickets: options.tickets,
    serviceRoot: process.env.BENCH_SERVICE_ROOT ?? options.root,
    seedSeconds,
    scenarios: value
  }))

/** One list of a side-by-side comparison: each build's req/s and CPU µs a request, round by round. */
export interface ListComparison {
  readonly name: string
  readonly requestsPerSecond: { readonly own: ReadonlyArray<number>; readonly other: ReadonlyArray<number> }
  readonly cpuMicrosPerRequest: { readonly own: ReadonlyArray<number>; readonly other: ReadonlyArray<number> }
  readonly failures: number
}

export interface ListsComparison {
  readonly kind: DatabaseKind
  readonly tickets: number
  readonly otherRoot: string
  readonly rounds: number
  readonly seconds: number
  readonly lists: ReadonlyArray<ListComparison>
}

/**
 * This build and the one at `otherRoot`, side by side on databases seeded alike: every round
 * drives each list on both, one after the other (which goes first alternates), so what the
 * machine does meanwhile weighs on both; the service's CPU time says what a request cost it.
 */
export const compareLists = (options: ListsOptions & { readonly otherRoot: string; readonly rounds: number }) =>
  withTickets(options, (own, ownProject) =>
    withTickets(options, async (other, otherProject) => {
      const builds = {
        own: { service: own, scenarios: await listScenarios(own, ownProject, options.adminToken) },
        other: { service: other, scenarios: await listScenarios(other, otherProject, options.adminToken) }
      }
      await waitUntilIdle(own.pid)
      await waitUntilIdle(other.pid)
      const lists = builds.own.scenarios.map(([name]) => ({
        name,
        requestsPerSecond: { own: [] as Array<number>, other: [] as Array<number> },
        cpuMicrosPerRequest: { own: [] as Array<number>, other: [] as Array<number> },
        failures: 0
      }))
      for (let round = 0; round < options.rounds; round++) {
        console.log(`  round ${round + 1} of ${options.rounds}`)
        for (const [index, list] of lists.entries()) {
          for (const build of round % 2 === 0 ? (["own", "other"] as const) : (["other", "own"] as const)) {
            const { service, scenarios } = builds[build]
            const requests = scenarios[index]![1]
            await autocannon({ url: service.baseUrl, connections: options.connections, duration: 1, requests })
            const before = cpuSeconds(service.pid)
            const result = await autocannon({ url: service.baseUrl, connections: options.connections, duration: options.seconds, requests })
            const used = cpuSeconds(service.pid) - before
            list.requestsPerSecond[build].push(Math.round(result.requests.average))
            list.cpuMicrosPerRequest[build].push(Math.round((used * 1e6) / Math.max(1, result.requests.total)))
            list.failures += result.non2xx + result.errors
          }
        }
      }
      return lists
    }, options.otherRoot).then(({ value }) => value), options.root).then(({ value }): ListsComparison => ({
      kind: options.kind,
      tickets: options.tickets,
      otherRoot: options.otherRoot,
      rounds: options.rounds,
      seconds: options.seconds,
      lists: value
    }))

const mean = (values: ReadonlyArray<number>) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)

export const printListsComparison = (result: ListsComparison) => {
  console.log(`\n${result.kind}: ticket lists with ${result.tickets.toLocaleString("en")} tickets, this build against ${result.otherRoot}, side by side (${result.rounds} rounds of ${result.seconds} s)`)
  console.log(`${"list".padEnd(12)} ${"req/s".padStart(7)} ${"other".padStart(7)} ${"ratio".padStart(6)} ${"CPU µs".padStart(7)} ${"other".padStart(7)} ${"ratio".padStart(6)}`)
  for (const list of result.lists) {
    const own = mean(list.requestsPerSecond.own)
    const other = mean(list.requestsPerSecond.other)
    const ownCpu = mean(list.cpuMicrosPerRequest.own)
    const otherCpu = mean(list.cpuMicrosPerRequest.other)
    console.log(
      `${list.name.padEnd(12)} ${own.toFixed(0).padStart(7)} ${other.toFixed(0).padStart(7)} ${(own / other).toFixed(2).padStart(6)} ` +
        `${ownCpu.toFixed(0).padStart(7)} ${otherCpu.toFixed(0).padStart(7)} ${(ownCpu / otherCpu).toFixed(2).padStart(6)}`
    )
  }
  for (const list of result.lists.filter((list) => list.failures > 0)) {
    console.log(`!!!!!! "${list.name}": ${list.failures} non-2xx responses or errors`)
  }
}

export const printLists = (result: ListsResult) => {
  console.log(`\n${result.kind}: ticket lists with ${result.tickets.toLocaleString("en")} tickets in the project (service of ${result.serviceRoot}; seeded in ${result.seedSeconds.toFixed(0)} s)`)
  console.log(`${"list".padEnd(12)} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)}`)
  for (const s of result.scenarios) {
    console.log(`${s.name.padEnd(12)} ${String(s.requestsPerSecond).padStart(7)} ${String(s.p50Ms).padStart(7)} ${String(s.p99Ms).padStart(7)}`)
  }
  for (const s of result.scenarios.filter((s) => s.non2xx > 0 || s.errors > 0)) {
    console.log(`!!!!!! "${s.name}": ${s.non2xx} non-2xx responses, ${s.errors} errors`)
  }
}

export const listsFailed = (result: ListsResult | ListsComparison) =>
  "scenarios" in result
    ? result.scenarios.some((s) => s.non2xx > 0 || s.errors > 0)
    : result.lists.some((list) => list.failures > 0)
