import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { databaseKinds } from "../support/Databases.ts"
import { openStream } from "../support/Sse.ts"
import { adminToken, createProject, TestServer, testServer, type TestServerShape } from "../support/TestServer.ts"

/** What a site's backend does for its logged-in user: an HS256 token signed with the project's identity secret. */
const sign = (
  secret: string,
  claims: Record<string, unknown>,
  options: { readonly alg?: string; readonly expiresIn?: string | number; readonly issuedAt?: number } = {}
) => {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? "HS256" })
  jwt.setIssuedAt(options.issuedAt)
  if (options.expiresIn !== undefined) jwt.setExpirationTime(options.expiresIn)
  return jwt.sign(new TextEncoder().encode(secret))
}

const tokenFor = (secret: string, sub: string, extra: Record<string, unknown> = {}) =>
  Effect.promise(() => sign(secret, { sub, ...extra }, { expiresIn: "1h" }))

const identitySecret = (server: TestServerShape, projectId: string) =>
  Effect.promise(() => server.request("POST", `/v1/admin/projects/${projectId}/identity-secret`, { key: adminToken }))
    .pipe(Effect.map((response) => {
      expect(response.status).toBe(201)
      return response.body.identity_secret as string
    }))

const asVisitor = (server: TestServerShape, widgetKey: string, token: string | undefined) =>
(method: string, path: string, options: { readonly body?: unknown; readonly headers?: Record<string, string> } = {}) =>
  Effect.promise(() =>
    server.request(method, path, {
      key: widgetKey,
      body: options.body,
      headers: { ...(token === undefined ? {} : { "x-visitor-token": token }), ...options.headers }
    })
  )

