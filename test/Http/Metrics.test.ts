/**
 * GET /metrics: Prometheus's text format behind the admin token, read here by a Prometheus text
 * parser. After a known sequence of requests and jobs the figures move by exactly what happened:
 * requests by route template, method and status; refusals by budget; jobs by kind and outcome;
 * webhook deliveries by outcome; triage by provider; the queue as the database holds it; the
 * database connections. Metrics live in the process, which both databases' suites share, so
 * every count is read as the difference between a scrape before and one after.
 */
import { layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AppConfig } from "../../src/Config.ts"
import { readFile } from "node:fs/promises"
import { describe, expect } from "vitest"
import { createTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { parsePrometheusText, type PromFamily, prometheusParserMissing } from "../support/Prometheus.ts"
import { describeNeeding } from "../support/Requires.ts"
import { startStub, type Stub, stubServer } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, testServer, type TestServerShape } from "../support/TestServer.ts"

/** The operator's guide, whose metrics table is the published list of families. */
const guide = await readFile(new URL("../../docs/operations.md", import.meta.url), "utf8")

/** The service's figures, as a Prometheus server would read them. */
const scrape = (server: TestServerShape) =>
  Effect.promise(async () => {
    const response = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    return parsePrometheusText(await response.text())
  })

const sameLabels = (labels: Record<string, string>, wanted: Record<string, string>) =>
  Object.keys(labels).length === Object.keys(wanted).length &&
  Object.entries(wanted).every(([name, value]) => labels[name] === value)

/** The value of the sample named `sample` with exactly these labels; 0 when the series does not exist yet. */
const valueOf = (families: ReadonlyArray<PromFamily>, sample: string, labels: Record<string, string> = {}) => {
  for (const family of families) {
    const found = family.samples.find((s) => s.name === sample && sameLabels(s.labels, labels))
    if (found !== undefined) return found.value
  }
  return 0
}

const moved = (before: ReadonlyArray<PromFamily>, after: ReadonlyArray<PromFamily>) =>
(sample: string, labels: Record<string, string> = {}) => valueOf(after, sample, labels) - valueOf(before, sample, labels)

const typeOf = (families: ReadonlyArray<PromFamily>, name: string) => families.find((family) => family.name === name)?.type

/** The edge services of the suite about what goes wrong: a model that fails, receivers that refuse or are gone. */
class FailingEdges extends Context.Service<FailingEdges, {
  readonly model: Stub
  readonly refusing: Stub
  readonly goneUrl: string
}>()("test/Metrics/FailingEdges") {}

const withFailingEdges = (kind: (typeof databaseKinds)[number]) =>
  Layer.unwrap(Effect.gen(function*() {
    const model = yield* stubServer(() => ({ status: 500, body: { error: { message: "model down" } } }))
    const refusing = yield* stubServer(() => ({ status: 503 }))
    // a port that was just listening and is closed now: the connection is refused
    const gone = yield* Effect.promise(() => startStub())
    yield* Effect.promise(() => gone.close())
    const settings = {
      TRIAGE_PROVIDER: "openai",
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-test",
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      // one retry, due at once, and then the delivery is given up
      WEBHOOK_RETRY_SCHEDULE: "1ms",
      REDIS_URL: ""
    }
    return Layer.merge(
      testServer(kind, settings, undefined, { pipeline: "live" }),
      Layer.succeed(FailingEdges, { model, refusing, goneUrl: gone.url })
    )
  }))

