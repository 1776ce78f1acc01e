/**
 * Webhooks end to end: the operator endpoints, every event from its trigger, the exact headers,
 * and signatures checked by independent verifiers from npm (@octokit/webhooks-methods for
 * `sha256=`, standardwebhooks for the Standard Webhooks headers).
 */
import { layer } from "@effect/vitest"
import { verify as verifySha256 } from "@octokit/webhooks-methods"
import { Effect } from "effect"
import type { HttpClientResponse } from "effect/http"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { checkTarget } from "../../src/Webhooks/Targets.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { type StubRequest, stubServer } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const settings = { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,300ms" }

const verified = async (secret: string, request: StubRequest) => {
  const sha = await verifySha256(secret, request.body, String(request.headers["x-service-signature"]))
  const standard = new StandardWebhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"])
  })
  return { sha, standard }
}

/**
 * A typed call made with `responseMode: "decoded-and-response"`, with the status and the JSON as
 * sent: decoding drops keys the contract does not name, and a secret must not be among them.
 */
const withWire = <A, E, R>(call: Effect.Effect<readonly [A, HttpClientResponse.HttpClientResponse], E, R>) =>
  Effect.flatMap(call, ([value, response]) =>
    Effect.map(Effect.orDie(response.json), (json: any) => ({ value, status: response.status, json })))

/** Done once the stub has had `n` requests; the count is what a failure reports. */
const requestsAtLeast = (...expected: ReadonlyArray<readonly [{ readonly requests: ReadonlyArray<StubRequest> }, number]>) =>
  Effect.sync(() => ({
    done: expected.every(([stub, n]) => stub.requests.length >= n),
    value: expected.map(([stub]) => stub.requests.length)
  }))

