/**
 * One Info line per request, with the request id the X-Request-Id header carries, the method,
 * the route as its template (never the path with its ids), the status and the time it took; none
 * with REQUEST_LOG=false or a LOG_LEVEL above info; and with LOG_FORMAT=json every log line of
 * the running service is one JSON object.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger, References } from "effect"
import { fileURLToPath } from "node:url"
import { createTicket } from "../support/Calls.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { startServiceProcess } from "../support/Process.ts"
import { createProject, TestServer, testServer } from "../support/TestServer.ts"

interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/** The service with every line it logs captured, annotations and all. */
const serviceLogging = (kind: (typeof databaseKinds)[number], settings: Record<string, string> = { REQUEST_LOG: "true" }) =>
  Effect.gen(function*() {
    const lines: Array<LogLine> = []
    const capture = Logger.layer([
      Logger.make(({ fiber, logLevel, message }) => {
        lines.push({
          level: logLevel,
          message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
          annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
        })
      })
    ])
    const context = yield* Layer.build(testServer(kind, settings).pipe(Layer.provide(capture)))
    const server = Context.get(context, TestServer)
    /** The request lines logged so far. */
    const requestLines = () => lines.filter((line) => line.message === "request")
    return { server, requestLines }
  })

const root = fileURLToPath(new URL("../../", import.meta.url))

describe.each(databaseKinds)("request logs on %s", (kind) => {
  it.live("one Info line per request: its id, method, route template, status and duration", () =>
    Effect.gen(function*() {
      const { requestLines, server } = yield* serviceLogging(kind)
      const project = yield* createProject(server)
      const ticket = yield* createTicket(server, project.key, { subject: "Logged", body: "One line per request" })
      const before = requestLines().length

      const found = yield* Effect.promise(() =>
        server.request("GET", `/v1/tickets/${ticket.ticket_id}`, { key: project.key, headers: { "x-request-id": "log-test-found" } })
      )
      const unmatched = yield* Effect.promise(() => server.request("GET", `/nowhere/${ticket.ticket_id}`))
      const invalid = yield* Effect.promise(() => server.request("POST", "/v1/tickets", { key: project.key, body: {} }))
      // a browser's preflight is answered before routing, and still names the route it asks about
      const preflight = yield* Effect.promise(() =>
        server.request("OPTIONS", `/v1/tickets/${ticket.ticket_id}/messages`, {
          headers: { origin: "https://shop.example", "access-control-request-method": "POST" }
        })
      )
      expect([found.status, unmatched.status, invalid.status, preflight.status]).toEqual([200, 404, 400, 204])

      const lines = requestLines().slice(before)
      expect(lines).toHaveLength(4)
      const expected = [
        { response: found, method: "GET", route: "/v1/tickets/:id", status: 200 },
        { response: unmatched, method: "GET", route: "unmatched", status: 404 },
        { response: invalid, method: "POST", route: "/v1/tickets", status: 400 },
        { response: preflight, method: "OPTIONS", route: "/v1/tickets/:id/messages", status: 204 }
      ]
      expected.forEach(({ method, response, route, status }, i) => {
        const line = lines[i]!
        expect(line.level).toBe("Info")
        expect(line.annotations).toMatchObject({
          request_id: response.headers.get("x-request-id"),
          method,
          route,
          status
        })
        expect(line.annotations.duration_ms).toBeTypeOf("number")
        expect(line.annotations.duration_ms).toBeGreaterThanOrEqual(0)
        expect(JSON.stringify(line.annotations)).not.toContain(ticket.ticket_id)
      })
      expect(lines[0]!.annotations.request_id).toBe("log-test-found")
    }), 60_000)

  it.live("none with REQUEST_LOG=false, nor with LOG_LEVEL above info", () =>
    Effect.gen(function*() {
      for (const settings of [{ REQUEST_LOG: "false" }, { REQUEST_LOG: "true", LOG_LEVEL: "warning" }] as Array<Record<string, string>>) {
        const { requestLines, server } = yield* serviceLogging(kind, settings)
        const health = yield* Effect.promise(() => server.request("GET", "/health"))
        const unmatched = yield* Effect.promise(() => server.request("GET", "/nowhere"))
        expect([health.status, unmatched.status]).toEqual([200, 404])
        expect(requestLines()).toEqual([])
      }
    }), 60_000)
})

