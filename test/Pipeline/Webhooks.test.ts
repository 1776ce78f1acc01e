/**
 * Webhooks end to end: the operator endpoints, every event from its trigger, the exact headers,
 * and signatures checked by independent verifiers from npm (@octokit/webhooks-methods for
 * `sha256=`, standardwebhooks for the Standard Webhooks headers).
 */
import { layer } from "@effect/vitest"
import { verify as verifySha256 } from "@octokit/webhooks-methods"
import { Effect } from "effect"
import { Webhook as StandardWebhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { checkTarget } from "../../src/Webhooks/Targets.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually, receiver, type Received } from "../support/Receiver.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const settings = { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,300ms" }

const verified = async (secret: string, request: Received) => {
  const sha = await verifySha256(secret, request.body, String(request.headers["x-service-signature"]))
  const standard = new StandardWebhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"])
  })
  return { sha, standard }
}

describe.each(databaseKinds)("webhooks on %s", (kind) => {
  layer(testServer(kind, settings, undefined, { pipeline: "live" }), { excludeTestServices: true })((it) => {
    const admin = (server: typeof TestServer.Service, method: string, path: string, body?: unknown) =>
      Effect.promise(() => server.request(method, `/v1/admin${path}`, { key: adminToken, body }))

    it.scoped("registers an endpoint: validation, generated secret, list and delete", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const project = yield* Effect.promise(() => createProject(server))
        const base = `/projects/${project.projectId}/webhooks`
        const bad = [
          [{}, "url is required"],
          [{ url: "ftp://example.com/hook" }, "url must be an absolute http or https URL"],
          [{ url: "not a url" }, "url must be an absolute http or https URL"],
          [{ url: "https://example.com/hook", events: ["ticket_exploded"] }, "each event must be one of"],
          [{ url: "https://example.com/hook", events: [] }, "events must name at least one event"],
          [{ url: "https://example.com/hook", secret: "short" }, "secret must be at least 16 characters"]
        ] as const
        for (const [body, message] of bad) {
          const refused = yield* admin(server, "POST", base, body)
          expect(refused.status, JSON.stringify(body)).toBe(400)
          expect(refused.body.error.code).toBe("VALIDATION_ERROR")
          expect(refused.body.error.message).toContain(message)
        }
        const withProjectKey = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin${base}`, { key: project.key, body: { url: "https://example.com/h" } })
        )
        expect(withProjectKey.status).toBe(401)
        expect((yield* admin(server, "POST", `/projects/${crypto.randomUUID()}/webhooks`, { url: "https://example.com/h" })).status)
          .toBe(404)

        const created = yield* admin(server, "POST", base, { url: "https://example.com/hook" })
        expect(created.status).toBe(201)
        expect(created.body).toEqual({
          webhook_id: expect.stringMatching(uuid),
          url: "https://example.com/hook",
          events: ["ticket_created", "ticket_replied", "ticket_resolved", "ticket_status_changed", "ticket_assigned"],
          secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/)
        })
        const chosen = yield* admin(server, "POST", base, {
          url: "https://example.com/other",
          events: ["ticket_resolved", "ticket_created", "ticket_resolved"],
          secret: "my-own-secret-of-some-length"
        })
        expect(chosen.body.events).toEqual(["ticket_created", "ticket_resolved"])
        expect(chosen.body.secret).toBe("my-own-secret-of-some-length")

        const listed = yield* admin(server, "GET", base)
        expect(listed.body.webhooks.map((w: any) => w.webhook_id)).toEqual([created.body.webhook_id, chosen.body.webhook_id])
        expect(listed.body.webhooks[0]).toEqual({
          webhook_id: created.body.webhook_id,
          url: "https://example.com/hook",
          events: created.body.events,
          created_at: expect.stringMatching(/Z$/)
        })
        expect(JSON.stringify(listed.body)).not.toContain("whsec_")

        expect((yield* admin(server, "DELETE", `${base}/${created.body.webhook_id}`)).status).toBe(204)
        expect((yield* admin(server, "DELETE", `${base}/${created.body.webhook_id}`)).status).toBe(404)
        expect((yield* admin(server, "GET", `${base}/${created.body.webhook_id}/deliveries`)).status).toBe(404)
        expect((yield* admin(server, "GET", base)).body.webhooks).toHaveLength(1)
      }))

    it.scoped("delivers ticket_created with exactly the contract's headers and verifiable signatures", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver()
        const project = yield* Effect.promise(() => createProject(server))
        const registered = yield* admin(server, "POST", `/projects/${project.projectId}/webhooks`, { url: hook.url })
        const secret = registered.body.secret as string
        const created = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key: project.key,
            body: { subject: "Signed", body: "Check the signature", sender_email: "Sig@Example.com" }
          })
        )
        const [request] = yield* eventually("the ticket_created delivery", () => hook.received.length > 0 ? hook.received : undefined)
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
        const ticket = yield* Effect.promise(() => server.request("GET", `/v1/tickets/${created.body.ticket_id}`, { key: project.key }))
        expect(JSON.parse(request!.body)).toEqual({
          event: "ticket_created",
          timestamp: ticket.body.created_at,
          data: {
            id: created.body.ticket_id,
            subject: "Signed",
            status: "open",
            priority: "p3_medium",
            sender_email: "sig@example.com",
            project_id: project.projectId,
            created_at: ticket.body.created_at
          }
        })

        const log = yield* eventually("a delivered log entry", async () => {
          const response = await server.request(
            "GET",
            `/v1/admin/projects/${project.projectId}/webhooks/${registered.body.webhook_id}/deliveries`,
            { key: adminToken }
          )
          return response.body.deliveries[0]?.status === "delivered" ? response.body.deliveries : undefined
        })
        expect(log).toEqual([{
          delivery_id: headers["x-service-delivery"],
          event: "ticket_created",
          status: "delivered",
          attempts: 1,
          last_status_code: 200,
          last_error: null,
          next_attempt_at: null,
          created_at: expect.stringMatching(/Z$/)
        }])
      }))

    it.scoped("fires all five events from their triggers, and only the subscribed ones", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const all = yield* receiver()
        const resolvedOnly = yield* receiver()
        const project = yield* Effect.promise(() => createProject(server))
        const pid = project.projectId
        const hook = yield* admin(server, "POST", `/projects/${pid}/webhooks`, { url: all.url })
        yield* admin(server, "POST", `/projects/${pid}/webhooks`, { url: resolvedOnly.url, events: ["ticket_resolved"] })
        const agent = yield* admin(server, "POST", `/projects/${pid}/agents`, { email: "ann@acme.test", name: "Ann" })
        const created = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key: project.key,
            body: { subject: "Five events", body: "Walk the events", sender_email: "five@example.com" }
          })
        )
        const id = created.body.ticket_id as string
        const reply = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, {
            key: project.key,
            body: { body: "More details", contact_email: "five@example.com" }
          })
        )
        const assigned = yield* admin(server, "PATCH", `/projects/${pid}/tickets/${id}`, { assignee_email: "ann@acme.test" })
        const resolved = yield* admin(server, "PATCH", `/projects/${pid}/tickets/${id}`, { status: "resolved" })
        yield* admin(server, "POST", `/projects/${pid}/tickets/${id}/messages`, { body: "internal note", internal: true })

        const events = () => all.received.map((r) => JSON.parse(r.body))
        yield* eventually("five events", () => (all.received.length >= 5 && resolvedOnly.received.length >= 1 ? true : undefined))
        const byKind = Object.fromEntries(events().map((e) => [e.event, e]))
        expect(Object.keys(byKind).sort()).toEqual([
          "ticket_assigned",
          "ticket_created",
          "ticket_replied",
          "ticket_resolved",
          "ticket_status_changed"
        ])
        for (const request of all.received) {
          expect(request.headers["x-service-event"]).toBe(JSON.parse(request.body).event)
          const { sha, standard } = yield* Effect.promise(() => verified(hook.body.secret, request))
          expect(sha).toBe(true)
          expect(standard).toEqual(JSON.parse(request.body))
        }
        expect(byKind.ticket_replied.data).toEqual({
          id,
          project_id: pid,
          message_id: reply.body.message_id,
          author_type: "contact",
          body: "More details",
          contact_email: "five@example.com",
          created_at: byKind.ticket_replied.timestamp
        })
        expect(byKind.ticket_assigned.data).toEqual({
          id,
          project_id: pid,
          assignee: { id: agent.body.agent_id, email: "ann@acme.test", name: "Ann" },
          previous_assignee: null,
          updated_at: assigned.body.updated_at
        })
        const change = { id, project_id: pid, status: "resolved", previous_status: "open", updated_at: resolved.body.updated_at }
        expect(byKind.ticket_status_changed.data).toEqual(change)
        expect(byKind.ticket_resolved.data).toEqual(change)
        // the internal note fired nothing; the filtered endpoint saw only its event
        expect(events().filter((e) => e.event === "ticket_replied")).toHaveLength(1)
        expect(resolvedOnly.received.map((r) => JSON.parse(r.body).event)).toEqual(["ticket_resolved"])

        // a contact writing on a resolved ticket reopens it: a status change, and a reply
        yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, {
            key: project.key,
            body: { body: "It broke again", contact_email: "five@example.com" }
          })
        )
        const reopened = yield* eventually("the reopening", () =>
          events().find((e) => e.event === "ticket_status_changed" && e.data.status === "open"))
        expect(reopened.data.previous_status).toBe("resolved")
      }))

    it.scoped("retries a failing receiver on the schedule, logs every attempt, redelivers on request", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver(() => ({ status: 500 }))
        const project = yield* Effect.promise(() => createProject(server))
        const pid = project.projectId
        const registered = yield* admin(server, "POST", `/projects/${pid}/webhooks`, { url: hook.url })
        const deliveriesPath = `/projects/${pid}/webhooks/${registered.body.webhook_id}/deliveries`
        yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key: project.key, body: { subject: "Down", body: "Receiver is down" } })
        )
        const [failed] = yield* eventually("the delivery to fail for good", async () => {
          const log = (await server.request("GET", `/v1/admin${deliveriesPath}`, { key: adminToken })).body.deliveries
          return log[0]?.status === "failed" ? log : undefined
        })
        expect(failed).toMatchObject({ status: "failed", attempts: 4, last_status_code: 500, next_attempt_at: null })
        expect(failed.last_error).toContain("500")
        expect(hook.received).toHaveLength(4)
        expect(new Set(hook.received.map((r) => r.headers["x-service-delivery"]))).toEqual(new Set([failed.delivery_id]))
        expect(new Set(hook.received.map((r) => r.body)).size).toBe(1)

        hook.answer = () => ({ status: 204 })
        const redelivered = yield* admin(server, "POST", `${deliveriesPath}/${failed.delivery_id}/redeliver`)
        expect(redelivered.status).toBe(202)
        expect(redelivered.body).toEqual({ delivery_id: failed.delivery_id, status: "pending" })
        const [done] = yield* eventually("the redelivery", async () => {
          const log = (await server.request("GET", `/v1/admin${deliveriesPath}`, { key: adminToken })).body.deliveries
          return log[0]?.status === "delivered" ? log : undefined
        })
        expect(done).toMatchObject({ delivery_id: failed.delivery_id, attempts: 5, last_status_code: 204, last_error: null })
        expect(hook.received[4]!.body).toBe(hook.received[0]!.body)
        expect(hook.received[4]!.headers["x-service-delivery"]).toBe(failed.delivery_id)

        expect((yield* admin(server, "POST", `${deliveriesPath}/${crypto.randomUUID()}/redeliver`)).status).toBe(404)
        expect((yield* admin(server, "POST", `${deliveriesPath}/not-a-uuid/redeliver`)).status).toBe(404)
      }))

    it.scoped("follows no redirect: a 3xx is a failed attempt", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver((_, request) =>
          request.path === "/hooks" ? { status: 302, location: "/elsewhere" } : { status: 200 }
        )
        const project = yield* Effect.promise(() => createProject(server))
        const registered = yield* admin(server, "POST", `/projects/${project.projectId}/webhooks`, { url: hook.url })
        yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key: project.key, body: { subject: "Moved", body: "Redirected" } })
        )
        const [entry] = yield* eventually("a failed attempt", async () => {
          const log = (await server.request(
            "GET",
            `/v1/admin/projects/${project.projectId}/webhooks/${registered.body.webhook_id}/deliveries`,
            { key: adminToken }
          )).body.deliveries
          return log[0]?.attempts >= 1 ? log : undefined
        })
        expect(entry.last_status_code).toBe(302)
        expect(entry.last_error).toContain("redirect")
        expect(entry.status).not.toBe("delivered")
        expect(hook.received.every((r) => r.path === "/hooks")).toBe(true)
      }))

    it.scoped("signs every later attempt with a rotated secret", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver()
        const project = yield* Effect.promise(() => createProject(server))
        const pid = project.projectId
        const registered = yield* admin(server, "POST", `/projects/${pid}/webhooks`, { url: hook.url })
        const rotated = yield* admin(server, "POST", `/projects/${pid}/webhooks/${registered.body.webhook_id}/rotate-secret`)
        expect(rotated.status).toBe(200)
        expect(rotated.body.secret).toMatch(/^whsec_/)
        expect(rotated.body.secret).not.toBe(registered.body.secret)
        expect((yield* admin(server, "POST", `/projects/${pid}/webhooks/${crypto.randomUUID()}/rotate-secret`)).status).toBe(404)
        yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key: project.key, body: { subject: "Rotated", body: "New secret" } })
        )
        const [request] = yield* eventually("a delivery", () => (hook.received.length > 0 ? hook.received : undefined))
        expect((yield* Effect.promise(() => verified(rotated.body.secret, request!))).sha).toBe(true)
        expect(yield* Effect.promise(() =>
          verifySha256(registered.body.secret, request!.body, String(request!.headers["x-service-signature"]))
        )).toBe(false)
      }))
  })

  layer(testServer(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: "false" }, undefined, { pipeline: "live" }), {
    excludeTestServices: true
  })((it) => {
    it.scoped("refuses private and loopback targets when they are not allowed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const project = yield* Effect.promise(() => createProject(server))
        for (const url of ["http://127.0.0.1:9/h", "http://localhost/h", "http://10.1.2.3/h", "http://[::1]/h", "http://169.254.169.254/latest"]) {
          const refused = yield* Effect.promise(() =>
            server.request("POST", `/v1/admin/projects/${project.projectId}/webhooks`, { key: adminToken, body: { url } })
          )
          expect(refused.status, url).toBe(400)
          expect(refused.body.error.message).toContain("WEBHOOK_ALLOW_PRIVATE_TARGETS")
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