describe.each(databaseKinds)("webhooks on %s", (kind) => {
  layer(testServer(kind, settings, undefined, { pipeline: "live" }), { excludeTestServices: true })((it) => {
    it.effect("registers an endpoint: validation, generated secret, list and delete", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const project = yield* createProject(server)
        const pid = project.projectId
        const bad = [
          [{}, "url is required"],
          [{ url: "ftp://example.com/hook" }, "url must be an absolute http or https URL"],
          [{ url: "not a url" }, "url must be an absolute http or https URL"],
          [{ url: "https://example.com/hook", events: ["ticket_exploded"] }, "events[0] must be one of"],
          [{ url: "https://example.com/hook", events: [] }, "events must name at least one event"],
          [{ url: "https://example.com/hook", secret: "short" }, "secret must be at least 16 characters"]
        ] as const
        // raw: bodies the contract refuses, which the typed client would not send
        for (const [body, message] of bad) {
          const refused = yield* Effect.promise(() =>
            server.request("POST", `/v1/admin/projects/${pid}/webhooks`, { key: adminToken, body })
          )
          expect(refused.status, JSON.stringify(body)).toBe(400)
          expect(refused.body.error.code).toBe("VALIDATION_ERROR")
          expect(refused.body.error.message).toContain(message)
        }
        const withProjectKey = yield* Effect.flatMap(server.api(project.key), (api) =>
          api.webhooks.register({ params: { pid }, payload: { url: "https://example.com/h" } })).pipe(Effect.flip)
        expect(withProjectKey._tag).toBe("Unauthorized")
        const unknownProject = yield* admin.webhooks.register({
          params: { pid: crypto.randomUUID() },
          payload: { url: "https://example.com/h" }
        }).pipe(Effect.flip)
        expect(unknownProject._tag).toBe("NotFound")

        const created = yield* withWire(admin.webhooks.register({
          params: { pid },
          payload: { url: "https://example.com/hook" },
          responseMode: "decoded-and-response"
        }))
        expect(created.status).toBe(201)
        expect(created.json).toEqual({
          webhook_id: expect.stringMatching(uuid),
          url: "https://example.com/hook",
          events: [
            "ticket_created",
            "ticket_replied",
            "ticket_resolved",
            "ticket_status_changed",
            "ticket_assigned",
            "ticket_sla_breached",
            "ticket_rated",
            "ticket_merged",
            "endpoint_disabled",
            "contact_erased"
          ],
          secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
          retry_schedule: "default",
          max_per_second: null
        })
        expect(created.value).toEqual(created.json)
        const chosen = yield* admin.webhooks.register({
          params: { pid },
          payload: {
            url: "https://example.com/other",
            events: ["ticket_resolved", "ticket_created", "ticket_resolved"],
            secret: "my-own-secret-of-some-length"
          }
        })
        expect(chosen.events).toEqual(["ticket_created", "ticket_resolved"])
        expect(chosen.secret).toBe("my-own-secret-of-some-length")

        const listed = yield* withWire(admin.webhooks.list({ params: { pid }, responseMode: "decoded-and-response" }))
        expect(listed.value.webhooks.map((w) => w.webhook_id)).toEqual([created.value.webhook_id, chosen.webhook_id])
        expect(listed.json.webhooks[0]).toEqual({
          webhook_id: created.value.webhook_id,
          url: "https://example.com/hook",
          events: created.value.events,
          retry_schedule: "default",
          max_per_second: null,
          status: "enabled",
          disabled_at: null,
          disabled_reason: null,
          failing_since: null,
          previous_secret_expires_at: null,
          created_at: expect.stringMatching(/Z$/)
        })
        expect(JSON.stringify(listed.json)).not.toContain("whsec_")

        const webhook = { pid, webhook_id: created.value.webhook_id }
        const [, removed] = yield* admin.webhooks.remove({ params: webhook, responseMode: "decoded-and-response" })
        expect(removed.status).toBe(204)
        expect((yield* Effect.flip(admin.webhooks.remove({ params: webhook })))._tag).toBe("NotFound")
        expect((yield* Effect.flip(admin.webhooks.deliveries({ params: webhook })))._tag).toBe("NotFound")
        expect((yield* admin.webhooks.list({ params: { pid } })).webhooks).toHaveLength(1)
      }))

    it.effect("delivers ticket_created with exactly the contract's headers and verifiable signatures", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const hook = yield* stubServer()
        const project = yield* createProject(server)
        const api = yield* server.api(project.key)
        const registered = yield* admin.webhooks.register({
          params: { pid: project.projectId },
          payload: { url: `${hook.url}/hooks` }
        })
        const secret = registered.secret
        const created = yield* api.tickets.create({
          payload: { subject: "Signed", body: "Check the signature", sender_email: "Sig@Example.com" },
          headers: {}
        })
        yield* eventually("the ticket_created delivery", requestsAtLeast([hook, 1]))
        const [request] = hook.requests
        expect(request!.path).toBe("/hooks")
        const { connection: _, host: __, "content-length": ___, ...headers } = request!.headers
        expect(Object.keys(headers).sort()).toEqual([
          "content-type",
          "user-agent",
          "webhook-id",
          "webhook-signature",
          "webhook-timestamp",
          "x-service-delivery",
          "x-service-event",
          "x-service-signature",
          "x-service-timestamp"
        ])
        expect(headers["content-type"]).toBe("application/json")
        expect(headers["x-service-event"]).toBe("ticket_created")
        expect(headers["x-service-delivery"]).toMatch(uuid)
        expect(headers["webhook-id"]).toBe(headers["x-service-delivery"])
        expect(headers["x-service-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/)
        expect(headers["webhook-timestamp"]).toBe(headers["x-service-timestamp"])
        expect(Math.abs(Number(headers["x-service-timestamp"]) - Date.now() / 1000)).toBeLessThan(60)

        const { sha, standard } = yield* Effect.promise(() => verified(secret, request!))
        expect(sha).toBe(true)
        expect(standard).toEqual(JSON.parse(request!.body))
        expect(yield* Effect.promise(() => verifySha256("whsec_someone-else", request!.body, String(headers["x-service-signature"]))))
          .toBe(false)

        expect(Object.keys(JSON.parse(request!.body))).toEqual(["event", "timestamp", "data"])
        const ticket = yield* api.tickets.get({ params: { id: created.ticket_id }, query: {}, headers: {} })
        expect(JSON.parse(request!.body)).toEqual({
          event: "ticket_created",
          timestamp: ticket.created_at,
          data: {
            id: created.ticket_id,
            subject: "Signed",
            status: "open",
            priority: "p3_medium",
            sender_email: "sig@example.com",
            project_id: project.projectId,
            created_at: ticket.created_at
          }
        })

        const webhook = { pid: project.projectId, webhook_id: registered.webhook_id }
        yield* eventually(
          "a delivered log entry",
          Effect.map(admin.webhooks.deliveries({ params: webhook }), ({ deliveries }) => ({
            done: deliveries[0]?.status === "delivered",
            value: deliveries
          }))
        )
        // delivered is final: the log as sent, every key of it
        const log = yield* withWire(admin.webhooks.deliveries({ params: webhook, responseMode: "decoded-and-response" }))
        expect(log.json.deliveries).toEqual([{
          delivery_id: headers["x-service-delivery"],
          event: "ticket_created",
          status: "delivered",
          attempts: 1,
          last_status_code: 200,
          last_error: null,
          next_attempt_at: null,
          replay_id: null,
          created_at: expect.stringMatching(/Z$/)
        }])
      }))

    it.effect("fires all five events from their triggers, and only the subscribed ones", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const all = yield* stubServer()
        const resolvedOnly = yield* stubServer()
        const project = yield* createProject(server)
        const api = yield* server.api(project.key)
        const pid = project.projectId
        const hook = yield* admin.webhooks.register({ params: { pid }, payload: { url: `${all.url}/hooks` } })
        yield* admin.webhooks.register({
          params: { pid },
          payload: { url: `${resolvedOnly.url}/hooks`, events: ["ticket_resolved"] }
        })
        const agent = yield* admin.admin.createAgent({ params: { pid }, payload: { email: "ann@acme.test", name: "Ann" } })
        const created = yield* api.tickets.create({
          payload: { subject: "Five events", body: "Walk the events", sender_email: "five@example.com" },
          headers: {}
        })
        const id = created.ticket_id
        const reply = yield* api.tickets.addMessage({
          params: { id },
          payload: { body: "More details", contact_email: "five@example.com" },
          headers: {}
        })
        const assigned = yield* admin.admin.updateTicket({ params: { pid, id }, payload: { assignee_email: "ann@acme.test" } })
        const resolved = yield* admin.admin.updateTicket({ params: { pid, id }, payload: { status: "resolved" } })
        yield* admin.admin.addAgentMessage({ params: { pid, id }, payload: { body: "internal note", internal: true } })

        const events = () => all.requests.map((r) => JSON.parse(r.body))
        yield* eventually("five events", requestsAtLeast([all, 5], [resolvedOnly, 1]))
        const byKind = Object.fromEntries(events().map((e) => [e.event, e]))
        expect(Object.keys(byKind).sort()).toEqual([
          "ticket_assigned",
          "ticket_created",
          "ticket_replied",
          "ticket_resolved",
          "ticket_status_changed"
        ])
        for (const request of all.requests) {
          expect(request.headers["x-service-event"]).toBe(JSON.parse(request.body).event)
          const { sha, standard } = yield* Effect.promise(() => verified(hook.secret, request))
          expect(sha).toBe(true)
          expect(standard).toEqual(JSON.parse(request.body))
        }
        expect(byKind.ticket_replied.data).toEqual({
          id,
          project_id: pid,
          message_id: reply.message_id,
          author_type: "contact",
          author_name: null,
          body: "More details",
          contact_email: "five@example.com",
          attachments: [],
          created_at: byKind.ticket_replied.timestamp
        })
        expect(byKind.ticket_assigned.data).toEqual({
          id,
          project_id: pid,
          assignee: { id: agent.agent_id, email: "ann@acme.test", name: "Ann" },
          previous_assignee: null,
          updated_at: assigned.updated_at
        })
        const change = { id, project_id: pid, status: "resolved", previous_status: "open", updated_at: resolved.updated_at }
        expect(byKind.ticket_status_changed.data).toEqual(change)
        expect(byKind.ticket_resolved.data).toEqual(change)
        // the internal note fired nothing; the filtered endpoint saw only its event
        expect(events().filter((e) => e.event === "ticket_replied")).toHaveLength(1)
        expect(resolvedOnly.requests.map((r) => JSON.parse(r.body).event)).toEqual(["ticket_resolved"])

        // a contact writing on a resolved ticket reopens it: a status change, and a reply
        yield* api.tickets.addMessage({
          params: { id },
          payload: { body: "It broke again", contact_email: "five@example.com" },
          headers: {}
        })
        const reopened = yield* eventually(
          "the reopening",
          Effect.sync(() => {
            const found = events().find((e) => e.event === "ticket_status_changed" && e.data.status === "open")
            return { done: found !== undefined, value: found }
          })
        )
        expect(reopened.data.previous_status).toBe("resolved")
      }))

    it.effect("retries a failing receiver on the schedule, logs every attempt, redelivers on request", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const hook = yield* stubServer(() => ({ status: 500 }))
        const project = yield* createProject(server)
        const api = yield* server.api(project.key)
        const pid = project.projectId
        const registered = yield* admin.webhooks.register({ params: { pid }, payload: { url: `${hook.url}/hooks` } })
        const webhook = { pid, webhook_id: registered.webhook_id }
        const deliveries = Effect.map(admin.webhooks.deliveries({ params: webhook }), (log) => log.deliveries)
        yield* api.tickets.create({ payload: { subject: "Down", body: "Receiver is down" }, headers: {} })
        const [failed] = yield* eventually(
          "the delivery to fail for good",
          Effect.map(deliveries, (log) => ({ done: log[0]?.status === "failed", value: log }))
        )
        expect(failed).toMatchObject({ status: "failed", attempts: 4, last_status_code: 500, next_attempt_at: null })
        expect(failed!.last_error).toContain("500")
        expect(hook.requests).toHaveLength(4)
        expect(new Set(hook.requests.map((r) => r.headers["x-service-delivery"]))).toEqual(new Set([failed!.delivery_id]))
        expect(new Set(hook.requests.map((r) => r.body)).size).toBe(1)

        hook.answer = () => ({ status: 204 })
        const delivery = { ...webhook, delivery_id: failed!.delivery_id }
        const redelivered = yield* withWire(
          admin.webhooks.redeliver({ params: delivery, responseMode: "decoded-and-response" })
        )
        expect(redelivered.status).toBe(202)
        expect(redelivered.json).toEqual({ delivery_id: failed!.delivery_id, status: "pending" })
        const [done] = yield* eventually(
          "the redelivery",
          Effect.map(deliveries, (log) => ({ done: log[0]?.status === "delivered", value: log }))
        )
        expect(done).toMatchObject({ delivery_id: failed!.delivery_id, attempts: 5, last_status_code: 204, last_error: null })
        expect(hook.requests[4]!.body).toBe(hook.requests[0]!.body)
        expect(hook.requests[4]!.headers["x-service-delivery"]).toBe(failed!.delivery_id)

        for (const delivery_id of [crypto.randomUUID(), "not-a-uuid"]) {
          const unknown = yield* Effect.flip(admin.webhooks.redeliver({ params: { ...webhook, delivery_id } }))
          expect(unknown._tag, delivery_id).toBe("NotFound")
        }
      }))

    it.effect("follows no redirect: a 3xx is a failed attempt", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const hook = yield* stubServer((_, request) =>
          request.path === "/hooks" ? { status: 302, headers: { location: "/elsewhere" } } : { status: 200 }
        )
        const project = yield* createProject(server)
        const api = yield* server.api(project.key)
        const registered = yield* admin.webhooks.register({
          params: { pid: project.projectId },
          payload: { url: `${hook.url}/hooks` }
        })
        yield* api.tickets.create({ payload: { subject: "Moved", body: "Redirected" }, headers: {} })
        const [entry] = yield* eventually(
          "a failed attempt",
          Effect.map(
            admin.webhooks.deliveries({ params: { pid: project.projectId, webhook_id: registered.webhook_id } }),
            ({ deliveries }) => ({ done: (deliveries[0]?.attempts ?? 0) >= 1, value: deliveries })
          )
        )
        expect(entry!.last_status_code).toBe(302)
        expect(entry!.last_error).toContain("redirect")
        expect(entry!.status).not.toBe("delivered")
        expect(hook.requests.every((r) => r.path === "/hooks")).toBe(true)
      }))

    it.effect("signs every later attempt with a rotated secret", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const hook = yield* stubServer()
        const project = yield* createProject(server)
        const api = yield* server.api(project.key)
        const pid = project.projectId
        const registered = yield* admin.webhooks.register({ params: { pid }, payload: { url: `${hook.url}/hooks` } })
        const [rotated, response] = yield* admin.webhooks.rotateSecret({
          params: { pid, webhook_id: registered.webhook_id },
          payload: { overlap_minutes: 0 },
          responseMode: "decoded-and-response"
        })
        expect(response.status).toBe(200)
        expect(rotated.secret).toMatch(/^whsec_/)
        expect(rotated.secret).not.toBe(registered.secret)
        expect(rotated.previous_secret_expires_at).toBeNull()
        const unknown = yield* Effect.flip(
          admin.webhooks.rotateSecret({ params: { pid, webhook_id: crypto.randomUUID() }, payload: undefined })
        )
        expect(unknown._tag).toBe("NotFound")
        yield* api.tickets.create({ payload: { subject: "Rotated", body: "New secret" }, headers: {} })
        yield* eventually("a delivery", requestsAtLeast([hook, 1]))
        const [request] = hook.requests
        expect((yield* Effect.promise(() => verified(rotated.secret, request!))).sha).toBe(true)
        expect(yield* Effect.promise(() =>
          verifySha256(registered.secret, request!.body, String(request!.headers["x-service-signature"]))
        )).toBe(false)
        // no overlap asked: the old secret signs nothing any more
        expect(String(request!.headers["webhook-signature"]).split(" ")).toHaveLength(1)
      }))
  })

  layer(testServer(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: "false" }, undefined, { pipeline: "live" }), {
    excludeTestServices: true
  })((it) => {
    it.effect("refuses private and loopback targets when they are not allowed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const project = yield* createProject(server)
        for (const url of ["http://127.0.0.1:9/h", "http://localhost/h", "http://10.1.2.3/h", "http://[::1]/h", "http://169.254.169.254/latest"]) {
          const refused = yield* Effect.flip(admin.webhooks.register({ params: { pid: project.projectId }, payload: { url } }))
          expect(refused._tag, url).toBe("ValidationError")
          expect(refused.message).toContain("WEBHOOK_ALLOW_PRIVATE_TARGETS")
        }
      }))
  })
})

describe("webhook targets", () => {
  it("refuses names that resolve to loopback at attempt time, and allows them when told to", async () => {
    const refused = await Effect.runPromise(Effect.flip(checkTarget(new URL("http://localhost:8080/h"), false)))
    expect(refused.message).toContain("127.0.0.1")
    await Effect.runPromise(checkTarget(new URL("http://localhost:8080/h"), true))
    const literal = await Effect.runPromise(Effect.flip(checkTarget(new URL("http://[fd00::1]/h"), false)))
    expect(literal.message).toContain("fd00::1")
    await Effect.runPromise(checkTarget(new URL("http://93.184.215.14/h"), false))
  })
})