/** The service as its own process on a fresh embedded database, logging every request, with `settings`. */
const runningService = (settings: Record<string, string>) =>
  Effect.flatMap(freshDatabase("pglite"), (database) =>
    Effect.acquireRelease(
      Effect.promise(() =>
        startServiceProcess(process.execPath, [`${root}src/main.ts`], {
          ...database,
          DATABASE_URL: "",
          REDIS_URL: "",
          ADMIN_TOKEN: "",
          LOG_LEVEL: "info",
          REQUEST_LOG: "true",
          ...settings
        })
      ),
      (service) => Effect.promise(() => service.stop())
    ))

describe("LOG_FORMAT=text", () => {
  it.live("writes a request as one line, its annotations as key=value", () =>
    Effect.gen(function*() {
      const service = yield* runningService({ LOG_FORMAT: "text" })
      yield* Effect.promise(() => fetch(`${service.baseUrl}/nowhere`, { headers: { "x-request-id": "text-line" } }))
      yield* Effect.promise(() => service.stop())
      const lines = service.output().split("\n").filter((line) => line.includes("text-line"))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(#\d+\): request request_id=text-line method=GET route=unmatched status=404 duration_ms=[\d.]+$/
      )
    }), 120_000)
})

describe("LOG_FORMAT=json", () => {
  it.live("makes every line the running service writes one JSON object: the start-up facts and keys, and request lines with their annotations", () =>
    Effect.gen(function*() {
      const service = yield* runningService({ LOG_FORMAT: "json" })
      const answer = yield* Effect.promise(() => fetch(`${service.baseUrl}/nowhere`, { headers: { "x-request-id": "json-line" } }))
      expect(answer.status).toBe(404)
      yield* Effect.promise(() => service.stop())

      // start-up's banner too: a log shipper reading this output must be able to take every line
      const logLines = service.output().split("\n").filter((line) => line !== "")
      const parsed = logLines.map((line) => JSON.parse(line))
      expect(parsed).toContainEqual(expect.objectContaining({
        level: "INFO",
        message: expect.stringContaining(`is listening on ${service.baseUrl}`),
        annotations: expect.objectContaining({
          url: service.baseUrl,
          database: expect.stringContaining("embedded PGlite"),
          demo_full_key: expect.stringMatching(/^tf_/),
          demo_widget_key: expect.stringMatching(/^tf_/),
          docs: `${service.baseUrl}/docs`
        })
      }))
      expect(parsed).toContainEqual(expect.objectContaining({
        level: "INFO",
        message: "request",
        annotations: expect.objectContaining({ request_id: "json-line", method: "GET", route: "unmatched", status: 404 })
      }))
    }), 120_000)

  it.live("names the trace and span of a traced request's line, the ones its traceparent carried on", () =>
    Effect.gen(function*() {
      // nothing listens there: the spans are made and dropped, which is all this needs
      const service = yield* runningService({
        LOG_FORMAT: "json",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
        OTEL_TRACES_SAMPLER_ARG: "1"
      })
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
      yield* Effect.promise(() =>
        fetch(`${service.baseUrl}/health`, {
          headers: { "x-request-id": "traced-line", traceparent: `00-${traceId}-00f067aa0ba902b7-01` }
        })
      )
      // a caller that does not keep its trace: no span is kept, so the line names none
      yield* Effect.promise(() =>
        fetch(`${service.baseUrl}/health`, {
          headers: { "x-request-id": "dropped-line", traceparent: `00-${traceId}-00f067aa0ba902b7-00` }
        })
      )
      yield* Effect.promise(() => service.stop())
      const lines = service.output().split("\n").filter((text) => text.startsWith("{")).map((text) => JSON.parse(text))
      const line = lines.find((entry) => entry.annotations?.request_id === "traced-line")
      expect(line).toMatchObject({ trace_id: traceId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) })
      expect(line.span_id).not.toBe("00f067aa0ba902b7")
      const dropped = lines.find((entry) => entry.annotations?.request_id === "dropped-line")
      expect(dropped).toMatchObject({ message: "request" })
      expect(dropped).not.toHaveProperty("trace_id")
      expect(dropped).not.toHaveProperty("span_id")
    }), 120_000)
})
