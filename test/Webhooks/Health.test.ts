/**
 * What keeps an endpoint healthy for months, against loopback receivers with short schedules: a
 * `410` disables it, `Retry-After` is obeyed, a receiver down for WEBHOOK_DISABLE_AFTER leaves
 * the endpoint disabled with one mail and one event, the extended schedule, the throttle, range
 * replays in order, and a rotated secret that signs beside the new one for its overlap only.
 * Signatures are checked by standardwebhooks and @octokit/webhooks-methods from npm.
 */
import { layer } from "@effect/vitest"
import { verify as verifySha256 } from "@octokit/webhooks-methods"
import { Duration, Effect, Layer } from "effect"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { parseRetryAfter } from "../../src/Webhooks/Webhooks.ts"
import { createAgent } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { SmtpSink, smtpSink } from "../support/SmtpSink.ts"
import { openStream } from "../support/Sse.ts"
import { type Stub, type StubRequest, stubServer } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const settings = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,300ms",
  WEBHOOK_EXTENDED_RETRY_SCHEDULE: "300ms,300ms,300ms,300ms,300ms,300ms",
  WEBHOOK_DISABLE_AFTER: "2s",
  WEBHOOK_RETRY_AFTER_MAX: "3s",
  WEBHOOK_SECRET_OVERLAP: "2s",
  MAIL_FROM: "Support <support@acme.test>"
}

const standardVerifies = (secret: string, request: StubRequest) => {
  try {
    new StandardWebhook(secret).verify(request.body, {
      "webhook-id": String(request.headers["webhook-id"]),
      "webhook-timestamp": String(request.headers["webhook-timestamp"]),
      "webhook-signature": String(request.headers["webhook-signature"])
    })
    return true
  } catch {
    return false
  }
}

const shaVerifies = (secret: string, request: StubRequest) =>
  Effect.promise(() => verifySha256(secret, request.body, String(request.headers["x-service-signature"])))

const eventOf = (request: StubRequest) => JSON.parse(request.body) as { event: string; data: Record<string, unknown> }

const atLeast = (stub: Stub, n: number) =>
  Effect.sync(() => ({ done: stub.requests.length >= n, value: stub.requests.length }))

const fileTicket = (server: TestServerShape, key: string, subject: string) =>
  Effect.flatMap(server.api(key), (api) =>
    api.tickets.create({ payload: { subject, body: "Something is wrong" }, headers: {} }))

/** The server, its operator client and a fresh project: where every test here starts. */
const aProject = Effect.gen(function*() {
  const server = yield* TestServer
  const admin = yield* server.api(adminToken)
  const project = yield* createProject(server)
  return { server, admin, project, pid: project.projectId }
})

const sleep = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

