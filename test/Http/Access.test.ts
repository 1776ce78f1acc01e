import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { readFileSync } from "node:fs"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

const ticket = { subject: "Idempotent", body: "Only once" }

describe.each(databaseKinds)("access on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "1000" }), { excludeTestServices: true })((it) => {
    it.effect("refuses missing, malformed, unknown and revoked keys with 401 in the envelope", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, keyId, projectId } = yield* createProject(server)
        const api = yield* server.api(key)
        const admin = yield* server.api(adminToken)
        // the refusals are the wire itself: no header, a Basic scheme, a key of the wrong kind
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

        const [, ok] = yield* api.articles.search({ query: { q: "x" }, responseMode: "decoded-and-response" })
        expect(ok.status).toBe(200)
        const [, revoked] = yield* admin.admin.revokeKey({
          params: { pid: projectId, key_id: keyId },
          responseMode: "decoded-and-response"
        })
        expect(revoked.status).toBe(204)
        unauthorized(yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=x", { key })))
        // the client decodes an error by the status it came with: a NotFound is a 404
        const unknownKey = yield* admin.admin.revokeKey({ params: { pid: projectId, key_id: crypto.randomUUID() } }).pipe(
          Effect.flip
        )
        expect(unknownKey._tag).toBe("NotFound")
      }))

    it.effect("stores only a hash of each key", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* createProject(server)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ key_hash: Uint8Array; key_prefix: string }>`SELECT key_hash, key_prefix FROM api_keys`
        expect(key).toMatch(/^tf_[A-Za-z0-9_-]{43}$/)
        const hash = new Uint8Array(yield* Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(key))))
        expect(rows.some((row) => Buffer.from(row.key_hash).equals(Buffer.from(hash)))).toBe(true)
        const dump = JSON.stringify(yield* sql`SELECT * FROM api_keys`)
        expect(dump).not.toContain(key.slice(7))
      }))

    it.effect("limits a widget key to filing tickets, reading articles and the tickets its browser filed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { widgetKey } = yield* createProject(server)
        const widget = yield* server.api(widgetKey)
        const [created, createdResponse] = yield* widget.tickets.create({
          payload: { subject: "From the widget", body: "Hi", sender_email: "visitor@example.com", source: "widget" },
          headers: {},
          responseMode: "decoded-and-response"
        })
        expect(createdResponse.status).toBe(202)
        expect(created.access_token).toMatch(/^tat_[A-Za-z0-9_-]{43}$/)
        const id = created.ticket_id
        // what the widget may not do, as its caller sees it on the wire
        const forbidden = (response: { status: number; body: any }) => {
          expect(response.status).toBe(403)
          expect(response.body.error.code).toBe("FORBIDDEN")
          expect(response.body.error.message).toContain("scope")
        }
        forbidden(yield* Effect.promise(() => server.request("GET", `/v1/tickets/${id}`, { key: widgetKey })))
        // the ticket's id and its sender's address are things anyone may know: not enough
        forbidden(yield* Effect.promise(() =>
          server.request("GET", `/v1/tickets/${id}?contact_email=visitor@example.com`, { key: widgetKey })))
        forbidden(yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, { key: widgetKey, body: { body: "more", contact_email: "visitor@example.com" } })))
        forbidden(yield* Effect.promise(() => server.request("GET", "/v1/search?q=widget", { key: widgetKey })))
        const proof = { "x-ticket-token": created.access_token }
        const [own, ownResponse] = yield* widget.tickets.get({
          params: { id },
          query: {},
          headers: proof,
          responseMode: "decoded-and-response"
        })
        expect(ownResponse.status).toBe(200)
        expect(own.body).toBe("Hi")
        const [, reply] = yield* widget.tickets.addMessage({
          params: { id },
          payload: { body: "more" },
          headers: proof,
          responseMode: "decoded-and-response"
        })
        expect(reply.status).toBe(201)
        // another ticket's token, or a made-up one, opens nothing, and says nothing of the ticket
        const [other] = yield* widget.tickets.create({
          payload: { subject: "Someone else's", body: "Hi", sender_email: "other@example.com" },
          headers: {},
          responseMode: "decoded-and-response"
        })
        for (const token of [other.access_token, `tat_${"A".repeat(43)}`, "not-a-token"]) {
          const stranger = yield* widget.tickets.addMessage({
            params: { id },
            payload: { body: "let me in" },
            headers: { "x-ticket-token": token }
          }).pipe(Effect.flip)
          expect(stranger._tag).toBe("NotFound")
          const read = yield* Effect.promise(() =>
            server.request("GET", `/v1/tickets/${id}`, { key: widgetKey, headers: { "x-ticket-token": token } }))
          expect([read.status, read.body.error.code]).toEqual([404, "NOT_FOUND"])
        }
        // a token with a stranger's address on a message is refused too
        const wrongContact = yield* widget.tickets.addMessage({
          params: { id },
          payload: { body: "as someone else", contact_email: "stranger@example.com" },
          headers: proof
        }).pipe(Effect.flip)
        expect(wrongContact._tag).toBe("NotFound")
        const [, articles] = yield* widget.articles.search({ query: { q: "x" }, responseMode: "decoded-and-response" })
        expect(articles.status).toBe(200)
      }))

    it.effect("replays an Idempotency-Key, refuses it for another body, and creates one ticket for concurrent repeats", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const api = yield* server.api(key)
        const headers = { "idempotency-key": "order-42" }
        const [first, firstResponse] = yield* api.tickets.create({
          payload: ticket,
          headers,
          responseMode: "decoded-and-response"
        })
        expect(firstResponse.status).toBe(202)
        expect(firstResponse.headers["idempotent-replayed"]).toBeUndefined()
        const [repeat, repeatResponse] = yield* api.tickets.create({
          payload: ticket,
          headers,
          responseMode: "decoded-and-response"
        })
        expect(repeatResponse.status).toBe(202)
        expect(repeat).toEqual(first)
        expect(yield* repeatResponse.json).toEqual(yield* firstResponse.json)
        expect(repeatResponse.headers["idempotent-replayed"]).toBe("true")
        // raw: the headers of an error answer, which the typed client does not hand back
        const changed = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { ...ticket, body: "Different" }, headers }))
        expect(changed.status).toBe(409)
        expect(changed.body.error.code).toBe("CONFLICT")
        // final, unlike a repeat that meets its first attempt in flight (409 with Retry-After)
        expect(changed.headers.get("retry-after")).toBeNull()
        const tooLong = yield* api.tickets.create({ payload: ticket, headers: { "idempotency-key": "k".repeat(256) } }).pipe(
          Effect.flip
        )
        expect(tooLong._tag).toBe("ValidationError")
        expect(tooLong.message).toBe("Idempotency-Key must be 1 to 255 characters")

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
        const id = first.ticket_id
        const [m1, m1Response] = yield* api.tickets.addMessage({
          params: { id },
          payload: message,
          headers: { "idempotency-key": "m" },
          responseMode: "decoded-and-response"
        })
        const [m2, m2Response] = yield* api.tickets.addMessage({
          params: { id },
          payload: message,
          headers: { "idempotency-key": "m" },
          responseMode: "decoded-and-response"
        })
        expect([m1Response.status, m2Response.status]).toEqual([201, 201])
        expect(m2).toEqual(m1)

        const sql = yield* SqlClient.SqlClient
        const [tickets] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tickets WHERE project_id = ${projectId}`
        const [messages] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM messages WHERE project_id = ${projectId}`
        expect([tickets!.n, messages!.n]).toEqual([2, 1])
      }))

    it.effect("answers every failure in the envelope: unknown path, wrong method, with a request id and CORS", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* createProject(server)
        const unknown = yield* Effect.promise(() => server.request("GET", "/v1/nothing-here", { key }))
        expect([unknown.status, unknown.body.error.code]).toEqual([404, "NOT_FOUND"])
        expect(unknown.headers.get("content-type")).toBe("application/json; charset=utf-8")
        const wrongMethod = yield* Effect.promise(() => server.request("DELETE", "/v1/tickets", { key }))
        expect([wrongMethod.status, wrongMethod.body.error.code]).toEqual([405, "METHOD_NOT_ALLOWED"])
        // POST files a ticket, GET lists a contact's tickets
        expect(wrongMethod.headers.get("allow")).toBe("POST, GET")

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
        // what the widget sends to read, answer and stream a ticket, and to resume a stream
        for (const header of ["X-Ticket-Token", "X-Visitor-Token", "Last-Event-ID"]) {
          expect(preflight.headers.get("access-control-allow-headers")).toContain(header)
        }
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

    it.effect("says one version everywhere: package.json's, in /health and in /openapi.json", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))
        const health = yield* Effect.promise(() => server.request("GET", "/health"))
        const spec = yield* Effect.promise(() => server.request("GET", "/openapi.json"))
        expect([health.body.version, spec.body.info.version]).toEqual([version, version])
      }))

    it.effect("lists projects and issues keys of either scope", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const { projectId } = yield* createProject(server, "Listed")
        const list = yield* admin.admin.listProjects()
        expect(list.projects).toEqual(expect.arrayContaining([{ project_id: projectId, name: "Listed", created_at: expect.any(String) }]))
        const [full, fullResponse] = yield* admin.admin.createKey({
          params: { pid: projectId },
          payload: {},
          responseMode: "decoded-and-response"
        })
        expect([fullResponse.status, full.scope]).toEqual([201, "full"])
        // a scope the schema refuses: only the raw wire can send it
        const badScope = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/api-keys`, { key: adminToken, body: { scope: "root" } }))
        expect(badScope.body.error.message).toBe("scope must be one of full, widget")
        const noProject = yield* admin.admin.createKey({ params: { pid: crypto.randomUUID() }, payload: {} }).pipe(Effect.flip)
        expect(noProject._tag).toBe("NotFound")
      }))
  })
})

// the budget is told in headers and in a 429 with Retry-After: the wire itself, so raw requests
describe.each(databaseKinds)("rate limit on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "5" }), { excludeTestServices: true })((it) => {
    it.effect("gives each key its budget with RateLimit headers, then 429 with Retry-After", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* createProject(server)
        const b = yield* createProject(server)
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
