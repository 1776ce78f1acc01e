/**
 * Pipeline figures. A burst: tickets created at full speed for a while, and how long after its
 * end the last of their jobs is done and the last `ticket_created` delivery has arrived at a
 * local receiver. Then the steady rate: the highest creation rate at which triage and delivery
 * keep a p99 lag under a second for a whole minute, with nothing left over at its end.
 */
import autocannon from "autocannon"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import pg from "pg"
import { ticketPayload } from "./corpus.ts"
import { requestJson, type Service, waitUntilIdle } from "./service.ts"

/** The lag both triage and delivery must stay under (p99) at a steady rate. */
export const steadyLagGoalMs = 1_000
/** How soon after a steady run's end its backlog must be gone to count as "nothing left over". */
const leftOverGraceMs = 1_000

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

const sortedNumbers = (values: Iterable<number>) => [...values].sort((a, b) => a - b)

/** Creates tickets from 50 connections, at `rate` a second or as fast as they go; answers when each was accepted. */
const createTickets = async (service: Service, apiKey: string, options: {
  readonly seconds: number
  readonly rate?: number
  readonly firstNumber: number
}) => {
  const accepted = new Map<string, number>()
  let n = options.firstNumber
  const result = await autocannon({
    url: service.baseUrl,
    connections: 50,
    duration: options.seconds,
    ...(options.rate === undefined ? {} : { overallRate: options.rate }),
    requests: [{
      method: "POST",
      path: "/v1/tickets",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      setupRequest: (request) => ({ ...request, body: JSON.stringify(ticketPayload(++n)) }),
      onResponse: (status, body) => {
        if (status === 202) accepted.set((JSON.parse(body) as { ticket_id: string }).ticket_id, performance.now())
      }
    }]
  })
  return { accepted, createP99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors }
}

/** What the pipeline still owes: due or running jobs in the database, and deliveries not yet arrived. */
const backlog = async (db: pg.Client, accepted: Map<string, number>, arrivals: Map<string, number>) => {
  const jobs = Number((await db.query("SELECT count(*) AS n FROM jobs WHERE status IN ('pending', 'running')")).rows[0].n)
  let undelivered = 0
  for (const id of accepted.keys()) if (!arrivals.has(id)) undelivered++
  return { jobs, undelivered }
}

const doneJobs = async (db: pg.Client) => Number((await db.query("SELECT count(*) AS n FROM jobs WHERE status = 'done'")).rows[0].n)

/** Polls every 50 ms until nothing is owed, or `maxMs` passed; answers when that was (or undefined). */
const awaitWorkedOff = async (db: pg.Client, accepted: Map<string, number>, arrivals: Map<string, number>, maxMs: number) => {
  const deadline = performance.now() + maxMs
  while (performance.now() < deadline) {
    const owed = await backlog(db, accepted, arrivals)
    if (owed.jobs === 0 && owed.undelivered === 0) return performance.now()
    await sleep(50)
  }
  return undefined
}

/**
 * Triage lag per ticket, from the database: when its triage job was recorded done against when
 * the ticket was created, both stamped by the service's clock.
 */
const triageLags = async (db: pg.Client, ids: ReadonlyArray<string>) =>
  sortedNumbers(
    (await db.query(
      `SELECT extract(epoch FROM (j.updated_at - t.created_at)) * 1000 AS lag
       FROM jobs j JOIN tickets t ON t.id = j.ticket_id
       WHERE j.kind = 'triage' AND j.status = 'done' AND j.ticket_id = ANY($1::uuid[])`,
      [ids]
    )).rows.map((row) => Number(row.lag))
  )

export interface BurstResult {
  readonly seconds: number
  readonly tickets: number
  readonly createRate: number
  readonly createP99Ms: number
  readonly jobs: number
  /** from the burst's end until the last job was done and the last delivery arrived */
  readonly workedOffSeconds: number | undefined
  /** jobs done per second from the burst's start until it was worked off */
  readonly jobsPerSecond: number | undefined
  /** jobs done per second after the burst's end, by the runner alone */
  readonly drainJobsPerSecond: number | undefined
}

