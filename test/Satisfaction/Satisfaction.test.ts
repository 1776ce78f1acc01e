/**
 * Satisfaction ratings: the whole service in-process with its live pipeline, the real database, a
 * loopback SMTP sink as the mail server and a stub as the webhook receiver. The link's token is
 * only ever in the mail, so the tests read it from there, as a contact would.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { adminRead, createTicket, jobsOf, settled, updateTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually, eventuallyDefined } from "../support/Eventually.ts"
import { SmtpSink, smtpSink } from "../support/SmtpSink.ts"
import { stubServer } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const unfolded = (raw: string) => raw.replace(/=\r?\n/g, "")

const tokenIn = (raw: string) => /\/rate\/(csat_[A-Za-z0-9_-]{43})/.exec(unfolded(raw))?.[1]

const mailsTo = (sink: SmtpSink["Service"], address: string) => sink.received.filter((mail) => mail.to.includes(address))

const call = (server: TestServerShape, method: string, path: string, options?: Parameters<TestServerShape["request"]>[2]) =>
  Effect.promise(() => server.request(method, path, options))

const admin = (server: TestServerShape, method: string, path: string, body?: unknown) =>
  call(server, method, path, { key: adminToken, ...(body === undefined ? {} : { body }) })

/** A project (with its settings changed first when given) and a ticket from `email`. */
const ticketFrom = (server: TestServerShape, email: string, settings?: Record<string, unknown>) =>
  Effect.gen(function*() {
    const project = yield* createProject(server)
    if (settings !== undefined) {
      const changed = yield* admin(server, "PATCH", `/v1/admin/projects/${project.projectId}/satisfaction-settings`, settings)
      expect(changed.status).toBe(200)
    }
    const created = yield* createTicket(server, project.key, { subject: "Export is stuck", body: "Since Monday.", sender_email: email })
    return { ...project, ticketId: created.ticket_id, ticketNumber: created.ticket_number }
  })

const resolve = (server: TestServerShape, projectId: string, ticketId: string) =>
  Effect.map(updateTicket(server, projectId, ticketId, { status: "resolved" }), (answer) => expect(answer.status).toBe(200))

/** Resolves the ticket and waits for the mail asking `email` to rate it; answers the link's token. */
const askedByMail = (server: TestServerShape, sink: SmtpSink["Service"], ticket: { projectId: string; ticketId: string }, email: string) =>
  Effect.gen(function*() {
    yield* Effect.orDie(resolve(server, ticket.projectId, ticket.ticketId))
    const mail = yield* eventuallyDefined("the rating mail", Effect.sync(() => mailsTo(sink, email)[0]))
    return { token: tokenIn(mail.raw)!, mail }
  })

const ratingsOf = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ rating: string | null; comment: string | null }>`
      SELECT rating, comment FROM satisfaction_requests WHERE ticket_id = ${ticketId}`).pipe(Effect.orDie)

const metric = (server: TestServerShape, rating: string) =>
  Effect.promise(async () => {
    const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })).text()
    const line = text.split("\n").find((l) => l.startsWith(`satisfaction_ratings_total{rating="${rating}"}`))
    return line === undefined ? 0 : Number(line.split(" ").at(-1))
  })

