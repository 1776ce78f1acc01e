import { type Context, Metric } from "effect"
import { type JobKind, JobKinds } from "../Domain/Jobs.ts"

/**
 * Every figure the service keeps for Prometheus, by Effect's `Metric`. A series is built once per
 * label set and kept: an update on the request path is a map lookup and an add, with no
 * attribute objects made per request.
 */

/** Seconds, from a fast health check (1 ms) to a slow edge call (10 s). */
const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

const cached = <A>(make: (key: string) => A) => {
  const series = new Map<string, A>()
  return (key: string): A => {
    let found = series.get(key)
    if (found === undefined) {
      found = make(key)
      series.set(key, found)
    }
    return found
  }
}

// ---- HTTP ---------------------------------------------------------------------------------------

/** Methods outside these count as `other`: a client must not be able to mint label values. */
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

const makeHttpRequestSeries = (route: string, method: string, status: number) => ({
  count: Metric.counter("http_requests_total", {
    description: "HTTP requests answered, by route template, method and status",
    attributes: { route, method, status: String(status) }
  }),
  seconds: Metric.histogram("http_request_duration_seconds", {
    description: "Time from a request's arrival at the service to its answer, by route template and method",
    attributes: { route, method },
    boundaries: latencyBuckets
  })
})

type HttpRequestSeries = ReturnType<typeof makeHttpRequestSeries>

/**
 * Looked up by route, then method, then status, each a map of its own: a key joined into one
 * string would be a new string on every request, hashed anew for the lookup (1.5 % of the CPU of
 * a /health request).
 */
const httpRequestSeries = new Map<string, Map<string, Map<number, HttpRequestSeries>>>()

const httpRequestSeriesOf = (route: string, method: string, status: number) => {
  let byMethod = httpRequestSeries.get(route)
  if (byMethod === undefined) httpRequestSeries.set(route, byMethod = new Map())
  let byStatus = byMethod.get(method)
  if (byStatus === undefined) byMethod.set(method, byStatus = new Map())
  let series = byStatus.get(status)
  if (series === undefined) byStatus.set(status, series = makeHttpRequestSeries(route, method, status))
  return series
}

/** One answered request: `route` is a template (`/v1/tickets/:id`) or `unmatched`, never a path. */
export const recordRequest = (
  context: Context.Context<never>,
  route: string,
  method: string,
  status: number,
  seconds: number
) => {
  const series = httpRequestSeriesOf(route, knownMethods.has(method) ? method : "other", status)
  series.count.updateUnsafe(1, context)
  series.seconds.updateUnsafe(seconds, context)
}

// ---- jobs ---------------------------------------------------------------------------------------

/** How a job's attempt ended: done, due again on its schedule, or failed for good. */
export type JobOutcome = "succeeded" | "retried" | "failed"

const jobOutcomeSeries = cached((key) => {
  const [kind, outcome] = key.split("\u0000") as [string, string]
  return Metric.counter("jobs_total", {
    description: "Job attempts finished, by kind and outcome (succeeded, retried: due again on its schedule, failed: for good)",
    attributes: { kind, outcome }
  })
})

const jobRunSeries = cached((kind) =>
  Metric.histogram("job_run_duration_seconds", {
    description: "Time a handler took for one run (one job, or one batch of a batched kind), by kind",
    attributes: { kind },
    boundaries: latencyBuckets
  })
)

export const recordJobOutcome = (context: Context.Context<never>, kind: JobKind, outcome: JobOutcome) =>
  jobOutcomeSeries(`${kind}\u0000${outcome}`).updateUnsafe(1, context)

export const recordJobRun = (context: Context.Context<never>, kind: JobKind, seconds: number) =>
  jobRunSeries(kind).updateUnsafe(seconds, context)

const queueDepthSeries = cached((kind) =>
  Metric.gauge("jobs_queue_depth", {
    description: "Jobs waiting to run, due now or later (a retry's next attempt included), by kind; read from the database at each scrape",
    attributes: { kind }
  })
)

const runningSeries = cached((kind) =>
  Metric.gauge("jobs_running", {
    description: "Jobs in hand on some instance (claimed, not finished), by kind; read from the database at each scrape",
    attributes: { kind }
  })
)

const oldestDueSeries = cached((kind) =>
  Metric.gauge("jobs_oldest_due_age_seconds", {
    description: "How long the oldest job that is due has waited past its due time, by kind; 0 when none is due",
    attributes: { kind }
  })
)

export interface QueueFigures {
  readonly kind: JobKind
  readonly pending: number
  readonly running: number
  readonly oldest_due_seconds: number
}

/** The queue as the database has it now; every kind gets a value, 0 when none of it waits. */
export const recordQueue = (context: Context.Context<never>, figures: ReadonlyArray<QueueFigures>) => {
  for (const kind of JobKinds) {
    const found = figures.find((row) => row.kind === kind)
    queueDepthSeries(kind).updateUnsafe(found?.pending ?? 0, context)
    runningSeries(kind).updateUnsafe(found?.running ?? 0, context)
    oldestDueSeries(kind).updateUnsafe(found?.oldest_due_seconds ?? 0, context)
  }
}

// ---- webhooks -----------------------------------------------------------------------------------

/**
 * What one delivery attempt came to: `delivered` (2xx), `rejected` (the receiver answered with
 * another status), `unreachable` (no answer: refused, timed out, an address not allowed).
 */
export type DeliveryOutcome = "delivered" | "rejected" | "unreachable"