export interface SteadyTrial {
  readonly rate: number
  readonly achieved: number
  readonly tickets: number
  readonly createP99Ms: number
  readonly triageLagMs: { readonly p50: number; readonly p99: number }
  readonly deliveryLagMs: { readonly p50: number; readonly p99: number }
  /** how long after the run's end its backlog was gone, or undefined when it was not within a minute */
  readonly leftOverMs: number | undefined
  readonly met: boolean
}

export interface PipelineResult {
  readonly burst: BurstResult
  readonly steady: ReadonlyArray<SteadyTrial>
  /** the highest rate a trial met, and what share of the burst's creation rate that is */
  readonly steadyRate: number | undefined
  readonly steadyShareOfBurst: number | undefined
}

export const benchPipeline = async (options: {
  readonly service: Service
  readonly apiKey: string
  readonly projectId: string
  readonly adminToken: string
  readonly databaseUrl: string
  readonly burstSeconds: number
  readonly steadySeconds: number
  /** try steady rates at all (the embedded database runs the burst only) */
  readonly steady: boolean
}): Promise<PipelineResult> => {
  const { service } = options
  const receiver = await startReceiver()
  const db = new pg.Client({ connectionString: options.databaseUrl })
  await db.connect()
  try {
    await requestJson(service.baseUrl, "POST", `/v1/admin/projects/${options.projectId}/webhooks`, options.adminToken, 201, {
      url: receiver.url,
      events: ["ticket_created"]
    })
    await waitUntilIdle(service.pid)

    // 1. a burst at full speed, and how long its work takes after it ends
    const doneBefore = await doneJobs(db)
    const startedAt = performance.now()
    const burst = await createTickets(service, options.apiKey, { seconds: options.burstSeconds, firstNumber: 2_000_000 })
    const endedAt = performance.now()
    const doneAtEnd = await doneJobs(db)
    const workedOffAt = await awaitWorkedOff(db, burst.accepted, receiver.arrivals, 180_000)
    const jobs = (await doneJobs(db)) - doneBefore
    const burstResult: BurstResult = {
      seconds: Math.round((endedAt - startedAt) / 100) / 10,
      tickets: burst.accepted.size,
      createRate: Math.round(burst.accepted.size / ((endedAt - startedAt) / 1000)),
      createP99Ms: burst.createP99Ms,
      jobs,
      workedOffSeconds: workedOffAt === undefined ? undefined : Math.round((workedOffAt - endedAt) / 100) / 10,
      jobsPerSecond: workedOffAt === undefined ? undefined : Math.round(jobs / ((workedOffAt - startedAt) / 1000)),
      drainJobsPerSecond: workedOffAt === undefined
        ? undefined
        : Math.round((doneBefore + jobs - doneAtEnd) / Math.max(0.05, (workedOffAt - endedAt) / 1000))
    }
    await waitUntilIdle(service.pid)

    // 2. steady rates: 80 % of the burst's first, then up while they are met and down while not
    const trials: Array<SteadyTrial> = []
    let number = 3_000_000
    const trial = async (rate: number): Promise<SteadyTrial> => {
      const run = await createTickets(service, options.apiKey, { seconds: options.steadySeconds, rate, firstNumber: number })
      number += 1_000_000
      const endedAt = performance.now()
      const goneAt = await awaitWorkedOff(db, run.accepted, receiver.arrivals, 60_000)
      const ids = [...run.accepted.keys()]
      const triage = await triageLags(db, ids)
      const delivery = sortedNumbers(ids.flatMap((id) => {
        const arrived = receiver.arrivals.get(id)
        return arrived === undefined ? [] : [arrived - run.accepted.get(id)!]
      }))
      const achieved = Math.round(run.accepted.size / options.steadySeconds)
      const leftOverMs = goneAt === undefined ? undefined : Math.round(goneAt - endedAt)
      const result: SteadyTrial = {
        rate,
        achieved,
        tickets: run.accepted.size,
        createP99Ms: run.createP99Ms,
        triageLagMs: { p50: Math.round(percentile(triage, 50)), p99: Math.round(percentile(triage, 99)) },
        deliveryLagMs: { p50: Math.round(percentile(delivery, 50)), p99: Math.round(percentile(delivery, 99)) },
        leftOverMs,
        met: achieved >= rate * 0.95 && triage.length === ids.length && delivery.length === ids.length &&
          percentile(triage, 99) < steadyLagGoalMs && percentile(delivery, 99) < steadyLagGoalMs &&
          leftOverMs !== undefined && leftOverMs <= leftOverGraceMs
      }
      trials.push(result)
      console.log(
        `    steady ${rate}/s: achieved ${achieved}/s, triage lag p99 ${result.triageLagMs.p99} ms, delivery lag p99 ${result.deliveryLagMs.p99} ms, ` +
          `left over ${leftOverMs === undefined ? "> 60 s" : `${leftOverMs} ms`}: ${result.met ? "met" : "not met"}`
      )
      await waitUntilIdle(service.pid)
      return result
    }
    if (options.steady && burstResult.createRate > 0) {
      const share = (fraction: number) => Math.max(10, Math.round(burstResult.createRate * fraction))
      if ((await trial(share(0.8))).met) {
        await trial(share(1))
      } else {
        for (const fraction of [0.6, 0.4, 0.2]) if ((await trial(share(fraction))).met) break
      }
    }
    const best = trials.filter((t) => t.met).reduce<number | undefined>((most, t) => Math.max(most ?? 0, t.rate), undefined)
    return {
      burst: burstResult,
      steady: trials,
      steadyRate: best,
      steadyShareOfBurst: best === undefined ? undefined : Math.round((100 * best) / burstResult.createRate) / 100
    }
  } finally {
    await db.end()
    receiver.close()
  }
}