describe.each(databaseKinds)("satisfaction on %s", (kind) => {
  const service = Layer.unwrap(Effect.map(Effect.service(SmtpSink), (sink) =>
    testServer(kind, {
      SMTP_URL: sink.url,
      MAIL_FROM: "Support <support@acme.test>",
      PUBLIC_URL: "https://help.acme.test/",
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true"
    }, undefined, { pipeline: "live" }))).pipe(Layer.provideMerge(smtpSink))

  layer(service, { excludeTestServices: true })((it) => {
    it.effect("resolving asks once by mail; the link shows without recording; a POST records once and fires ticket_rated once", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const hook = yield* stubServer()
        const ticket = yield* ticketFrom(server, "rita@example.com")
        const registered = yield* admin(server, "POST", `/v1/admin/projects/${ticket.projectId}/webhooks`, {
          url: `${hook.url}/hooks`,
          events: ["ticket_rated"]
        })
        expect(registered.status).toBe(201)
        const before = yield* metric(server, "4")

        const { mail, token } = yield* askedByMail(server, sink, ticket, "rita@example.com")
        const text = unfolded(mail.raw)
        expect(text).toContain(`Subject: [#${ticket.ticketNumber}] How did we do? Re: Export is stuck`)
        expect(text).toMatch(/^Auto-Submitted: auto-generated/mi)
        expect(text).toContain(`https://help.acme.test/rate/${token}`)
        expect(token).toMatch(/^csat_/)

        const asked = yield* adminRead(server, ticket.projectId, ticket.ticketId)
        expect(asked.satisfaction).toEqual({
          scale: "five",
          rating: null,
          comment: null,
          rated_at: null,
          requested_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        })
        const publicRead = yield* call(server, "GET", `/v1/tickets/${ticket.ticketId}`, { key: ticket.key })
        expect(publicRead.body.satisfaction).toEqual({ scale: "five", rating: null, comment: null, rated_at: null })

        const shown = yield* call(server, "GET", `/v1/ratings/${token}`)
        expect(shown.status).toBe(200)
        expect(shown.body).toEqual({
          ticket_number: ticket.ticketNumber,
          subject: "Export is stuck",
          scale: "five",
          rating: null,
          comment: null,
          rated_at: null
        })
        yield* call(server, "GET", `/v1/ratings/${token}`)
        expect(yield* ratingsOf(ticket.ticketId)).toEqual([{ rating: null, comment: null }])

        const rated = yield* call(server, "POST", `/v1/ratings/${token}`, { body: { rating: 4, comment: "  Quick, thanks  " } })
        expect(rated.status).toBe(201)
        expect(rated.body).toEqual({
          ticket_number: ticket.ticketNumber,
          subject: "Export is stuck",
          scale: "five",
          rating: 4,
          comment: "Quick, thanks",
          rated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        })
        const again = yield* call(server, "POST", `/v1/ratings/${token}`, { body: { rating: 1 } })
        expect(again.status).toBe(409)
        expect(again.body.error).toEqual({ code: "CONFLICT", message: "this ticket was already rated: a rating is recorded once" })
        expect(yield* ratingsOf(ticket.ticketId)).toEqual([{ rating: "4", comment: "Quick, thanks" }])

        yield* eventually("the ticket_rated delivery", Effect.sync(() => ({ done: hook.requests.length >= 1, value: hook.requests.length })))
        yield* settled(ticket.ticketId)
        expect(hook.requests).toHaveLength(1)
        const delivered = JSON.parse(hook.requests[0]!.body)
        expect(delivered).toEqual({
          event: "ticket_rated",
          timestamp: rated.body.rated_at,
          data: {
            id: ticket.ticketId,
            project_id: ticket.projectId,
            rating: 4,
            comment: "Quick, thanks",
            rated_at: rated.body.rated_at
          }
        })
        const read = yield* adminRead(server, ticket.projectId, ticket.ticketId)
        expect(read.satisfaction).toMatchObject({ rating: 4, comment: "Quick, thanks", rated_at: rated.body.rated_at })
        expect((yield* call(server, "GET", `/v1/ratings/${token}`)).body.rating).toBe(4)

        const summary = yield* admin(server, "GET", `/v1/admin/projects/${ticket.projectId}/satisfaction`)
        expect(summary.status).toBe(200)
        expect(summary.body).toEqual({
          ratings: 1,
          average: 4,
          good: 0,
          bad: 0,
          distribution: { "1": 0, "2": 0, "3": 0, "4": 1, "5": 0, good: 0, bad: 0 },
          score: 1
        })
        const later = yield* admin(
          server,
          "GET",
          `/v1/admin/projects/${ticket.projectId}/satisfaction?since=${encodeURIComponent("2999-01-01T00:00:00Z")}`
        )
        expect(later.body.ratings).toBe(0)
        expect(later.body.average).toBeNull()
        expect((yield* metric(server, "4")) - before).toBe(1)

        // reopened and resolved again: the contact was asked once, and is not asked twice
        yield* Effect.orDie(updateTicket(server, ticket.projectId, ticket.ticketId, { status: "open" }))
        yield* Effect.orDie(resolve(server, ticket.projectId, ticket.ticketId))
        yield* settled(ticket.ticketId)
        const asks = (yield* jobsOf(ticket.ticketId)).filter((job) => job.kind === "satisfaction_request")
        expect(asks.map((job) => job.status)).toEqual(["done", "done"])
        expect(mailsTo(sink, "rita@example.com")).toHaveLength(1)
        expect(yield* ratingsOf(ticket.ticketId)).toHaveLength(1)
      }), 180_000)

    it.effect("two ratings racing record one: one 201, one 409, one event", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const ticket = yield* ticketFrom(server, "race@example.com")
        const { token } = yield* askedByMail(server, sink, ticket, "race@example.com")
        const answers = yield* Effect.all([
          call(server, "POST", `/v1/ratings/${token}`, { body: { rating: 5 } }),
          call(server, "POST", `/v1/ratings/${token}`, { body: { rating: 2 } })
        ], { concurrency: 2 })
        expect(answers.map((a) => a.status).sort()).toEqual([201, 409])
        const winner = answers.find((a) => a.status === 201)!.body.rating
        expect(yield* ratingsOf(ticket.ticketId)).toEqual([{ rating: String(winner), comment: null }])
        const sql = yield* SqlClient.SqlClient
        const events = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM events WHERE ticket_id = ${ticket.ticketId} AND kind = 'ticket_rated'`
        expect(events[0]!.n).toBe(1)
      }))

    it.effect("good/bad: the scale's values only, each refusal naming the field, nothing recorded", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const ticket = yield* ticketFrom(server, "gus@example.com", { scale: "good_bad" })
        const { token } = yield* askedByMail(server, sink, ticket, "gus@example.com")
        expect(unfolded(mailsTo(sink, "gus@example.com")[0]!.raw)).toContain("Were you happy")
        const refused = [
          [{ rating: 5 }, "rating must be good or bad on this project's scale"],
          [{}, "rating is required"],
          [{ rating: "great" }, "rating must be an integer from 1 to 5, or good or bad, as the project asks"],
          [{ rating: "good", comment: "x".repeat(2001) }, "comment must be at most 2,000 characters"],
          [{ rating: "good", comment: 7 }, "comment must be a string"],
          ["good", "request body must be a JSON object"]
        ] as const
        for (const [body, message] of refused) {
          const answer = yield* call(server, "POST", `/v1/ratings/${token}`, { body })
          expect([answer.status, answer.body.error.code, answer.body.error.message], JSON.stringify(body)).toEqual([
            400,
            "VALIDATION_ERROR",
            message
          ])
        }
        expect(yield* ratingsOf(ticket.ticketId)).toEqual([{ rating: null, comment: null }])
        const rated = yield* call(server, "POST", `/v1/ratings/${token}`, { body: { rating: "bad", comment: "" } })
        expect(rated.status).toBe(201)
        expect(rated.body).toMatchObject({ scale: "good_bad", rating: "bad", comment: null })
        const summary = yield* admin(server, "GET", `/v1/admin/projects/${ticket.projectId}/satisfaction`)
        expect(summary.body).toMatchObject({ ratings: 1, average: null, good: 0, bad: 1, score: 0 })
      }))

    it.effect("the link's page asks without recording, and runs only its own script", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const ticket = yield* ticketFrom(server, "paige@example.com")
        const { token } = yield* askedByMail(server, sink, ticket, "paige@example.com")
        const page = yield* call(server, "GET", `/rate/${token}`)
        expect(page.status).toBe(200)
        expect(page.headers.get("content-type")).toMatch(/^text\/html/)
        expect(page.headers.get("cache-control")).toBe("no-store")
        const policy = page.headers.get("content-security-policy")!
        expect(policy).toContain("default-src 'none'")
        const script = /<script>([\s\S]*?)<\/script>/.exec(page.text)![1]!
        const digest = createHash("sha256").update(script).digest("base64")
        expect(policy).toContain(`script-src 'sha256-${digest}'`)
        expect(page.text).toContain("/v1/ratings/")
        expect(yield* ratingsOf(ticket.ticketId)).toEqual([{ rating: null, comment: null }])
        expect((yield* call(server, "GET", "/rate/not-a-token")).status).toBe(404)
      }))

    it.effect("an unknown or malformed token is 404, and no key is needed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const unknown = `csat_${"A".repeat(43)}`
        for (const path of [`/v1/ratings/${unknown}`, "/v1/ratings/csat_short", "/v1/ratings/tf_not-a-token"]) {
          const read = yield* call(server, "GET", path)
          expect([read.status, read.body.error.code, read.body.error.message]).toEqual([404, "NOT_FOUND", "rating not found"])
        }
        const posted = yield* call(server, "POST", `/v1/ratings/${unknown}`, { body: { rating: 3 } })
        expect(posted.status).toBe(404)
      }))

    it.effect("turned off: a resolved ticket is not asked", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const ticket = yield* ticketFrom(server, "off@example.com", { enabled: false })
        yield* Effect.orDie(resolve(server, ticket.projectId, ticket.ticketId))
        yield* settled(ticket.ticketId)
        expect((yield* jobsOf(ticket.ticketId)).filter((job) => job.kind === "satisfaction_request")).toHaveLength(1)
        expect((yield* adminRead(server, ticket.projectId, ticket.ticketId)).satisfaction).toBeNull()
        expect(yield* ratingsOf(ticket.ticketId)).toEqual([])
        expect(mailsTo(sink, "off@example.com")).toEqual([])
      }))

    it.effect("delayed: the request's job falls due the project's delay after the resolution, not before", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const ticket = yield* ticketFrom(server, "later@example.com", { delay_minutes: 90 })
        yield* Effect.orDie(resolve(server, ticket.projectId, ticket.ticketId))
        const read = yield* adminRead(server, ticket.projectId, ticket.ticketId)
        const sql = yield* SqlClient.SqlClient
        const [job] = yield* sql<{ status: string; run_at: Date }>`
          SELECT status, run_at FROM jobs WHERE ticket_id = ${ticket.ticketId} AND kind = 'satisfaction_request'`
        expect(job!.status).toBe("pending")
        expect(new Date(job!.run_at).getTime() - Date.parse(read.updated_at)).toBe(90 * 60_000)
        expect(read.satisfaction).toBeNull()
      }))

    it.effect("the widget rates with its ticket's proof, once; without it or from another project, nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const project = yield* createProject(server)
        const other = yield* createProject(server, "Other")
        const created = yield* call(server, "POST", "/v1/tickets", {
          key: project.widgetKey,
          body: { subject: "Widget ticket", body: "From the widget", sender_email: "wendy@example.com" }
        })
        expect(created.status).toBe(202)
        const ticketId: string = created.body.ticket_id
        const proof = { "x-ticket-token": created.body.access_token }
        const path = `/v1/tickets/${ticketId}/rating`

        const early = yield* call(server, "POST", path, { key: project.key, body: { rating: 5 } })
        expect([early.status, early.body.error.message]).toEqual([409, "this ticket's contact has not been asked to rate it"])

        yield* askedByMail(server, sink, { projectId: project.projectId, ticketId }, "wendy@example.com")
        const seen = yield* call(server, "GET", `/v1/tickets/${ticketId}`, { key: project.widgetKey, headers: proof })
        expect(seen.body.satisfaction).toEqual({ scale: "five", rating: null, comment: null, rated_at: null })

        const noProof = yield* call(server, "POST", path, { key: project.widgetKey, body: { rating: 5 } })
        expect(noProof.status).toBe(403)
        const wrongProof = yield* call(server, "POST", path, {
          key: project.widgetKey,
          headers: { "x-ticket-token": "tat_forged" },
          body: { rating: 5 }
        })
        expect(wrongProof.status).toBe(404)
        const elsewhere = yield* call(server, "POST", path, { key: other.key, body: { rating: 5 } })
        expect([elsewhere.status, elsewhere.body.error.message]).toEqual([404, "ticket not found"])
        const bad = yield* call(server, "POST", path, { key: project.widgetKey, headers: proof, body: { rating: 0 } })
        expect([bad.status, bad.body.error.message]).toEqual([
          400,
          "rating must be an integer from 1 to 5, or good or bad, as the project asks"
        ])
        expect(yield* ratingsOf(ticketId)).toEqual([{ rating: null, comment: null }])

        const rated = yield* call(server, "POST", path, { key: project.widgetKey, headers: proof, body: { rating: 5 } })
        expect(rated.status).toBe(201)
        expect(rated.body).toMatchObject({ rating: 5, scale: "five" })
        const twice = yield* call(server, "POST", path, { key: project.widgetKey, headers: proof, body: { rating: 5 } })
        expect(twice.status).toBe(409)
        const after = yield* call(server, "GET", `/v1/tickets/${ticketId}`, { key: project.widgetKey, headers: proof })
        expect(after.body.satisfaction).toMatchObject({ rating: 5, rated_at: rated.body.rated_at })
      }))

    it.effect("settings: defaults, changes, refusals naming the field, and 404 for a project that is not there", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const project = yield* createProject(server)
        const path = `/v1/admin/projects/${project.projectId}/satisfaction-settings`
        expect((yield* admin(server, "GET", path)).body).toEqual({ enabled: true, scale: "five", delay_minutes: 0 })
        const changed = yield* admin(server, "PATCH", path, { scale: "good_bad", delay_minutes: 15 })
        expect([changed.status, changed.body]).toEqual([200, { enabled: true, scale: "good_bad", delay_minutes: 15 }])
        const refused = [
          [{ scale: "stars" }, "scale must be one of five, good_bad"],
          [{ delay_minutes: -1 }, "delay_minutes must be an integer from 0 to 525,600 (a year)"],
          [{ delay_minutes: 1.5 }, "delay_minutes must be an integer from 0 to 525,600 (a year)"],
          [{ enabled: "yes" }, "enabled must be true or false"]
        ] as const
        for (const [body, message] of refused) {
          const answer = yield* admin(server, "PATCH", path, body)
          expect([answer.status, answer.body.error.message], JSON.stringify(body)).toEqual([400, message])
        }
        expect((yield* admin(server, "GET", path)).body).toEqual({ enabled: true, scale: "good_bad", delay_minutes: 15 })
        const missing = "/v1/admin/projects/00000000-0000-4000-8000-000000000000"
        expect((yield* admin(server, "GET", `${missing}/satisfaction-settings`)).status).toBe(404)
        expect((yield* admin(server, "PATCH", `${missing}/satisfaction-settings`, { enabled: false })).status).toBe(404)
        expect((yield* admin(server, "GET", `${missing}/satisfaction`)).status).toBe(404)
        const badSince = yield* admin(server, "GET", `/v1/admin/projects/${project.projectId}/satisfaction?since=yesterday`)
        expect([badSince.status, badSince.body.error.message]).toEqual([
          400,
          "since must be an ISO 8601 date or time, such as 2026-11-01T00:00:00Z"
        ])
        expect((yield* call(server, "GET", path, { key: project.key })).status).toBe(401)
      }))
  })
})

describe.each(databaseKinds)("rating links' rate limit on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "2" }), { excludeTestServices: true })((it) => {
    it.effect("keyless calls spend their client address's budget, so guessing tokens is throttled", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const guess = `/v1/ratings/csat_${"B".repeat(43)}`
        expect((yield* call(server, "GET", guess)).status).toBe(404)
        expect((yield* call(server, "POST", guess, { body: { rating: 5 } })).status).toBe(404)
        const refused = yield* call(server, "GET", guess)
        expect([refused.status, refused.body.error.code]).toEqual([429, "RATE_LIMITED"])
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
      }))
  })
})