describe.each(databaseKinds)("verified visitors on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("find their tickets on any device, keep an anonymous one they claim, and never see another's", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, widgetKey } = yield* createProject(server)
        const secret = yield* identitySecret(server, projectId)
        const laptop = asVisitor(server, widgetKey, yield* tokenFor(secret, "user-42", { email: "Kim@Example.com", name: "Kim" }))

        const filed = yield* laptop("POST", "/v1/tickets", {
          body: { subject: "Signed in", body: "From the laptop", sender_email: "typed@example.com" }
        })
        expect(filed.status).toBe(202)
        // what the site's backend signed wins over what was typed, and is vouched for
        const admin = yield* Effect.promise(() =>
          server.request("GET", `/v1/admin/projects/${projectId}/tickets/${filed.body.ticket_id}`, { key: adminToken }))
        expect(admin.body).toMatchObject({ sender_email: "kim@example.com", sender_name: "Kim", sender_verified: true })

        // the same person on a phone: a fresh token, no ticket token, the same tickets
        const phone = asVisitor(server, widgetKey, yield* tokenFor(secret, "user-42"))
        const listed = yield* phone("GET", "/v1/tickets")
        expect(listed.status).toBe(200)
        expect(listed.body.tickets.map((t: any) => t.ticket_id)).toEqual([filed.body.ticket_id])
        const read = yield* phone("GET", `/v1/tickets/${filed.body.ticket_id}`)
        expect([read.status, read.body.body]).toEqual([200, "From the laptop"])
        expect((yield* phone("POST", `/v1/tickets/${filed.body.ticket_id}/messages`, { body: { body: "and from the phone" } })).status)
          .toBe(201)

        // filed anonymously on this browser before signing in: claimed, it joins the list
        const anonymous = asVisitor(server, widgetKey, undefined)
        const before = yield* anonymous("POST", "/v1/tickets", { body: { subject: "Before signing in", body: "Hello" } })
        const claimed = yield* phone("POST", `/v1/tickets/${before.body.ticket_id}/claim`, {
          headers: { "x-ticket-token": before.body.access_token }
        })
        expect([claimed.status, claimed.body]).toEqual([200, { ticket_id: before.body.ticket_id }])
        const after = yield* phone("GET", "/v1/tickets")
        expect(after.body.tickets.map((t: any) => t.ticket_id)).toEqual([before.body.ticket_id, filed.body.ticket_id])

        // someone else, verified too, sees none of it and cannot take it over
        const other = asVisitor(server, widgetKey, yield* tokenFor(secret, "user-7"))
        expect((yield* other("GET", "/v1/tickets")).body.tickets).toEqual([])
        expect((yield* other("GET", `/v1/tickets/${filed.body.ticket_id}`)).status).toBe(404)
        const stolen = yield* other("POST", `/v1/tickets/${before.body.ticket_id}/claim`, {
          headers: { "x-ticket-token": before.body.access_token }
        })
        expect(stolen.status).toBe(404)
        // a claim needs the ticket's own token
        const guessed = yield* other("POST", `/v1/tickets/${filed.body.ticket_id}/claim`, {
          headers: { "x-ticket-token": before.body.access_token }
        })
        expect(guessed.status).toBe(404)
        // an anonymous widget key lists nothing: it has nobody to list for
        const nobody = yield* anonymous("GET", "/v1/tickets")
        expect([nobody.status, nobody.body.error.code]).toEqual([403, "FORBIDDEN"])
      }))

    it.effect("refuses a forged, expired or malformed token with 401 saying which check failed, never the secret", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, widgetKey } = yield* createProject(server)
        const refusedWith = (token: string, expected: string) =>
          Effect.gen(function*() {
            const response = yield* asVisitor(server, widgetKey, token)("GET", "/v1/tickets")
            expect(response.status, token).toBe(401)
            expect(response.body.error.code).toBe("UNAUTHORIZED")
            expect(response.body.error.message).toContain(expected)
            return response.body.error.message as string
          })

        // no secret yet: the site's developer is told to make one
        yield* refusedWith(yield* tokenFor("anything", "u1"), "no identity secret")
        const secret = yield* identitySecret(server, projectId)
        const now = Math.floor(Date.now() / 1000)
        const messages = [
          yield* refusedWith(yield* tokenFor("not-the-secret", "u1"), "signature"),
          yield* refusedWith(yield* Effect.promise(() => sign(secret, { sub: "u1" }, { expiresIn: now - 120 })), "expired"),
          yield* refusedWith(yield* Effect.promise(() => sign(secret, { sub: "u1" }, { alg: "HS512", expiresIn: "1h" })), "HS256"),
          yield* refusedWith(yield* Effect.promise(() => sign(secret, {}, { expiresIn: "1h" })), "sub"),
          yield* refusedWith(yield* Effect.promise(() => sign(secret, { sub: "u1" })), "exp"),
          yield* refusedWith(yield* Effect.promise(() => sign(secret, { sub: "u1" }, { expiresIn: "2d" })), "24 hours"),
          yield* refusedWith(yield* Effect.promise(() => sign(secret, { sub: "x".repeat(256) }, { expiresIn: "1h" })), "sub"),
          yield* refusedWith(yield* Effect.promise(() => sign(secret, { sub: "u1", email: "no" }, { expiresIn: "1h" })), "email"),
          yield* refusedWith("not.a.jwt", "not a JWT"),
          // an unsigned token is a forgery whatever it claims
          yield* refusedWith(`${btoa(JSON.stringify({ alg: "none" }))}.${btoa(JSON.stringify({ sub: "u1", exp: now + 60 }))}.`, "HS256")
        ]
        for (const message of messages) expect(message).not.toContain(secret)
        // within the allowed minute of clock difference, an expired token still passes
        const justExpired = yield* Effect.promise(() => sign(secret, { sub: "u1" }, { expiresIn: now - 30 }))
        expect((yield* asVisitor(server, widgetKey, justExpired)("GET", "/v1/tickets")).status).toBe(200)

        // a rotated secret refuses what the old one signed
        const old = yield* tokenFor(secret, "u1")
        yield* identitySecret(server, projectId)
        yield* refusedWith(old, "signature")
      }))

    it.effect("can be required by the project: anonymous widget requests are refused, full keys are not", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key, widgetKey } = yield* createProject(server)
        const secret = yield* identitySecret(server, projectId)
        const required = yield* Effect.promise(() =>
          server.request("PATCH", `/v1/admin/projects/${projectId}/identity`, {
            key: adminToken,
            body: { require_verified_visitors: true }
          }))
        expect(required.status).toBe(200)
        const anonymous = yield* asVisitor(server, widgetKey, undefined)("POST", "/v1/tickets", { body: { subject: "s", body: "b" } })
        expect([anonymous.status, anonymous.body.error.code]).toEqual([401, "UNAUTHORIZED"])
        expect(anonymous.body.error.message).toContain("verified visitors")
        const verified = asVisitor(server, widgetKey, yield* tokenFor(secret, "u1"))
        expect((yield* verified("POST", "/v1/tickets", { body: { subject: "s", body: "b" } })).status).toBe(202)
        const backend = yield* Effect.promise(() => server.request("POST", "/v1/tickets", { key, body: { subject: "s", body: "b" } }))
        expect(backend.status).toBe(202)
      }))
  })
})