describe.each(databaseKinds)("webhook health on %s", (kind) => {
  const service = Layer.unwrap(Effect.map(Effect.service(SmtpSink), (sink) =>
    testServer(kind, { ...settings, SMTP_URL: sink.url }, undefined, { pipeline: "live" }))).pipe(Layer.provideMerge(smtpSink))

  layer(service, { excludeTestServices: true })((it) => {
    it.effect("a 410 disables the endpoint at once: one mail, one event to the others, and enable is one call", () =>
      Effect.scoped(Effect.gen(function*() {
        const { admin, pid, project, server } = yield* aProject
        const sink = yield* SmtpSink
        yield* createAgent(server, pid, "ops@acme.test", "Ops")
        const goneHook = yield* stubServer(() => ({ status: 410 }))
        const otherHook = yield* stubServer()
        const stream = yield* openStream(server.baseUrl, "/v1/events?last_event_id=0", { authorization: `Bearer ${project.key}` })
        const gone = yield* admin.webhooks.register({ params: { pid }, payload: { url: `${goneHook.url}/h` } })
        yield* admin.webhooks.register({ params: { pid }, payload: { url: `${otherHook.url}/h` } })

        yield* fileTicket(server, project.key, "First")
        // the other endpoint gets the ticket and then the news of the first one
        const told = yield* eventually("endpoint_disabled at the other endpoint", Effect.sync(() => {
          const events = otherHook.requests.map(eventOf)
          return { done: events.some((event) => event.event === "endpoint_disabled"), value: events.map((e) => e.event) }
        }))
        expect(told).toEqual(["ticket_created", "endpoint_disabled"])
        const disabledEvent = eventOf(otherHook.requests[1]!)
        expect(disabledEvent.data).toEqual({
          id: gone.webhook_id,
          project_id: pid,
          webhook_id: gone.webhook_id,
          reason: "the receiver answered 410 Gone",
          disabled_at: expect.stringMatching(/Z$/)
        })
        // the project's full-key stream has it too, with no ticket of its own
        const streamed = yield* Effect.promise(() => stream.next(2))
        expect(streamed.map((event) => event.event)).toEqual(["ticket_created", "endpoint_disabled"])

        const mails = yield* eventually("the operators' mail", Effect.sync(() => {
          const sent = sink.received.filter((mail) => mail.to.includes("ops@acme.test"))
          return { done: sent.length >= 1, value: sent }
        }))
        expect(mails).toHaveLength(1)
        // quoted-printable: soft line breaks undone
        const text = mails[0]!.raw.replace(/=\r\n/g, "")
        expect(text).toContain(`Subject: Webhook endpoint disabled: ${goneHook.url}/h`)
        expect(text).toContain("Why: the receiver answered 410 Gone.")
        expect(text).toContain(`webhooks enable ${pid} ${gone.webhook_id}`)

        // tried once, never again: a 410 is not retried
        yield* sleep(800)
        expect(goneHook.requests).toHaveLength(1)
        const listed = (yield* admin.webhooks.list({ params: { pid } })).webhooks.find((w) => w.webhook_id === gone.webhook_id)!
        expect(listed).toMatchObject({ status: "disabled", disabled_reason: "the receiver answered 410 Gone" })
        const [first] = (yield* admin.webhooks.deliveries({ params: { pid, webhook_id: gone.webhook_id } })).deliveries
        expect(first).toMatchObject({ status: "failed", attempts: 1, last_status_code: 410 })

        // while disabled, its events are logged as failed and not sent; a redelivery or replay is refused
        yield* fileTicket(server, project.key, "Second")
        yield* eventually("the second ticket at the other endpoint", atLeast(otherHook, 3))
        const whileDisabled = (yield* admin.webhooks.deliveries({ params: { pid, webhook_id: gone.webhook_id } })).deliveries
        expect(whileDisabled[0]).toMatchObject({ status: "failed", attempts: 0, last_error: "the webhook is disabled" })
        const refused = yield* Effect.flip(admin.webhooks.replay({
          params: { pid, webhook_id: gone.webhook_id },
          payload: { since: "2020-01-01T00:00:00Z" }
        }))
        expect(refused._tag).toBe("Conflict")

        // enabled again: the next event goes out, and the one missed is there for a replay
        goneHook.answer = () => ({ status: 200 })
        const enabled = yield* admin.webhooks.enable({ params: { pid, webhook_id: gone.webhook_id } })
        expect(enabled).toMatchObject({ status: "enabled", disabled_at: null, disabled_reason: null, failing_since: null })
        const replay = yield* admin.webhooks.replay({
          params: { pid, webhook_id: gone.webhook_id },
          payload: { since: "2020-01-01T00:00:00Z" }
        })
        expect(replay).toMatchObject({ only: "failed", total: 2 })
        yield* eventually("both tickets at the enabled endpoint", atLeast(goneHook, 3))
        expect(goneHook.requests.slice(1).map((request) => eventOf(request).data.subject)).toEqual(["First", "Second"])
        // no more mail, no second event
        expect(sink.received.filter((mail) => mail.to.includes("ops@acme.test"))).toHaveLength(1)
        expect(otherHook.requests.map(eventOf).filter((event) => event.event === "endpoint_disabled")).toHaveLength(1)
      })), 60_000)

    it.effect("obeys Retry-After on 429 and 503, up to WEBHOOK_RETRY_AFTER_MAX", () =>
      Effect.scoped(Effect.gen(function*() {
        const { admin, pid, project, server } = yield* aProject
        const hook = yield* stubServer((n) =>
          n === 1
            ? { status: 429, headers: { "retry-after": "1" } }
            : n === 2
            ? { status: 503, headers: { "retry-after": "3600" } }
            : { status: 200 }
        )
        yield* admin.webhooks.register({ params: { pid }, payload: { url: `${hook.url}/h` } })
        yield* fileTicket(server, project.key, "Slow down")
        yield* eventually("three attempts", atLeast(hook, 3), 20_000)
        const [first, second, third] = hook.requests
        // the schedule says 100 ms, then 200 ms; the receiver asked for 1 s, then an hour (capped at 3 s);
        // all of it inside WEBHOOK_DISABLE_AFTER's 2 s of failing, or the endpoint would be disabled
        expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_000)
        expect(third!.at - second!.at).toBeGreaterThanOrEqual(3_000)
        expect(third!.at - second!.at).toBeLessThan(60_000)
        expect(new Set(hook.requests.map((request) => request.headers["webhook-id"])).size).toBe(1)
      })), 60_000)

    it.effect("a redirect is a failure and is not followed", () =>
      Effect.scoped(Effect.gen(function*() {
        const { admin, pid, project, server } = yield* aProject
        const target = yield* stubServer()
        const hook = yield* stubServer(() => ({ status: 307, headers: { location: `${target.url}/elsewhere` } }))
        const registered = yield* admin.webhooks.register({ params: { pid }, payload: { url: `${hook.url}/h` } })
        yield* fileTicket(server, project.key, "Moved")
        yield* eventually("four attempts", atLeast(hook, 4))
        const [delivery] = yield* eventually("the delivery to fail", Effect.map(
          admin.webhooks.deliveries({ params: { pid, webhook_id: registered.webhook_id } }),
          (log) => ({ done: log.deliveries[0]?.status === "failed", value: log.deliveries })
        ))
        expect(delivery).toMatchObject({ attempts: 4, last_status_code: 307, last_error: "redirect (307) not followed" })
        expect(target.requests).toHaveLength(0)
      })), 60_000)

    it.effect("an endpoint may choose the extended schedule: more attempts, where the default gives up", () =>
      Effect.scoped(Effect.gen(function*() {
        const { admin, pid, project, server } = yield* aProject
        // five failures, then the receiver is back
        const flaky = () => (n: number) => n <= 5 ? { status: 500 } : { status: 200 }
        const standardHook = yield* stubServer(flaky())
        const patientHook = yield* stubServer(flaky())
        const standard = yield* admin.webhooks.register({ params: { pid }, payload: { url: `${standardHook.url}/h` } })
        const patient = yield* admin.webhooks.register({
          params: { pid },
          payload: { url: `${patientHook.url}/h`, retry_schedule: "extended" }
        })
        expect(patient.retry_schedule).toBe("extended")
        yield* fileTicket(server, project.key, "Patience")
        yield* eventually("the sixth attempt on the extended schedule", atLeast(patientHook, 6), 20_000)
        const log = (webhookId: string) =>
          Effect.map(admin.webhooks.deliveries({ params: { pid, webhook_id: webhookId } }), (l) => l.deliveries[0]!)
        expect(yield* log(patient.webhook_id)).toMatchObject({ status: "delivered", attempts: 6 })
        expect(yield* log(standard.webhook_id)).toMatchObject({ status: "failed", attempts: 4 })
        expect(standardHook.requests).toHaveLength(4)
        // changed in place: the other schedule, a throttle; refused values name the field
        const changed = yield* admin.webhooks.update({
          params: { pid, webhook_id: standard.webhook_id },
          payload: { retry_schedule: "extended", max_per_second: 5 }
        })
        expect(changed).toMatchObject({ retry_schedule: "extended", max_per_second: 5, events: standard.events })
        const bad = yield* Effect.promise(() =>
          server.request("PATCH", `/v1/admin/projects/${pid}/webhooks/${standard.webhook_id}`, {
            key: adminToken,
            body: { max_per_second: 0 }
          })
        )
        expect(bad.status).toBe(400)
        expect(bad.body.error.message).toContain("max_per_second must be an integer from 1 to 10000")
      })), 60_000)

    it.effect("a receiver down for WEBHOOK_DISABLE_AFTER leaves its endpoint disabled, told once", () =>
      Effect.scoped(Effect.gen(function*() {
        const { admin, pid, project, server } = yield* aProject
        const sink = yield* SmtpSink
        yield* createAgent(server, pid, "oncall@acme.test", "On call")
        const down = yield* stubServer(() => ({ status: 500 }))
        const watcher = yield* stubServer()
        const failing = yield* admin.webhooks.register({ params: { pid }, payload: { url: `${down.url}/h` } })
        yield* admin.webhooks.register({ params: { pid }, payload: { url: `${watcher.url}/h`, events: ["endpoint_disabled"] } })

        yield* fileTicket(server, project.key, "While it was down")
        yield* eventually("the first delivery's four attempts", atLeast(down, 4))
        const listed = (yield* admin.webhooks.list({ params: { pid } })).webhooks.find((w) => w.webhook_id === failing.webhook_id)!
        expect(listed).toMatchObject({ status: "enabled", failing_since: expect.stringMatching(/Z$/) })
        // a few attempts before the two seconds are up keep it enabled; the first one after disables it
        yield* sleep(2_100)
        yield* fileTicket(server, project.key, "Still down")
        yield* fileTicket(server, project.key, "And again")
        const event = yield* eventually("endpoint_disabled at the watcher", Effect.sync(() => ({
          done: watcher.requests.length >= 1,
          value: watcher.requests.map(eventOf)
        })))
        expect(event[0]!.data).toMatchObject({
          webhook_id: failing.webhook_id,
          reason: expect.stringMatching(/^no delivery got through for 2s; last: receiver answered 500$/)
        })
        yield* eventually("the on-call mail", Effect.sync(() => ({
          done: sink.received.some((mail) => mail.to.includes("oncall@acme.test")),
          value: sink.received.length
        })))
        const after = down.requests.length
        yield* sleep(1_000)
        // nothing more is tried, and nobody is told twice
        expect(down.requests.length).toBe(after)
        expect(watcher.requests).toHaveLength(1)
        expect(sink.received.filter((mail) => mail.to.includes("oncall@acme.test"))).toHaveLength(1)
        const state = (yield* admin.webhooks.list({ params: { pid } })).webhooks.find((w) => w.webhook_id === failing.webhook_id)!
        expect(state.status).toBe("disabled")
      })), 60_000)

    it.effect("replays a range in order: failed ones, or every one, with progress in the log", () =>
      Effect.scoped(Effect.gen(function*() {
        const { admin, pid, project, server } = yield* aProject
        const hook = yield* stubServer(() => ({ status: 500 }))
        const registered = yield* admin.webhooks.register({
          params: { pid },
          payload: { url: `${hook.url}/h`, events: ["ticket_created"] }
        })
        const webhook = { pid, webhook_id: registered.webhook_id }
        const start = new Date().toISOString()
        for (const subject of ["One", "Two", "Three"]) yield* fileTicket(server, project.key, subject)
        const failedLog = yield* eventually("three failed deliveries", Effect.map(
          admin.webhooks.deliveries({ params: webhook }),
          (log) => ({ done: log.deliveries.length === 3 && log.deliveries.every((d) => d.status === "failed"), value: log.deliveries })
        ))
        hook.answer = () => ({ status: 200 })
        hook.requests.length = 0
        // up to the third ticket's delivery: only the first two
        const third = failedLog[0]!
        const partial = yield* admin.webhooks.replay({ params: webhook, payload: { since: start, until: third.created_at } })
        expect(partial).toMatchObject({ webhook_id: registered.webhook_id, status: "running", total: 2, only: "failed" })
        yield* eventually("the partial replay", atLeast(hook, 2))
        const whole = yield* admin.webhooks.replay({ params: webhook, payload: { since: start } })
        expect(whole.total).toBe(1)
        yield* eventually("the rest", atLeast(hook, 3))
        expect(hook.requests.map((request) => eventOf(request).data.subject)).toEqual(["One", "Two", "Three"])
        // each under its own delivery id, as first sent
        expect(hook.requests.map((request) => request.headers["webhook-id"]))
          .toEqual([...failedLog].reverse().map((delivery) => delivery.delivery_id))
        const replays = yield* eventually("both replays done", Effect.map(
          admin.webhooks.replays({ params: webhook }),
          (list) => ({ done: list.replays.every((r) => r.status === "done"), value: list.replays })
        ))
        expect(replays.map((r) => [r.replay_id, r.total, r.delivered, r.failed])).toEqual([
          [whole.replay_id, 1, 1, 0],
          [partial.replay_id, 2, 2, 0]
        ])
        const log = (yield* admin.webhooks.deliveries({ params: webhook })).deliveries
        expect(log.map((d) => [d.status, d.replay_id])).toEqual([
          ["delivered", whole.replay_id],
          ["delivered", partial.replay_id],
          ["delivered", partial.replay_id]
        ])

        // `all` sends delivered ones too; nothing failed is left to send
        expect((yield* admin.webhooks.replay({ params: webhook, payload: { since: start } })).total).toBe(0)
        const everything = yield* admin.webhooks.replay({ params: webhook, payload: { since: start, only: "all" } })
        expect(everything.total).toBe(3)
        yield* eventually("every delivery again", atLeast(hook, 6))
        expect(hook.requests.slice(3).map((request) => eventOf(request).data.subject)).toEqual(["One", "Two", "Three"])

        // a range the wrong way round, or no timestamp at all, is refused and changes nothing
        for (const payload of [{ since: start, until: "2020-01-01T00:00:00Z" }, { since: "yesterday" }]) {
          const refused = yield* Effect.promise(() =>
            server.request("POST", `/v1/admin/projects/${pid}/webhooks/${registered.webhook_id}/replays`, {
              key: adminToken,
              body: payload
            })
          )
          expect(refused.status).toBe(400)
          expect(refused.body.error.code).toBe("VALIDATION_ERROR")
        }
        expect((yield* admin.webhooks.replays({ params: webhook })).replays).toHaveLength(4)
      })), 60_000)

    it.effect("after a rotation, signs with both secrets for the overlap, then with the new one only", () =>
      Effect.scoped(Effect.gen(function*() {
        const { admin, pid, project, server } = yield* aProject
        const hook = yield* stubServer()
        const registered = yield* admin.webhooks.register({ params: { pid }, payload: { url: `${hook.url}/h` } })
        const rotated = yield* admin.webhooks.rotateSecret({ params: { pid, webhook_id: registered.webhook_id }, payload: undefined })
        expect(rotated.previous_secret_expires_at).toMatch(/Z$/)
        yield* fileTicket(server, project.key, "During the overlap")
        yield* eventually("a delivery during the overlap", atLeast(hook, 1))
        const during = hook.requests[0]!
        expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2)
        expect(standardVerifies(rotated.secret, during)).toBe(true)
        expect(standardVerifies(registered.secret, during)).toBe(true)
        // the spec's header carries the new secret's signature only
        expect(yield* shaVerifies(rotated.secret, during)).toBe(true)
        expect(yield* shaVerifies(registered.secret, during)).toBe(false)

        yield* sleep(2_100)
        yield* fileTicket(server, project.key, "After the overlap")
        yield* eventually("a delivery after the overlap", atLeast(hook, 2))
        const after = hook.requests[1]!
        expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1)
        expect(standardVerifies(rotated.secret, after)).toBe(true)
        expect(standardVerifies(registered.secret, after)).toBe(false)
        const listed = (yield* admin.webhooks.list({ params: { pid } })).webhooks[0]!
        expect(listed.previous_secret_expires_at).toBeNull()

        const bad = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${pid}/webhooks/${registered.webhook_id}/rotate-secret`, {
            key: adminToken,
            body: { overlap_minutes: -1 }
          })
        )
        expect(bad.status).toBe(400)
        expect(bad.body.error.message).toContain("overlap_minutes must be an integer from 0 to 10080")
      })), 60_000)

    it.effect("throttles an endpoint to its deliveries a second, counted across the pipeline", () =>
      Effect.scoped(Effect.gen(function*() {
        const { admin, pid, project, server } = yield* aProject
        const hook = yield* stubServer()
        yield* admin.webhooks.register({ params: { pid }, payload: { url: `${hook.url}/h`, max_per_second: 2, events: ["ticket_created"] } })
        for (let i = 1; i <= 6; i++) yield* fileTicket(server, project.key, `Burst ${i}`)
        yield* eventually("six deliveries", atLeast(hook, 6), 20_000)
        // six at two a second span at least three seconds of the clock: more than one second apart
        const times = hook.requests.map((request) => request.at).sort((a, b) => a - b)
        expect(times.at(-1)! - times[0]!).toBeGreaterThan(1_000)
        const perSecond = new Map<string, number>()
        for (const request of hook.requests) {
          const second = String(request.headers["webhook-timestamp"])
          perSecond.set(second, (perSecond.get(second) ?? 0) + 1)
        }
        expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(2)
      })), 60_000)
  })
})

describe("Retry-After", () => {
  const now = Date.parse("2026-11-28T10:00:00Z")
  it("reads whole seconds and HTTP dates, and leaves the schedule alone otherwise", () => {
    expect(parseRetryAfter("120", now)).toEqual(Duration.seconds(120))
    expect(parseRetryAfter(" 0 ", now)).toEqual(Duration.seconds(0))
    expect(parseRetryAfter("Sat, 28 Nov 2026 10:00:30 GMT", now)).toEqual(Duration.millis(30_000))
    // a date gone by asks for no wait at all
    expect(parseRetryAfter("Sat, 28 Nov 2026 09:00:00 GMT", now)).toEqual(Duration.millis(0))
    for (const unreadable of [undefined, "", "soon", "-5", "1.5", "2026-11-28T10:00:30Z"]) {
      expect(parseRetryAfter(unreadable, now), String(unreadable)).toBeUndefined()
    }
  })
})