const deliverySeries = cached((outcome) => ({
  count: Metric.counter("webhook_deliveries_total", {
    description: "Webhook delivery attempts, by outcome (delivered: 2xx; rejected: another status; unreachable: no answer)",
    attributes: { outcome }
  }),
  seconds: Metric.histogram("webhook_delivery_duration_seconds", {
    description: "Time from sending a webhook to the receiver's answer (or to giving up on it), by outcome",
    attributes: { outcome },
    boundaries: latencyBuckets
  })
}))

export const recordDelivery = (context: Context.Context<never>, outcome: DeliveryOutcome, seconds: number) => {
  const series = deliverySeries(outcome)
  series.count.updateUnsafe(1, context)
  series.seconds.updateUnsafe(seconds, context)
}

// ---- triage -------------------------------------------------------------------------------------

/**
 * `classified`: the provider answered; `fallback`: the OpenAI-compatible provider failed and the
 * local model answered instead.
 */
export type TriageOutcome = "classified" | "fallback"

const triageSeries = cached((key) => {
  const [provider, outcome] = key.split("\u0000") as [string, string]
  return Metric.counter("triage_total", {
    description: "Tickets triaged, by the provider asked (openai, local) and outcome (classified, or fallback to the local model)",
    attributes: { provider, outcome }
  })
})

export const recordTriage = (context: Context.Context<never>, provider: "openai" | "local", outcome: TriageOutcome, count = 1) =>
  triageSeries(`${provider}\u0000${outcome}`).updateUnsafe(count, context)

// ---- rate limit ---------------------------------------------------------------------------------

const refusalSeries = cached((budget) =>
  Metric.counter("rate_limit_refusals_total", {
    description: "Requests refused with 429, by budget (key: an API key's; address: a client address without a valid key)",
    attributes: { budget }
  })
)

export const recordRefusal = (context: Context.Context<never>, budget: "key" | "address") =>
  refusalSeries(budget).updateUnsafe(1, context)

// ---- satisfaction -------------------------------------------------------------------------------

export const SatisfactionRatings = ["1", "2", "3", "4", "5", "good", "bad"] as const

const ratingSeries = cached((rating) =>
  Metric.counter("satisfaction_ratings_total", {
    description: "Satisfaction ratings recorded, by rating (1-5 on the five-point scale, good or bad on the other)",
    attributes: { rating }
  })
)

export const recordRating = (context: Context.Context<never>, rating: (typeof SatisfactionRatings)[number]) =>
  ratingSeries(rating).updateUnsafe(1, context)

// ---- service levels ----------------------------------------------------------------------------

/** The counter of one target, which a test reads as it is. */
export const slaBreachSeries = cached((target) =>
  Metric.counter("sla_breaches_total", {
    description: "SLA targets breached, by target (first_response, resolution); each breach counts once",
    attributes: { target }
  })
)

export const recordSlaBreach = (context: Context.Context<never>, target: "first_response" | "resolution") =>
  slaBreachSeries(target).updateUnsafe(1, context)

// ---- database pool ------------------------------------------------------------------------------

const poolMax = Metric.gauge("db_pool_max_connections", {
  description: "Connections this instance may open to its database (DATABASE_POOL_SIZE; 1 for the embedded PGlite)"
})

const poolSeries = cached((state) =>
  Metric.gauge("db_pool_connections", {
    description: "This instance's open database connections, by state (active, idle, idle_in_transaction), as PostgreSQL sees them",
    attributes: { state }
  })
)

const sessionBusy = Metric.counter("db_session_busy_seconds_total", {
  description: "Time the embedded database's one session spent running statements (PGlite only): its rate is the share of time it was busy",
  incremental: true
})

const sessionWaiting = Metric.gauge("db_session_waiting", {
  description: "Messages waiting for the embedded database's one session (PGlite only), as requests wait for a connection of a pool"
})

export interface PoolFigures {
  readonly max: number
  /** per state; absent on the embedded database, whose one session PostgreSQL does not list */
  readonly byState: Readonly<Record<"active" | "idle" | "idle_in_transaction", number>> | undefined
  /** the embedded database's one session: busy time since the last scrape, and what waits for it now */
  readonly session: { readonly busySecondsAdded: number; readonly waiting: number } | undefined
}

export const recordPool = (context: Context.Context<never>, figures: PoolFigures) => {
  poolMax.updateUnsafe(figures.max, context)
  if (figures.session !== undefined) {
    sessionBusy.updateUnsafe(figures.session.busySecondsAdded, context)
    sessionWaiting.updateUnsafe(figures.session.waiting, context)
  }
  if (figures.byState === undefined) return
  for (const [state, count] of Object.entries(figures.byState)) poolSeries(state).updateUnsafe(count, context)
}

// ---- series known from the start ----------------------------------------------------------------

/**
 * Counters whose labels are known in advance, at 0: a series that appears only with its first
 * event reads as no data, and `rate()` over it misses that first increase.
 */
export const registerKnownSeries = (context: Context.Context<never>) => {
  for (const kind of JobKinds) {
    for (const outcome of ["succeeded", "retried", "failed"] as const) jobOutcomeSeries(`${kind}\u0000${outcome}`).updateUnsafe(0, context)
  }
  for (const outcome of ["delivered", "rejected", "unreachable"] as const) deliverySeries(outcome).count.updateUnsafe(0, context)
  for (const [provider, outcome] of [["local", "classified"], ["openai", "classified"], ["openai", "fallback"]] as const) {
    triageSeries(`${provider}\u0000${outcome}`).updateUnsafe(0, context)
  }
  for (const budget of ["key", "address"] as const) refusalSeries(budget).updateUnsafe(0, context)
  for (const target of ["first_response", "resolution"] as const) slaBreachSeries(target).updateUnsafe(0, context)
  for (const rating of SatisfactionRatings) ratingSeries(rating).updateUnsafe(0, context)
}
