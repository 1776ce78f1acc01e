/**
 * Pipeline figures: the lag from a ticket's 202 to its `ticket_created` delivery at a local
 * receiver while tickets are created at a fixed rate, and the jobs per second the runner gets
 * through when a burst of tickets floods it.
 */
import autocannon from "autocannon"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import pg from "pg"
import { ticketPayload } from "./corpus.ts"
import { requestJson, type Service, waitUntilIdle } from "./service.ts"

/** The jobs one ticket makes with the default settings: triage, duplicate check, webhook fan-out, delivery, automation. */
const jobsPerTicket = 5

const startReceiver = () =>
  new Promise<{ readonly url: string; readonly arrivals: Map<string, number>; readonly close: () => void }>((resolve) => {
    const arrivals = new Map<string, number>()
    const server = createServer((req, res) => {
      let body = ""
      req.setEncoding("utf8")
      req.on("data", (chunk: string) => (body += chunk))
      req.on("end", () => {
        const at = performance.now()
        const event = JSON.parse(body) as { event: string; data: { id: string } }
        if (event.event === "ticket_created" && !arrivals.has(event.data.id)) arrivals.set(event.data.id, at)
        res.statusCode = 204
        res.end()
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
        arrivals,
        close: () => server.close()
      }))
  })

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/** Waits until every id has arrived, or `maxMs` passed; answers how many are still missing. */
const awaitArrivals = async (ids: Iterable<string>, arrivals: Map<string, number>, maxMs: number) => {
  const wanted = [...ids]
  const deadline = performance.now() + maxMs
  while (performance.now() < deadline && wanted.some((id) => !arrivals.has(id))) await sleep(50)
  return wanted.filter((id) => !arrivals.has(id)).length
}

export interface PipelineResult {
  readonly rate: { readonly target: number; readonly achieved: number; readonly created: number; readonly createP99Ms: number }
  readonly lagMs: { readonly p50: number; readonly p99: number; readonly max: number }
  readonly lagMissing: number
  readonly burst: {
    readonly tickets: number
    readonly jobs: number
    readonly seconds: number
    readonly jobsPerSecond: number
    readonly measuredBy: string
    readonly missing: number
    /** how long creating the burst took */
    readonly createSeconds: number
    /** jobs finished per second after the last ticket was created, by the runner alone (PostgreSQL only) */
    readonly drainJobsPerSecond: number | undefined
  }
}

export const benchPipeline = async (options: {
  readonly service: Service
  readonly apiKey: string
  readonly projectId: string
  readonly adminToken: string
  readonly databaseUrl: string | undefined
  readonly rate: number
  readonly seconds: number
  readonly burstTickets: number
}): Promise<PipelineResult> => {
  const { service } = options
  const receiver = await startReceiver()
  try {
    await requestJson(service.baseUrl, "POST", `/v1/admin/projects/${options.projectId}/webhooks`, options.adminToken, 201, {
      url: receiver.url,
      events: ["ticket_created"]
    })
    await waitUntilIdle(service.pid)

    // 1. the lag at a fixed creation rate
    const sent = new Map<string, number>()
    let n = 0
    const paced = await autocannon({
      url: service.baseUrl,
      connections: 50,
      overallRate: options.rate,
      duration: options.seconds,
      requests: [{
        method: "POST",
        path: "/v1/tickets",
        headers: { authorization: `Bearer ${options.apiKey}`, "content-type": "application/json" },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(ticketPayload(1_000_000 + ++n)) }),
        onResponse: (status, body) => {
          if (status === 202) sent.set((JSON.parse(body) as { ticket_id: string }).ticket_id, performance.now())
        }
      }]
    })
    const lagMissing = await awaitArrivals(sent.keys(), receiver.arrivals, 60_000)
    const lags = [...sent].flatMap(([id, at]) => {
      const arrived = receiver.arrivals.get(id)
      return arrived === undefined ? [] : [arrived - at]
    }).sort((a, b) => a - b)
    await waitUntilIdle(service.pid)

    // 2. a burst: as many tickets as 50 connections can create, and the runner draining them
    const burstIds: Array<string> = []
    let m = 0
    const startedAt = performance.now()
    const pgClient = options.databaseUrl === undefined ? undefined : new pg.Client({ connectionString: options.databaseUrl })
    await pgClient?.connect()
    const doneBefore = pgClient === undefined
      ? 0
      : Number((await pgClient.query("SELECT count(*) AS n FROM jobs WHERE status = 'done'")).rows[0].n)
    await autocannon({
      url: service.baseUrl,
      connections: 50,
      amount: options.burstTickets,
      requests: [{
        method: "POST",
        path: "/v1/tickets",
        headers: { authorization: `Bearer ${options.apiKey}`, "content-type": "application/json" },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(ticketPayload(2_000_000 + ++m)) }),
        onResponse: (status, body) => {
          if (status === 202) burstIds.push((JSON.parse(body) as { ticket_id: string }).ticket_id)
        }
      }]
    })
    const createdAt = performance.now()
    const doneWhenCreated = pgClient === undefined
      ? undefined
      : Number((await pgClient.query("SELECT count(*) AS n FROM jobs WHERE status = 'done'")).rows[0].n)
    const missing = await awaitArrivals(burstIds, receiver.arrivals, 120_000)
    // deliveries are the last step of the slowest chain, but automation follows triage: wait for quiet
    await waitUntilIdle(service.pid)
    const seconds = (performance.now() - startedAt) / 1000
    let jobs = burstIds.length * jobsPerTicket
    let measuredBy = `${jobsPerTicket} jobs per ticket`
    let drain: { readonly jobs: number; readonly seconds: number } | undefined
    if (pgClient !== undefined) {
      const done = Number((await pgClient.query("SELECT count(*) AS n FROM jobs WHERE status = 'done'")).rows[0].n)
      jobs = done - doneBefore
      measuredBy = "done jobs counted in the jobs table"
      // the quiet wait at the end idles for about a second: subtracted
      drain = { jobs: done - doneWhenCreated!, seconds: Math.max(0.1, (performance.now() - createdAt) / 1000 - 1) }
      await pgClient.end()
    }
    return {
      rate: {
        target: options.rate,
        achieved: Math.round(paced.requests.average),
        created: sent.size,
        createP99Ms: paced.latency.p99
      },
      lagMs: {
        p50: Math.round(percentile(lags, 50)),
        p99: Math.round(percentile(lags, 99)),
        max: Math.round(lags[lags.length - 1] ?? NaN)
      },
      lagMissing,
      burst: {
        tickets: burstIds.length,
        jobs,
        // the quiet wait adds up to a second of idling to the drain time: the figure is a floor
        seconds: Math.round(seconds * 10) / 10,
        jobsPerSecond: Math.round(jobs / seconds),
        measuredBy,
        missing,
        createSeconds: Math.round(((createdAt - startedAt) / 1000) * 10) / 10,
        drainJobsPerSecond: drain === undefined ? undefined : Math.round(drain.jobs / drain.seconds)
      }
    }
  } finally {
    receiver.close()
  }
}

