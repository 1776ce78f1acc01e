/**
 * Traces over OTLP/HTTP, to a loopback collector: one trace shows a ticket from the request that
 * created it, through the jobs it caused (stored with each job), to its webhook delivery; a read
 * shows its SQL statements under its request; the sampling ratio keeps the share of traces begun
 * here that it says, and a caller's sampled trace whatever it says; without an endpoint no span is
 * built at all.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, References } from "effect"
import { SqlClient } from "effect/sql"
import * as Tracing from "../../src/Observability/Tracing.ts"
import { createTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { testSettings } from "../support/Settings.ts"
import { type Stub, stubServer } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  /** 2: server, 3: client, 5: consumer */
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

/** Every span the collector has been sent so far. */
const spansAt = (collector: Stub): ReadonlyArray<OtlpSpan> =>
  collector.requests.filter((request) => request.path === "/v1/traces").flatMap((request) =>
    (JSON.parse(request.body) as {
      resourceSpans: ReadonlyArray<{ scopeSpans: ReadonlyArray<{ spans: ReadonlyArray<OtlpSpan> }> }>
    }).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
  )

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value
  return value === undefined ? undefined : Object.values(value)[0]
}

const hex = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 16).toString(16)).join("")

/** A caller's own trace: its id, the span the service's request span must hang under, and the header. */
const callerTrace = (sampled: boolean) => {
  const traceId = hex(32)
  const spanId = hex(16)
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-${sampled ? "01" : "00"}` }
}

/** A ticket created by a caller in its own trace, the 202 asserted. */
const createInTrace = (server: TestServerShape, key: string, body: object, traceparent: string) =>
  Effect.map(
    Effect.promise(() => server.request("POST", "/v1/tickets", { key, body, headers: { traceparent } })),
    (created) => {
      expect(created.status).toBe(202)
      return created.body as { readonly ticket_id: string }
    }
  )

const collectorSettings = (collector: Stub, ratio: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  OTEL_TRACES_SAMPLER_ARG: ratio,
  OTEL_BSP_SCHEDULE_DELAY: "50",
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true"
})

/** The service, sending its traces to a collector on loopback: built in the test, which owns the collector. */
const tracedService = (kind: (typeof databaseKinds)[number], ratio: string, settings: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const collector = yield* stubServer(() => ({ status: 200, body: {} }))
    const context = yield* Layer.build(
      testServer(kind, { ...collectorSettings(collector, ratio), ...settings }, undefined, { pipeline: "live" })
    )
    return { collector, server: Context.get(context, TestServer), sql: Context.get(context, SqlClient.SqlClient) }
  })

/**
 * The test's own calls carry no trace: its typed client would otherwise send a sampled
 * `traceparent` of the test's spans with every request, and the service would rightly follow it.
 */
const untracedCaller = <A, E, R>(test: Effect.Effect<A, E, R>) => Effect.withTracerEnabled(test, false)

describe.each(databaseKinds)("traces on %s", (kind) => {
  {
    it.live("one trace joins a ticket's request, its jobs (triage, duplicate check) and its webhook delivery", () =>
      Effect.gen(function*() {
        const { collector, server } = yield* tracedService(kind, "1")
        const receiver = yield* stubServer(() => ({ status: 204 }))
        const admin = yield* server.api(adminToken)
        const project = yield* createProject(server)
        yield* admin.webhooks.register({
          params: { pid: project.projectId },
          payload: { url: `${receiver.url}/hooks`, events: ["ticket_created"] }
        })
        const caller = callerTrace(true)
        yield* createInTrace(
          server,
          project.key,
          { subject: "Cannot export", body: "The export never finishes.", sender_email: "ana@example.com" },
          caller.traceparent
        )

        const trace = yield* eventually(
          "the request, its triage, duplicate check and delivery in the caller's trace",
          Effect.sync(() => {
            const spans = spansAt(collector).filter((span) => span.traceId === caller.traceId)
            const names = spans.map((span) => span.name)
            return {
              done: ["job triage", "job duplicate_check", "job webhook_delivery"].every((name) => names.includes(name)),
              value: spans
            }
          }),
          30_000
        )
        const request = trace.find((span) => span.name === "POST /v1/tickets")!
        expect(request, `spans: ${trace.map((span) => span.name).join(", ")}`).toBeDefined()
        expect(request.kind).toBe(2)
        expect(request.parentSpanId).toBe(caller.spanId)
        for (const job of ["job triage", "job duplicate_check", "job webhook_delivery"]) {
          const span = trace.find((s) => s.name === job)!
          expect(span.parentSpanId, job).toBe(request.spanId)
          expect(span.kind, job).toBe(5)
          expect(attribute(span, "job.kind"), job).toBe(job.slice("job ".length))
        }
        // the delivery's own HTTP call, under the delivery's job
        const delivery = trace.find((span) => span.name === "job webhook_delivery")!
        expect(trace.some((span) => span.parentSpanId === delivery.spanId && span.kind === 3)).toBe(true)
        expect(receiver.requests).toHaveLength(1)
        // the trace context goes to no webhook receiver: the contract lists a delivery's headers
        expect(receiver.requests[0]!.headers.traceparent).toBeUndefined()
      }).pipe(untracedCaller), 60_000)

    it.live("a read's SQL statements are spans under its request's span", () =>
      Effect.gen(function*() {
        const { collector, server } = yield* tracedService(kind, "1")
        const project = yield* createProject(server)
        const ticket = yield* createTicket(server, project.key, { subject: "Read me", body: "Traced read" })
        const caller = callerTrace(true)
        const read = yield* Effect.promise(() =>
          server.request("GET", `/v1/tickets/${ticket.ticket_id}`, { key: project.key, headers: { traceparent: caller.traceparent } })
        )
        expect(read.status).toBe(200)
        const trace = yield* eventually(
          "the read's spans",
          Effect.sync(() => {
            const spans = spansAt(collector).filter((span) => span.traceId === caller.traceId)
            return { done: spans.some((span) => span.name === "GET /v1/tickets/:id"), value: spans }
          })
        )
        const request = trace.find((span) => span.name === "GET /v1/tickets/:id")!
        expect(request.kind).toBe(2)
        expect(request.parentSpanId).toBe(caller.spanId)
        expect(attribute(request, "http.request.method")).toBe("GET")
        expect(attribute(request, "http.route")).toBe("/v1/tickets/:id")
        expect(Number(attribute(request, "http.response.status_code"))).toBe(200)
        const below = (parent: OtlpSpan): ReadonlyArray<OtlpSpan> =>
          trace.filter((span) => span.parentSpanId === parent.spanId).flatMap((span) => [span, ...below(span)])
        const statements = below(request).filter((span) => span.kind === 3)
        expect(statements.length).toBeGreaterThan(0)
        expect(statements.every((span) => typeof attribute(span, "db.query.text") === "string" || typeof attribute(span, "db.statement") === "string"))
          .toBe(true)
        // no ticket id in a span name: names are templates
        expect(trace.map((span) => span.name).join(" ")).not.toContain(ticket.ticket_id)
      }).pipe(untracedCaller), 60_000)

    it.live("at a ratio of 0.5 keeps about half the requests' traces, deciding each once, and of the rest builds nothing", () =>
      Effect.gen(function*() {
        const { collector, server } = yield* tracedService(kind, "0.5", { RATE_LIMIT_PER_MINUTE: "1000" })
        const project = yield* createProject(server)
        const ticket = yield* createTicket(server, project.key, { subject: "Read often", body: "Half traced" })
        const reads = 300
        for (let i = 0; i < reads; i++) {
          const read = yield* Effect.promise(() => server.request("GET", `/v1/tickets/${ticket.ticket_id}`, { key: project.key }))
          expect(read.status).toBe(200)
        }
        // spans leave in the order they end: once this one is here, every read's is
        const marker = callerTrace(true)
        yield* Effect.promise(() => server.request("GET", "/health", { headers: { traceparent: marker.traceparent } }))
        yield* eventually(
          "the marker's span",
          Effect.sync(() => ({ done: spansAt(collector).some((span) => span.traceId === marker.traceId), value: null }))
        )
        const spans = spansAt(collector)
        const kept = spans.filter((span) => span.name === "GET /v1/tickets/:id")
        // 150 expected, give or take 8.7; kept at 0.25 (a second roll below the first) is 75
        expect(kept.length).toBeGreaterThan(reads / 2 - 52)
        expect(kept.length).toBeLessThan(reads / 2 + 52)
        for (const request of kept) {
          expect(spans.some((span) => span.parentSpanId === request.spanId && span.kind === 3)).toBe(true)
        }
        // a dropped request's statements would be traces of their own, without a parent
        expect(spans.filter((span) => span.kind === 3 && span.parentSpanId === undefined).map((span) => span.name)).toEqual([])
      }).pipe(untracedCaller), 60_000)

    it.live("at a ratio of 0 keeps no trace begun here, nor its jobs; a caller's sampled trace is kept whole", () =>
      Effect.gen(function*() {
        const { collector, server, sql } = yield* tracedService(kind, "0")
        const project = yield* createProject(server)
        const unsampled = yield* createTicket(server, project.key, { subject: "Not traced", body: "Ratio 0" })
        // its jobs carry its decision, not to keep it, rather than begin traces of their own
        const stored = yield* sql<{ trace_context: string | null }>`
          SELECT trace_context FROM jobs WHERE ticket_id = ${unsampled.ticket_id}`
        expect(stored.length).toBeGreaterThan(0)
        for (const job of stored) expect(job.trace_context).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/)
        // its jobs run before the sampled ticket's are even written
        yield* eventually(
          "the unsampled ticket to be triaged",
          Effect.map(
            Effect.flatMap(server.api(adminToken), (admin) =>
              admin.admin.getTicket({ params: { pid: project.projectId, id: unsampled.ticket_id } })),
            (ticket) => ({ done: ticket.category !== null, value: ticket.category })
          )
        )
        const caller = callerTrace(true)
        yield* createInTrace(server, project.key, { subject: "Traced", body: "Sampled by its caller" }, caller.traceparent)
        yield* eventually(
          "the sampled ticket's triage span",
          Effect.sync(() => {
            const spans = spansAt(collector)
            return {
              done: spans.some((span) => span.traceId === caller.traceId && span.name === "job triage"),
              value: spans.length
            }
          }),
          30_000
        )
        // spans leave in the order they end, so whatever the first ticket had would be here by now
        const foreign = spansAt(collector).filter((span) => span.traceId !== caller.traceId)
        expect(foreign.map((span) => span.name)).toEqual([])
      }).pipe(untracedCaller), 60_000)

    it.live("a caller's trace that is not kept is followed at any ratio: no span, and its jobs carry the caller's trace", () =>
      Effect.gen(function*() {
        const { collector, server, sql } = yield* tracedService(kind, "1")
        const project = yield* createProject(server)
        const caller = callerTrace(false)
        const created = yield* createInTrace(
          server,
          project.key,
          { subject: "Not traced", body: "Dropped by its caller" },
          caller.traceparent
        )
        const stored = yield* sql<{ trace_context: string | null }>`
          SELECT trace_context FROM jobs WHERE ticket_id = ${created.ticket_id}`
        expect(stored.length).toBeGreaterThan(0)
        for (const job of stored) expect(job.trace_context).toBe(`00-${caller.traceId}-${caller.spanId}-00`)
        // a request of this service's own, kept at ratio 1, leaves after anything the first made
        const marker = callerTrace(true)
        yield* Effect.promise(() => server.request("GET", "/health", { headers: { traceparent: marker.traceparent } }))
        yield* eventually(
          "the marker's span",
          Effect.sync(() => ({ done: spansAt(collector).some((span) => span.traceId === marker.traceId), value: null }))
        )
        expect(spansAt(collector).filter((span) => span.traceId === caller.traceId)).toEqual([])
        expect(spansAt(collector).filter((span) => span.name === "POST /v1/tickets")).toEqual([])
      }).pipe(untracedCaller), 60_000)
  }
})

describe("tracing settings", () => {
  it("without an endpoint, tracing is off: no span is built", async () => {
    const enabled = await Effect.runPromise(
      Effect.flatMap(testSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "" }), (config) =>
        Effect.gen(function*() {
          return yield* References.TracerEnabled
        }).pipe(Effect.provide(Tracing.layer(config))))
    )
    expect(enabled).toBe(false)
  })

  it("refuses a sampling ratio outside 0..1 and an endpoint that is not an http URL", async () => {
    for (
      const env of [
        { OTEL_TRACES_SAMPLER_ARG: "1.5" },
        { OTEL_TRACES_SAMPLER_ARG: "half" },
        { OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" },
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "ftp://collector/v1/traces" }
      ] as ReadonlyArray<Record<string, string>>
    ) {
      const exit = await Effect.runPromiseExit(testSettings(env))
      expect(exit._tag, JSON.stringify(env)).toBe("Failure")
    }
  })
})