export const printPipeline = (kind: string, result: PipelineResult) => {
  const { burst } = result
  console.log(`\nPipeline on ${kind} (each ticket: triage, duplicate check, one ticket_created delivery):`)
  console.log(
    `  burst: ${burst.tickets} tickets in ${burst.seconds} s at full speed = ${burst.createRate} created/s (create p99 ${burst.createP99Ms} ms), ${burst.jobs} jobs`
  )
  console.log(
    burst.workedOffSeconds === undefined
      ? "  !! its backlog was not worked off within 180 s of its end"
      : `  worked off ${burst.workedOffSeconds} s after the burst's end (goal ≤ ${burst.seconds} s: ${burst.workedOffSeconds <= burst.seconds ? "met" : "NOT met"}); ` +
        `${burst.jobsPerSecond} jobs/s over the whole burst, ${burst.drainJobsPerSecond} jobs/s after its end`
  )
  for (const t of result.steady) {
    console.log(
      `  steady ${t.rate} tickets/s for the run (achieved ${t.achieved}/s, create p99 ${t.createP99Ms} ms): ` +
        `triage lag p50 ${t.triageLagMs.p50} / p99 ${t.triageLagMs.p99} ms, delivery lag p50 ${t.deliveryLagMs.p50} / p99 ${t.deliveryLagMs.p99} ms, ` +
        `left over ${t.leftOverMs === undefined ? "> 60 s" : `${t.leftOverMs} ms`}: ${t.met ? "met" : "not met"}`
    )
  }
  if (result.steady.length > 0) {
    console.log(
      result.steadyRate === undefined
        ? "  !! no steady rate tried kept both lags under 1 s"
        : `  highest steady rate met: ${result.steadyRate} tickets/s = ${Math.round(100 * result.steadyShareOfBurst!)} % of the burst rate (goal ≥ 80 %: ${result.steadyShareOfBurst! >= 0.8 ? "met" : "NOT met"})`
    )
  }
}