export const printPipeline = (kind: string, result: PipelineResult, goalP99Ms: number) => {
  console.log(`\nPipeline on ${kind}:`)
  console.log(
    `  202 → ticket_created delivery lag at ${result.rate.target} tickets/s (achieved ${result.rate.achieved}/s, ${result.rate.created} tickets, create p99 ${result.rate.createP99Ms} ms):`
  )
  console.log(
    `    p50 ${result.lagMs.p50} ms   p99 ${result.lagMs.p99} ms   max ${result.lagMs.max} ms   undelivered after 60 s: ${result.lagMissing}` +
      `   goal p99 < ${goalP99Ms} ms (PostgreSQL): ${kind === "postgres" ? (result.lagMs.p99 < goalP99Ms && result.rate.achieved >= result.rate.target * 0.95 ? "met" : "NOT met") : "n/a"}`
  )
  console.log(
    `  burst of ${result.burst.tickets} tickets (created in ${result.burst.createSeconds} s): ${result.burst.jobs} jobs done in ${result.burst.seconds} s = ${result.burst.jobsPerSecond} jobs/s through the runner (${result.burst.measuredBy}; creation included), undelivered: ${result.burst.missing}`
  )
  if (result.burst.drainJobsPerSecond !== undefined) {
    console.log(`  after the last ticket was created, the runner alone finished ${result.burst.drainJobsPerSecond} jobs/s`)
  }
}
