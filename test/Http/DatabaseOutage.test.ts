/**
 * A PostgreSQL outage under load, as an operator and a client see it: every request that needs the
 * database answers 503 SERVICE_UNAVAILABLE with Retry-After in the envelope, the log says once that
 * the database went away and once that it came back (with how many requests it turned away), the
 * service recovers by itself, and nothing it acknowledged is lost. The service runs as its own
 * process, so the test reads exactly what it logs; the database goes away through a loopback proxy.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import { freshDatabase } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { provisionProject, startServiceProcess } from "../support/Process.ts"
import { describeNeeding, postgresMissing } from "../support/Requires.ts"
import { tcpProxy } from "../support/TcpProxy.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const adminToken = "outage-admin-token"

const settings = {
  ADMIN_TOKEN: adminToken,
  REDIS_URL: "",
  TRIAGE_PROVIDER: "local",
  ERROR_TRACKER: "none",
  SMTP_URL: "",
  // the request log would add a line per request; what is counted here is what the outage logs
  REQUEST_LOG: "false"
}

interface Answer {
  readonly status: number
  readonly retryAfter: string | null
  readonly body: unknown
}

const call = (baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<Answer> =>
  fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  }).then(async (response) => ({
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: await response.json()
  }))

const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "")

describeNeeding(postgresMissing, "a PostgreSQL outage", () => {
  it.live("answers 503 with Retry-After, logs its start and end once each, and loses nothing", () =>
    Effect.gen(function*() {
      const database = yield* freshDatabase("postgres")
      const url = new URL(database.DATABASE_URL!)
      const proxy = yield* tcpProxy(Number(url.port || 5432), url.hostname)
      url.host = `127.0.0.1:${proxy.port}`
      const service = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startServiceProcess(process.execPath, [`${root}src/main.ts`], {
            ...settings,
            ...database,
            DATABASE_URL: url.toString()
          })
        ),
        (running) => Effect.promise(() => running.stop())
      )
      const { key } = yield* Effect.promise(() => provisionProject(service.baseUrl, adminToken, "outage"))
      const acknowledged: Array<string> = []
      const file = (n: number) =>
        Effect.promise(() => call(service.baseUrl, key, "POST", "/v1/tickets", { subject: `ticket ${n}`, body: "text" }))
      for (let n = 0; n < 3; n++) {
        const answer = yield* file(n)
        expect(answer.status).toBe(202)
        acknowledged.push((answer.body as { ticket_id: string }).ticket_id)
      }

      const logBefore = service.output().length
      proxy.cut()
      // creates and reads, ten at a time, while the database is away
      const during = yield* Effect.forEach(
        Array.from({ length: 60 }, (_, n) => n),
        (n) =>
          n % 3 === 0
            ? Effect.promise(() => call(service.baseUrl, key, "GET", `/v1/tickets/${acknowledged[0]}`))
            : file(100 + n),
        { concurrency: 10 }
      )
      for (const answer of during) {
        expect(answer).toEqual({
          status: 503,
          retryAfter: expect.stringMatching(/^[1-9]\d*$/),
          body: { error: { code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("database") } }
        })
      }
      const duringOutage = lines(service.output().slice(logBefore))
      expect(duringOutage.filter((line) => /database unavailable/i.test(line))).toHaveLength(1)
      expect(duringOutage.join("\n")).not.toMatch(/unexpected failure|INTERNAL_ERROR|at .*\.ts:\d+/)

      proxy.restore()
      const back = yield* eventually(
        "the database to be back in the log",
        Effect.sync(() => {
          const after = lines(service.output().slice(logBefore))
          const line = after.find((line) => /database available again/i.test(line))
          return { done: line !== undefined, value: { line, after } }
        })
      )
      expect(back.line).toContain(`${during.length} requests answered 503`)
      // a handful of lines for the whole outage, not one or more per failed request
      expect(back.after.length).toBeLessThanOrEqual(5)

      const again = yield* file(1000)
      expect(again.status).toBe(202)
      acknowledged.push((again.body as { ticket_id: string }).ticket_id)
      for (const id of acknowledged) {
        expect((yield* Effect.promise(() => call(service.baseUrl, key, "GET", `/v1/tickets/${id}`))).status).toBe(200)
      }
    }), 120_000)
})
