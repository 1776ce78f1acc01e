import { layer } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

const ticket = { subject: "Idempotent", body: "Only once" }

describe.each(databaseKinds)("access on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "1000" }), { excludeTestServices: true })((it) => {
    it.effect("refuses missing, malformed, unknown and revoked keys with 401 in the envelope", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, keyId, projectId } = yield* Effect.promise(() => createProject(server))
        const unauthorized = (response: { status: number; body: any }) => {
          expect(response.status).toBe(401)
          expect(response.body.error.code).toBe("UNAUTHORIZED")
        }
        unauthorized(yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x")))
        unauthorized(yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key: "tf_unknown" })))
        unauthorized(yield* Effect.promise(() =>
          server.request("GET", "/v1/articles/search?q=x", { headers: { authorization: `Basic ${key}` } })))
        unauthorized(yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key: adminToken })))
        unauthorized(yield* Effect.promise(() => server.request("GET", "/v1/admin/projects", { key })))
        unauthorized(yield* Effect.promise(() => server.request("GET", "/v1/admin/projects", { key: "wrong" })))

        const ok = yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key }))
        expect(ok.status).toBe(200)
        const revoked = yield* Effect.promise(() =>
          server.request("DELETE", `/v1/admin/projects/${projectId}/api-keys/${keyId}`, { key: adminToken }))
        expect(revoked.status).toBe(204)
        unauthorized(yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key })))
        const unknownKey = yield* Effect.promise(() =>
          server.request("DELETE", `/v1/admin/projects/${projectId}/api-keys/${crypto.randomUUID()}`, { key: adminToken }))
        expect(unknownKey.status).toBe(404)
      }))

    it.effect("stores only a hash of each key", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* Effect.promise(() => createProject(server))
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ key_hash: Uint8Array; key_prefix: string }>`SELECT key_hash, key_prefix FROM api_keys`
        expect(key).toMatch(/^tf_[A-Za-z0-9_-]{43}$/)
        const hash = new Uint8Array(yield* Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(key))))
        expect(rows.some((row) => Buffer.from(row.key_hash).equals(Buffer.from(hash)))).toBe(true)
        const dump = JSON.stringify(yield* sql`SELECT * FROM api_keys`)
        expect(dump).not.toContain(key.slice(7))
      }))

    it.effect("limits a widget key to filing tickets, reading articles and its contact's own tickets", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { widgetKey } = yield* Effect.promise(() => createProject(server))
        const created = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key: widgetKey,
            body: { subject: "From the widget", body: "Hi", sender_email: "visitor@example.com", source: "widget" }
          }))
        expect(created.status).toBe(202)
        const id = created.body.ticket_id
        const forbidden = (response: { status: number; body: any }) => {
          expect(response.status).toBe(403)
          expect(response.body.error.code).toBe("FORBIDDEN")
          expect(response.body.error.message).toContain("scope")
        }
        forbidden(yield* Effect.promise(() => server.request("GET", `/v1/tickets/${id}`, { key: widgetKey })))
        forbidden(yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, { key: widgetKey, body: { body: "more" } })))
        forbidden(yield* Effect.promise(() => server.request("GET", "/v1/search?q=widget", { key: widgetKey })))
        const own = yield* Effect.promise(() =>
          server.request("GET", `/v1/tickets/${id}?contact_email=visitor@example.com`, { key: widgetKey }))
        expect(own.status).toBe(200)
        const reply = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, {
            key: widgetKey,
            body: { body: "more", contact_email: "visitor@example.com" }
          }))
        expect(reply.status).toBe(201)
        const stranger = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, {
            key: widgetKey,
            body: { body: "let me in", contact_email: "stranger@example.com" }
          }))
        expect(stranger.status).toBe(404)
        const articles = yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key: widgetKey }))
        expect(articles.status).toBe(200)
      }))

    it.effect("replays an Idempotency-Key, refuses it for another body, and creates one ticket for concurrent repeats", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* Effect.promise(() => createProject(server))
        const headers = { "idempotency-key": "order-42" }
        const first = yield* Effect.promise(() => server.request("POST", "/v1/tickets", { key, body: ticket, headers }))
        expect(first.status).toBe(202)
        expect(first.headers.get("idempotent-replayed")).toBeNull()
        const repeat = yield* Effect.promise(() => server.request("POST", "/v1/tickets", { key, body: ticket, headers }))
        expect(repeat.status).toBe(202)
        expect(repeat.body).toEqual(first.body)
        expect(repeat.headers.get("idempotent-replayed")).toBe("true")
        const changed = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { ...ticket, body: "Different" }, headers }))
        expect(changed.status).toBe(409)
        expect(changed.body.error.code).toBe("CONFLICT")
        // final, unlike a repeat that meets its first attempt in flight (409 with Retry-After)
        expect(changed.headers.get("retry-after")).toBeNull()
        const tooLong = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: ticket, headers: { "idempotency-key": "k".repeat(256) } }))
        expect(tooLong.status).toBe(400)
        expect(tooLong.body.error.message).toBe("Idempotency-Key must be 1 to 255 characters")

        const burst = yield* Effect.promise(() =>
          Promise.all(Array.from({ length: 8 }, () =>
            server.request("POST", "/v1/tickets", { key, body: ticket, headers: { "idempotency-key": "burst" } }))))
        const created = burst.filter((r) => r.status === 202)
        expect(created.length).toBeGreaterThanOrEqual(1)
        expect(new Set(created.map((r) => r.body.ticket_id)).size).toBe(1)
        expect(burst.every((r) => r.status === 202 || r.status === 409)).toBe(true)
        for (const inFlight of burst.filter((r) => r.status === 409)) {
          expect(inFlight.body.error.message).toBe("a request with this Idempotency-Key is still in progress")
          expect(inFlight.headers.get("retry-after")).toBe("1")
        }

        const message = { body: "once" }
        const id = first.body.ticket_id
        const m1 = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, { key, body: message, headers: { "idempotency-key": "m" } }))
        const m2 = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, { key, body: message, headers: { "idempotency-key": "m" } }))
        expect([m1.status, m2.status]).toEqual([201, 201])
        expect(m2.body).toEqual(m1.body)

        const sql = yield* SqlClient.SqlClient
        const [tickets] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tickets WHERE project_id = ${projectId}`
        const [messages] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM messages WHERE project_id = ${projectId}`
        expect([tickets!.n, messages!.n]).toEqual([2, 1])
      }))

    it.effect("answers every failure in the envelope: unknown path, wrong method, with a request id and CORS", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* Effect.promise(() => createProject(server))
        const unknown = yield* Effect.promise(() => server.request("GET", "/v1/nothing-here", { key }))
        expect([unknown.status, unknown.body.error.code]).toEqual([404, "NOT_FOUND"])
        expect(unknown.headers.get("content-type")).toBe("application/json; charset=utf-8")
        const wrongMethod = yield* Effect.promise(() => server.request("DELETE", "/v1/tickets", { key }))
        expect([wrongMethod.status, wrongMethod.body.error.code]).toEqual([405, "METHOD_NOT_ALLOWED"])
        expect(wrongMethod.headers.get("allow")).toBe("POST")

        const traced = yield* Effect.promise(() =>
          server.request("GET", "/health", { headers: { "x-request-id": "trace-123" } }))
        expect(traced.headers.get("x-request-id")).toBe("trace-123")
        const insane = yield* Effect.promise(() =>
          server.request("GET", "/health", { headers: { "x-request-id": "bad id with spaces" } }))
        expect(insane.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)

        const health = yield* Effect.promise(() => server.request("GET", "/health"))
        expect(health.body).toEqual({ status: "ok", service: "support-ticketing", version: expect.any(String) })
        expect(health.headers.get("access-control-allow-origin")).toBe("*")

        const preflight = yield* Effect.promise(() =>
          server.request("OPTIONS", "/v1/tickets", {
            headers: { origin: "https://shop.example", "access-control-request-method": "POST" }
          }))
        expect(preflight.status).toBe(204)
        expect(preflight.headers.get("access-control-allow-origin")).toBe("*")
        expect(preflight.headers.get("access-control-allow-headers")).toContain("Authorization")
        expect(preflight.headers.get("access-control-allow-headers")).toContain("Content-Type")
        const publicCall = yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key }))
        expect(publicCall.headers.get("access-control-allow-origin")).toBe("*")
        const adminCall = yield* Effect.promise(() => server.request("GET", "/v1/admin/projects", { key: adminToken }))
        expect(adminCall.status).toBe(200)
        expect(adminCall.headers.get("access-control-allow-origin")).toBeNull()
      }))

    it.effect("publishes an OpenAPI document without the framework's own error body, and offline docs", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const spec = yield* Effect.promise(() => server.request("GET", "/openapi.json"))
        expect(spec.status).toBe(200)
        expect(spec.body.openapi).toMatch(/^3\.1/)
        expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining([
          "/health",
          "/v1/tickets",
          "/v1/tickets/{id}",
          "/v1/tickets/{id}/messages",
          "/v1/articles/search",
          "/v1/search"
        ]))
        expect(spec.text).not.toContain("HttpApiDecodeError")
        const create = spec.body.paths["/v1/tickets"].post.responses
        expect(create["400"].content["application/json"].schema.$ref).toBe("#/components/schemas/VALIDATION_ERROR")
        expect(spec.body.components.schemas.VALIDATION_ERROR.properties.error).toBeDefined()
        const docs = yield* Effect.promise(() => server.request("GET", "/docs"))
        expect(docs.status).toBe(200)
        expect(docs.headers.get("content-type")).toContain("text/html")
        expect(docs.text).not.toMatch(/<script[^>]+src="https?:/)
      }))

    it.effect("lists projects and issues keys of either scope", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId } = yield* Effect.promise(() => createProject(server, "Listed"))
        const list = yield* Effect.promise(() => server.request("GET", "/v1/admin/projects", { key: adminToken }))
        expect(list.body.projects).toEqual(expect.arrayContaining([{ project_id: projectId, name: "Listed", created_at: expect.any(String) }]))
        const full = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/api-keys`, { key: adminToken, body: {} }))
        expect([full.status, full.body.scope]).toEqual([201, "full"])
        const badScope = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/api-keys`, { key: adminToken, body: { scope: "root" } }))
        expect(badScope.body.error.message).toBe("scope must be one of full, widget")
        const noProject = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${crypto.randomUUID()}/api-keys`, { key: adminToken, body: {} }))
        expect(noProject.status).toBe(404)
      }))
  })
})

describe.each(databaseKinds)("rate limit on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "5" }), { excludeTestServices: true })((it) => {
    it.effect("gives each key its budget with RateLimit headers, then 429 with Retry-After", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* Effect.promise(() => createProject(server))
        const b = yield* Effect.promise(() => createProject(server))
        const remaining: Array<string | null> = []
        for (let i = 0; i < 5; i++) {
          const response = yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key: a.key }))
          expect(response.status).toBe(200)
          expect(response.headers.get("ratelimit-limit")).toBe("5")
          expect(Number(response.headers.get("ratelimit-reset"))).toBeGreaterThan(0)
          remaining.push(response.headers.get("ratelimit-remaining"))
        }
        expect(remaining).toEqual(["4", "3", "2", "1", "0"])
        const limited = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key: a.key, body: { subject: "x", body: "y" } }))
        expect(limited.status).toBe(429)
        expect(limited.body.error.code).toBe("RATE_LIMITED")
        expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
        expect(limited.headers.get("ratelimit-remaining")).toBe("0")
        const other = yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key: b.key }))
        expect(other.status).toBe(200)
      }))

    it.effect("throttles guessing: unknown keys spend the client address's budget, then get 429", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const statuses: Array<number> = []
        for (let i = 0; i < 7; i++) {
          const response = yield* Effect.promise(() =>
            server.request("GET", "/v1/articles/search?q=x", { key: `tf_guess${i}` }))
          statuses.push(response.status)
        }
        expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429])
      }))
  })
})