// CI installs the parser: there a missing one fails the suite instead of skipping it
for (const kind of databaseKinds) {
  describeNeeding(prometheusParserMissing, `GET /metrics on ${kind}`, () => {
  describe("requests, refusals and the queue (no pipeline)", () => {
    layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "4", REDIS_URL: "" }), { excludeTestServices: true })((it) => {
      it.effect("is refused without the admin token, with the envelope's 401", () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const project = yield* createProject(server)
          for (const key of [undefined, "wrong-token", project.key]) {
            const answer = yield* Effect.promise(() => server.request("GET", "/metrics", { key }))
            expect(answer.status).toBe(401)
            expect(answer.body.error.code).toBe("UNAUTHORIZED")
            expect(answer.text).not.toContain("http_requests_total")
          }
        }))

      it.effect("counts each request by route template, method and status; refusals by budget; the waiting jobs", () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const sql = yield* SqlClient.SqlClient
          const project = yield* createProject(server)
          const before = yield* scrape(server)

          // the key's budget is 4: two creates, a read, an invalid create, then one refused
          const first = yield* createTicket(server, project.key, { subject: "Metrics one", body: "First" })
          yield* createTicket(server, project.key, { subject: "Metrics two", body: "Second" })
          const read = yield* Effect.promise(() => server.request("GET", `/v1/tickets/${first.ticket_id}`, { key: project.key }))
          const invalid = yield* Effect.promise(() => server.request("POST", "/v1/tickets", { key: project.key, body: {} }))
          const refused = yield* Effect.promise(() => server.request("GET", `/v1/tickets/${first.ticket_id}`, { key: project.key }))
          expect([read.status, invalid.status, refused.status]).toEqual([200, 400, 429])
          // an unknown key spends the address's budget of 4, then is refused
          const unknown = []
          for (let i = 0; i < 5; i++) {
            unknown.push((yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key: "tf_unknown" }))).status)
          }
          expect(unknown).toEqual([401, 401, 401, 401, 429])
          const missing = yield* Effect.promise(() => server.request("GET", `/nowhere/${first.ticket_id}`))
          const wrongMethod = yield* Effect.promise(() => server.request("DELETE", "/v1/tickets"))
          const oddMethod = yield* Effect.promise(() => server.request("PROPFIND", "/health"))
          expect([missing.status, wrongMethod.status]).toEqual([404, 405])

          const after = yield* scrape(server)
          const delta = moved(before, after)
          expect(typeOf(after, "http_requests")).toBe("counter")
          expect(typeOf(after, "http_request_duration_seconds")).toBe("histogram")
          expect(delta("http_requests_total", { route: "/v1/tickets", method: "POST", status: "202" })).toBe(2)
          expect(delta("http_requests_total", { route: "/v1/tickets", method: "POST", status: "400" })).toBe(1)
          expect(delta("http_requests_total", { route: "/v1/tickets/:id", method: "GET", status: "200" })).toBe(1)
          expect(delta("http_requests_total", { route: "/v1/tickets/:id", method: "GET", status: "429" })).toBe(1)
          expect(delta("http_requests_total", { route: "/v1/articles/search", method: "GET", status: "401" })).toBe(4)
          expect(delta("http_requests_total", { route: "/v1/articles/search", method: "GET", status: "429" })).toBe(1)
          expect(delta("http_requests_total", { route: "unmatched", method: "GET", status: "404" })).toBe(1)
          expect(delta("http_requests_total", { route: "/v1/tickets", method: "DELETE", status: "405" })).toBe(1)
          // a method nobody serves is one label value, whatever the client sends
          expect(oddMethod.status).toBe(405)
          expect(delta("http_requests_total", { route: "/health", method: "other", status: "405" })).toBe(1)
          // the first scrape was answered after it was taken: it shows in the second
          expect(delta("http_requests_total", { route: "/metrics", method: "GET", status: "200" })).toBe(1)
          const observations = (labels: Record<string, string>) => delta("http_request_duration_seconds_count", labels)
          expect(observations({ route: "/v1/tickets", method: "POST" })).toBe(3)
          expect(observations({ route: "/v1/tickets/:id", method: "GET" })).toBe(2)
          // no series carries a ticket's id
          const text = yield* Effect.promise(() =>
            fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } }).then((r) => r.text())
          )
          expect(text).not.toContain(first.ticket_id)

          expect(delta("rate_limit_refusals_total", { budget: "key" })).toBe(1)
          expect(delta("rate_limit_refusals_total", { budget: "address" })).toBe(1)

          // no pipeline runs here: both tickets' jobs wait, due since their creation
          expect(valueOf(after, "jobs_queue_depth", { kind: "triage" })).toBe(2)
          expect(valueOf(after, "jobs_queue_depth", { kind: "duplicate_check" })).toBe(2)
          expect(valueOf(after, "jobs_running", { kind: "triage" })).toBe(0)
          const [created] = yield* sql<{ waited: number }>`
            SELECT extract(epoch FROM now() - min(run_at))::float8 AS waited FROM jobs WHERE kind = 'triage' AND status = 'pending'`
          const oldest = valueOf(after, "jobs_oldest_due_age_seconds", { kind: "triage" })
          expect(oldest).toBeGreaterThan(0)
          // read after the scrape, so at least as old
          expect(oldest).toBeLessThanOrEqual(created!.waited)
          expect(valueOf(after, "jobs_queue_depth", { kind: "webhook_delivery" })).toBe(0)

          expect(valueOf(after, "db_pool_max_connections")).toBe(kind === "pglite" ? 1 : (yield* AppConfig).databasePoolSize)
          if (kind === "postgres") {
            // the scrape's own statement was running on one of them
            expect(valueOf(after, "db_pool_connections", { state: "active" })).toBeGreaterThanOrEqual(1)
          } else {
            expect(typeOf(after, "db_pool_connections")).toBeUndefined()
            // its one session ran the creates and the read between the two scrapes
            expect(typeOf(after, "db_session_busy_seconds")).toBe("counter")
            expect(valueOf(after, "db_session_busy_seconds_total")).toBeGreaterThan(valueOf(before, "db_session_busy_seconds_total"))
            expect(typeOf(after, "db_session_waiting")).toBe("gauge")
            expect(valueOf(after, "db_session_waiting")).toBeGreaterThanOrEqual(0)
          }
        }))
    })
  })

  describe("jobs, deliveries and triage (the pipeline running)", () => {
    layer(
      testServer(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_RETRY_SCHEDULE: "1h", REDIS_URL: "" }, undefined, {
        pipeline: "live"
      }),
      { excludeTestServices: true }
    )((it) => {
      it.effect("counts each job by kind and outcome, each delivery by outcome, each triage by provider", () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const admin = yield* server.api(adminToken)
          const project = yield* createProject(server)
          const accepting = yield* stubServer(() => ({ status: 204 }))
          const failing = yield* stubServer(() => ({ status: 500 }))
          for (const receiver of [accepting, failing]) {
            yield* admin.webhooks.register({
              params: { pid: project.projectId },
              payload: { url: `${receiver.url}/hooks`, events: ["ticket_created"] }
            })
          }
          const before = yield* scrape(server)

          yield* createTicket(server, project.key, { subject: "Cannot log in", body: "The login page says my password is wrong." })
          yield* createTicket(server, project.key, { subject: "Invoice twice", body: "I was charged twice this month." })

          const after = yield* eventually(
            "both tickets' triage, duplicate checks and four delivery attempts to be counted, the failed two queued again",
            Effect.map(scrape(server), (families) => {
              const delta = moved(before, families)
              const seen = {
                triage: delta("jobs_total", { kind: "triage", outcome: "succeeded" }),
                duplicates: delta("jobs_total", { kind: "duplicate_check", outcome: "succeeded" }),
                delivered: delta("jobs_total", { kind: "webhook_delivery", outcome: "succeeded" }),
                retried: delta("jobs_total", { kind: "webhook_delivery", outcome: "retried" })
              }
              // and the failed attempts written back, due again in an hour
              const written = valueOf(families, "jobs_queue_depth", { kind: "webhook_delivery" }) === 2
              return {
                done: seen.triage >= 2 && seen.duplicates >= 2 && seen.delivered >= 2 && seen.retried >= 2 && written,
                value: families
              }
            }),
            30_000
          )
          const delta = moved(before, after)
          expect(delta("jobs_total", { kind: "triage", outcome: "succeeded" })).toBe(2)
          expect(delta("jobs_total", { kind: "duplicate_check", outcome: "succeeded" })).toBe(2)
          expect(delta("jobs_total", { kind: "webhook_delivery", outcome: "succeeded" })).toBe(2)
          expect(delta("jobs_total", { kind: "webhook_delivery", outcome: "retried" })).toBe(2)
          expect(delta("jobs_total", { kind: "webhook_delivery", outcome: "failed" })).toBe(0)
          expect(delta("webhook_deliveries_total", { outcome: "delivered" })).toBe(2)
          expect(delta("webhook_deliveries_total", { outcome: "rejected" })).toBe(2)
          expect(delta("webhook_deliveries_total", { outcome: "unreachable" })).toBe(0)
          expect(delta("webhook_delivery_duration_seconds_count", { outcome: "rejected" })).toBe(2)
          expect(delta("triage_total", { provider: "local", outcome: "classified" })).toBe(2)
          expect(delta("triage_total", { provider: "openai", outcome: "fallback" })).toBe(0)
          expect(typeOf(after, "job_run_duration_seconds")).toBe("histogram")
          // the failed attempts wait an hour for their next one: queued, not yet due
          expect(valueOf(after, "jobs_queue_depth", { kind: "webhook_delivery" })).toBe(2)
          expect(valueOf(after, "jobs_oldest_due_age_seconds", { kind: "webhook_delivery" })).toBe(0)
          expect(accepting.requests).toHaveLength(2)
          expect(failing.requests).toHaveLength(2)
        }))

      it.effect("exports only families the operations guide's table describes, each with the type the table gives", () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const families = yield* scrape(server)
          const section = guide.slice(guide.indexOf("## Metrics"), guide.indexOf("\n## ", guide.indexOf("## Metrics") + 1))
          const table = new Map(
            [...section.matchAll(/^\| `([a-z_]+)` \| (counter|gauge|histogram) \|/gm)].map((row) => [row[1]!, row[2]!])
          )
          // the parser names a counter's family without its `_total`
          const described = families.map((family) => {
            const name = family.type === "counter" ? `${family.name}_total` : family.name
            return [name, table.get(name) ?? "not in docs/operations.md"]
          })
          expect(described).toEqual(families.map((family) => [family.type === "counter" ? `${family.name}_total` : family.name, family.type]))
          // the jobs, deliveries and triage of the test before are among them
          expect(described.length).toBeGreaterThanOrEqual(12)
        }))
    })
  })

  describe("fallbacks and deliveries given up (the pipeline running, its edges failing)", () => {
    layer(withFailingEdges(kind), { excludeTestServices: true })((it) => {
      it.effect("counts a triage that fell back to the local model, and jobs and deliveries that failed for good", () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const edges = yield* FailingEdges
          const admin = yield* server.api(adminToken)
          const project = yield* createProject(server)
          for (const url of [edges.refusing.url, edges.goneUrl]) {
            yield* admin.webhooks.register({
              params: { pid: project.projectId },
              payload: { url: `${url}/hooks`, events: ["ticket_created"] }
            })
          }
          const before = yield* scrape(server)

          yield* createTicket(server, project.key, { subject: "Refund please", body: "I was charged for a plan I cancelled." })

          const after = yield* eventually(
            "the ticket's triage and both deliveries' two attempts to be counted, the deliveries given up and written back",
            Effect.map(scrape(server), (families) => {
              const delta = moved(before, families)
              const done = delta("jobs_total", { kind: "triage", outcome: "succeeded" }) >= 1 &&
                delta("jobs_total", { kind: "webhook_delivery", outcome: "failed" }) >= 2 &&
                // counted as they end, written back a moment later
                valueOf(families, "jobs_queue_depth", { kind: "webhook_delivery" }) === 0 &&
                valueOf(families, "jobs_running", { kind: "webhook_delivery" }) === 0
              return { done, value: families }
            }),
            30_000
          )
          const delta = moved(before, after)
          // the model failed once; the local model classified the ticket instead
          expect(edges.model.requests).toHaveLength(1)
          expect(delta("triage_total", { provider: "openai", outcome: "fallback" })).toBe(1)
          expect(delta("triage_total", { provider: "openai", outcome: "classified" })).toBe(0)
          expect(delta("triage_total", { provider: "local", outcome: "classified" })).toBe(1)
          expect(delta("jobs_total", { kind: "triage", outcome: "succeeded" })).toBe(1)
          // each delivery: a first attempt retried, a second given up
          expect(edges.refusing.requests).toHaveLength(2)
          expect(delta("jobs_total", { kind: "webhook_delivery", outcome: "retried" })).toBe(2)
          expect(delta("jobs_total", { kind: "webhook_delivery", outcome: "failed" })).toBe(2)
          expect(delta("jobs_total", { kind: "webhook_delivery", outcome: "succeeded" })).toBe(0)
          expect(delta("webhook_deliveries_total", { outcome: "rejected" })).toBe(2)
          expect(delta("webhook_deliveries_total", { outcome: "unreachable" })).toBe(2)
          expect(delta("webhook_deliveries_total", { outcome: "delivered" })).toBe(0)
          expect(delta("webhook_delivery_duration_seconds_count", { outcome: "unreachable" })).toBe(2)
          expect(valueOf(after, "jobs_running", { kind: "webhook_delivery" })).toBe(0)
        }))
    })
  })
  })
}