describe("limits that fit a public page", () => {
  layer(testServer("pglite", { WIDGET_VISITOR_RATE_LIMIT_PER_MINUTE: "5", TRUST_PROXY: "true" }), {
    excludeTestServices: true
  })((it) => {
    it.effect("one visitor flooding the widget gets 429 with Retry-After, and other visitors are not refused", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, widgetKey } = yield* createProject(server)
        const secret = yield* identitySecret(server, projectId)
        const search = (headers: Record<string, string>) =>
          Effect.promise(() => server.request("GET", "/v1/articles/search?q=printer", { key: widgetKey, headers }))

        // anonymous visitors are told apart by their address, as the proxy reports it
        const flooder = { "x-forwarded-for": "203.0.113.7" }
        const statuses = []
        for (let i = 0; i < 7; i++) statuses.push((yield* search(flooder)).status)
        expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429])
        const refused = yield* search(flooder)
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
        expect(refused.body.error.code).toBe("RATE_LIMITED")
        expect((yield* search({ "x-forwarded-for": "198.51.100.23" })).status).toBe(200)

        // verified visitors by who they are, wherever they are
        const ann = yield* tokenFor(secret, "ann")
        for (let i = 0; i < 5; i++) expect((yield* search({ "x-visitor-token": ann, ...flooder })).status).toBe(200)
        expect((yield* search({ "x-visitor-token": ann, "x-forwarded-for": "192.0.2.1" })).status).toBe(429)
        expect((yield* search({ "x-visitor-token": yield* tokenFor(secret, "bob"), ...flooder })).status).toBe(200)
      }))

    it.effect("a stream costs one request when it opens, however many events it carries", () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, widgetKey } = yield* createProject(server)
        const visitor = { "x-forwarded-for": "203.0.113.99" }
        const filed = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key: widgetKey, headers: visitor, body: { subject: "s", body: "b" } }))
        const stream = yield* openStream(server.baseUrl, `/v1/tickets/${filed.body.ticket_id}/events`, {
          authorization: `Bearer ${widgetKey}`,
          "x-ticket-token": filed.body.access_token,
          ...visitor
        })
        expect(stream.response.status).toBe(200)
        // two spent (the create and the stream): three are left
        expect(stream.response.headers.get("ratelimit-remaining")).toBe("3")
        for (let i = 0; i < 8; i++) {
          yield* Effect.promise(() =>
            server.request("POST", `/v1/admin/projects/${projectId}/tickets/${filed.body.ticket_id}/messages`, {
              key: adminToken,
              body: { body: `reply ${i}` }
            }))
        }
        expect(yield* Effect.promise(() => stream.next(8))).toHaveLength(8)
        // eight events later, the visitor still has the three requests left
        const read = yield* Effect.promise(() =>
          server.request("GET", `/v1/tickets/${filed.body.ticket_id}`, {
            key: widgetKey,
            headers: { "x-ticket-token": filed.body.access_token, ...visitor }
          }))
        expect([read.status, read.headers.get("ratelimit-remaining")]).toEqual([200, "2"])
      })))
  })
})
