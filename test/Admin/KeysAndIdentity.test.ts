/**
 * The operator's side of a key's own rate limit and of a project's visitor identity: the endpoints
 * through the contract's typed client (the wire itself where the test is about it), and the limit
 * as a key meets it on its next request, on both databases.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Projects } from "../../src/Projects/Projects.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { describeNeeding, missingOf, postgresMissing, redisMissing } from "../support/Requires.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const settingLimit = 1000
const unknownId = "0b7e1e0c-6a55-4c3e-9d4e-2f1c6a1d9a00"
const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

const admin = (server: TestServerShape, method: string, path: string, body?: unknown) =>
  Effect.promise(() => server.request(method, path, { key: adminToken, ...(body === undefined ? {} : { body }) }))

/** One authenticated request of `key`, as its caller sees the answer. */
const search = (server: TestServerShape, key: string) =>
  Effect.promise(() => server.request("GET", "/v1/articles/search?q=anything", { key })).pipe(
    Effect.map((response) => ({
      status: response.status,
      limit: response.headers.get("ratelimit-limit"),
      remaining: response.headers.get("ratelimit-remaining"),
      retryAfter: response.headers.get("retry-after"),
      code: response.body?.error?.code as string | undefined
    }))
  )

describe.each(databaseKinds)("keys' own rate limits and visitor identity on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: String(settingLimit) }), { excludeTestServices: true })((it) => {
    it.effect("creates a key with a limit of its own, lists it, changes it, and puts it back on the setting's", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { keyId: firstKeyId, projectId } = yield* createProject(server)
        const api = (yield* server.api(adminToken)).admin
        const limited = yield* api.createKey({ params: { pid: projectId }, payload: { name: "partner", rate_limit_per_minute: 250 } })
        expect(limited).toMatchObject({ scope: "full", rate_limit_per_minute: 250, api_key: expect.stringMatching(/^tf_/) })
        const plain = yield* api.createKey({ params: { pid: projectId }, payload: { scope: "widget" } })
        expect(plain.rate_limit_per_minute).toBeNull()
        // null is read as absent, as for every optional field
        const nulled = yield* admin(server, "POST", `/v1/admin/projects/${projectId}/api-keys`, { rate_limit_per_minute: null })
        expect([nulled.status, nulled.body.rate_limit_per_minute]).toEqual([201, null])

        const limitsOf = Effect.map(api.listKeys({ params: { pid: projectId } }), (list) =>
          Object.fromEntries(list.api_keys.map((key) => [key.key_id, key.rate_limit_per_minute])))
        // the project's first key and the widget key of createProject, then these three
        const listed = yield* limitsOf
        expect(Object.keys(listed)).toHaveLength(5)
        expect(Object.values(listed).sort()).toEqual([250, null, null, null, null])
        expect(listed).toMatchObject({ [firstKeyId]: null, [limited.key_id]: 250, [plain.key_id]: null, [nulled.body.key_id]: null })

        const patched = yield* admin(server, "PATCH", `/v1/admin/projects/${projectId}/api-keys/${limited.key_id}`, {
          rate_limit_per_minute: 1_000_000
        })
        expect(patched.status).toBe(200)
        expect(patched.headers.get("content-type")).toBe("application/json; charset=utf-8")
        expect(patched.body).toEqual({
          key_id: limited.key_id,
          name: "partner",
          scope: "full",
          rate_limit_per_minute: 1_000_000,
          created_at: expect.stringMatching(iso),
          revoked_at: null
        })
        const reset = yield* api.updateKey({
          params: { pid: projectId, key_id: limited.key_id },
          payload: { rate_limit_per_minute: null }
        })
        expect(reset.rate_limit_per_minute).toBeNull()
        expect((yield* limitsOf)[limited.key_id]).toBeNull()
        const widgetLimited = yield* api.updateKey({
          params: { pid: projectId, key_id: plain.key_id },
          payload: { rate_limit_per_minute: 1 }
        })
        expect(widgetLimited).toMatchObject({ scope: "widget", rate_limit_per_minute: 1 })
      }))

    it.effect("refuses a limit that is not an integer from 1 to 1,000,000, in words that name the field", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { keyId, projectId } = yield* createProject(server)
        const refusal = (response: { status: number; body: any }) => [response.status, response.body.error.code, response.body.error.message]
        const create = (body: unknown) => Effect.map(admin(server, "POST", `/v1/admin/projects/${projectId}/api-keys`, body), refusal)
        const patch = (body: unknown) =>
          Effect.map(admin(server, "PATCH", `/v1/admin/projects/${projectId}/api-keys/${keyId}`, body), refusal)
        const range = "rate_limit_per_minute must be between 1 and 1,000,000"
        const integer = "rate_limit_per_minute must be an integer"
        const integerOrNull = "rate_limit_per_minute must be an integer or null"
        expect(yield* create({ rate_limit_per_minute: 0 })).toEqual([400, "VALIDATION_ERROR", range])
        expect(yield* create({ rate_limit_per_minute: 1_000_001 })).toEqual([400, "VALIDATION_ERROR", range])
        expect(yield* create({ rate_limit_per_minute: -5 })).toEqual([400, "VALIDATION_ERROR", range])
        expect(yield* create({ rate_limit_per_minute: 2.5 })).toEqual([400, "VALIDATION_ERROR", integer])
        expect(yield* create({ rate_limit_per_minute: "100" })).toEqual([400, "VALIDATION_ERROR", integerOrNull])
        expect(yield* create({ rate_limit_per_minute: true })).toEqual([400, "VALIDATION_ERROR", integerOrNull])
        expect(yield* patch({ rate_limit_per_minute: 0 })).toEqual([400, "VALIDATION_ERROR", range])
        expect(yield* patch({ rate_limit_per_minute: 10.5 })).toEqual([400, "VALIDATION_ERROR", integer])
        expect(yield* patch({ rate_limit_per_minute: "ten" })).toEqual([400, "VALIDATION_ERROR", integerOrNull])
        expect(yield* patch({})).toEqual([400, "VALIDATION_ERROR", "rate_limit_per_minute is required"])
        expect(yield* patch([1])).toEqual([400, "VALIDATION_ERROR", "request body must be a JSON object"])
        // nothing was written by the refusals
        const keys = yield* (yield* server.api(adminToken)).admin.listKeys({ params: { pid: projectId } })
        // the project's first key and createProject's widget key, nothing more, with no limit of their own
        expect(keys.api_keys.map((key) => key.rate_limit_per_minute)).toEqual([null, null])
      }))

    it.effect("answers 404 for an unknown project or key, and for a key of another project", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { keyId, projectId } = yield* createProject(server)
        const other = yield* createProject(server, "Other")
        const status = (method: string, path: string, body?: unknown) =>
          Effect.map(admin(server, method, path, body), (response) => [response.status, response.body?.error?.code])
        const notFound = [404, "NOT_FOUND"]
        const limit = { rate_limit_per_minute: 5 }
        expect(yield* status("PATCH", `/v1/admin/projects/${projectId}/api-keys/${unknownId}`, limit)).toEqual(notFound)
        expect(yield* status("PATCH", `/v1/admin/projects/${projectId}/api-keys/not-a-uuid`, limit)).toEqual(notFound)
        expect(yield* status("PATCH", `/v1/admin/projects/${other.projectId}/api-keys/${keyId}`, limit)).toEqual(notFound)
        expect(yield* status("PATCH", `/v1/admin/projects/${unknownId}/api-keys/${keyId}`, limit)).toEqual(notFound)
        expect(yield* status("POST", `/v1/admin/projects/${unknownId}/api-keys`, limit)).toEqual(notFound)
        expect(yield* status("POST", `/v1/admin/projects/${unknownId}/identity-secret`)).toEqual(notFound)
        expect(yield* status("GET", `/v1/admin/projects/${unknownId}/identity`)).toEqual(notFound)
        expect(yield* status("PATCH", `/v1/admin/projects/${unknownId}/identity`, { require_verified_visitors: false })).toEqual(notFound)
        expect(yield* status("DELETE", `/v1/admin/projects/${unknownId}/identity-secret`)).toEqual(notFound)
        expect(yield* status("GET", `/v1/admin/projects/not-a-uuid/identity`)).toEqual(notFound)
        // the key of the other project was left alone
        const keys = yield* (yield* server.api(adminToken)).admin.listKeys({ params: { pid: projectId } })
        expect(keys.api_keys[0]!.rate_limit_per_minute).toBeNull()
      }))

    it.effect("shows an identity secret once, rotates it, requires verified visitors only with one, and removes it", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const api = (yield* server.api(adminToken)).admin
        const projects = yield* Projects
        const params = { pid: projectId }
        const none = { has_identity_secret: false, identity_secret_created_at: null, require_verified_visitors: false }
        expect(yield* api.getIdentity({ params })).toEqual(none)

        // nothing to verify visitors with yet
        const early = yield* admin(server, "PATCH", `/v1/admin/projects/${projectId}/identity`, { require_verified_visitors: true })
        expect(early.status).toBe(409)
        expect(early.body.error.code).toBe("CONFLICT")
        expect(early.body.error.message).toContain("create one first")
        expect(yield* api.getIdentity({ params })).toEqual(none)
        const notBoolean = yield* admin(server, "PATCH", `/v1/admin/projects/${projectId}/identity`, {
          require_verified_visitors: "yes"
        })
        expect([notBoolean.status, notBoolean.body.error.message])
          .toEqual([400, "require_verified_visitors must be true or false"])

        // the key is known (and cached) before the secret exists
        const before = yield* projects.authenticate(key)
        expect(before._tag === "Some" && before.value.identity_secret).toBe(null)

        const made = yield* admin(server, "POST", `/v1/admin/projects/${projectId}/identity-secret`)
        expect(made.status).toBe(201)
        expect(made.headers.get("content-type")).toBe("application/json; charset=utf-8")
        expect(made.body).toEqual({
          identity_secret: expect.stringMatching(/^ids_[A-Za-z0-9_-]{43}$/),
          created_at: expect.stringMatching(iso)
        })
        const secret: string = made.body.identity_secret
        const shown = yield* admin(server, "GET", `/v1/admin/projects/${projectId}/identity`)
        expect(shown.body).toEqual({
          has_identity_secret: true,
          identity_secret_created_at: made.body.created_at,
          require_verified_visitors: false
        })
        // never again, anywhere the operator reads
        for (const path of ["/identity", "/api-keys", ""]) {
          const read = yield* admin(server, "GET", `/v1/admin/projects${path === "" ? "" : `/${projectId}${path}`}`)
          expect(read.status).toBe(200)
          expect(read.text).not.toContain(secret)
          expect(read.text).not.toContain(secret.slice(4))
        }
        // and the key's next lookup has it, though the key was cached without it
        const known = yield* projects.authenticate(key)
        expect(known._tag === "Some" && known.value.identity_secret).toBe(secret)

        const rotated = yield* api.createIdentitySecret({ params })
        expect(rotated.identity_secret).toMatch(/^ids_/)
        expect(rotated.identity_secret).not.toBe(secret)
        expect(rotated.created_at >= made.body.created_at).toBe(true)
        const afterRotation = yield* projects.authenticate(key)
        expect(afterRotation._tag === "Some" && afterRotation.value.identity_secret).toBe(rotated.identity_secret)

        const required = yield* api.updateIdentity({ params, payload: { require_verified_visitors: true } })
        expect(required).toEqual({
          has_identity_secret: true,
          identity_secret_created_at: rotated.created_at,
          require_verified_visitors: true
        })
        const requiredKey = yield* projects.authenticate(key)
        expect(requiredKey._tag === "Some" && requiredKey.value.require_verified_visitors).toBe(true)
        // rotating keeps the requirement: there is still a secret
        yield* api.createIdentitySecret({ params })
        expect((yield* api.getIdentity({ params })).require_verified_visitors).toBe(true)

        const removed = yield* admin(server, "DELETE", `/v1/admin/projects/${projectId}/identity-secret`)
        expect([removed.status, removed.text]).toEqual([204, ""])
        expect(yield* api.getIdentity({ params })).toEqual(none)
        const removedKey = yield* projects.authenticate(key)
        expect(removedKey._tag === "Some" && [removedKey.value.identity_secret, removedKey.value.require_verified_visitors])
          .toEqual([null, false])
        // again: nothing to remove, still done
        const again = yield* admin(server, "DELETE", `/v1/admin/projects/${projectId}/identity-secret`)
        expect(again.status).toBe(204)
        expect(yield* api.updateIdentity({ params, payload: { require_verified_visitors: false } })).toEqual(none)
        expect((yield* api.updateIdentity({ params, payload: { require_verified_visitors: true } }).pipe(Effect.flip))._tag)
          .toBe("Conflict")
      }))

    it.effect("holds a key to its own limit, apart from the project's other keys, and counts a change from the next request", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key: otherKey, projectId } = yield* createProject(server)
        const api = (yield* server.api(adminToken)).admin
        const limited = yield* api.createKey({ params: { pid: projectId }, payload: { rate_limit_per_minute: 3 } })

        const allowed = (remaining: number, limit = 3) => ({
          status: 200,
          limit: String(limit),
          remaining: String(remaining),
          retryAfter: null,
          code: undefined
        })
        expect(yield* search(server, limited.api_key)).toEqual(allowed(2))
        expect(yield* search(server, limited.api_key)).toEqual(allowed(1))
        expect(yield* search(server, limited.api_key)).toEqual(allowed(0))
        const fourth = yield* search(server, limited.api_key)
        expect(fourth).toMatchObject({ status: 429, code: "RATE_LIMITED", limit: "3", remaining: "0" })
        expect(Number(fourth.retryAfter)).toBeGreaterThan(0)
        expect(Number(fourth.retryAfter)).toBeLessThanOrEqual(60)
        // the project's other key spends its own budget, of the setting's size (a budget that large
        // holds each request for a few milliseconds only, so how much is left depends on the pace)
        for (let i = 0; i < 2; i++) {
          const other = yield* search(server, otherKey)
          expect(other).toMatchObject({ status: 200, limit: String(settingLimit), retryAfter: null })
          expect(Number(other.remaining)).toBeGreaterThanOrEqual(settingLimit - 2)
        }

        // raised: the very next request is counted against the new limit (the key cache forgot the old one)
        yield* api.updateKey({ params: { pid: projectId, key_id: limited.key_id }, payload: { rate_limit_per_minute: 10 } })
        expect(yield* search(server, limited.api_key)).toEqual(allowed(6, 10))
        // back to the setting's
        yield* api.updateKey({ params: { pid: projectId, key_id: limited.key_id }, payload: { rate_limit_per_minute: null } })
        expect(yield* search(server, limited.api_key)).toEqual(allowed(settingLimit - 5, settingLimit))

        // lowered below what it has spent (a budget of a few requests a minute holds each for many
        // seconds): refused from its next request on, and the other key still is not
        yield* api.updateKey({ params: { pid: projectId, key_id: limited.key_id }, payload: { rate_limit_per_minute: 1 } })
        expect(yield* search(server, limited.api_key)).toMatchObject({ status: 429, code: "RATE_LIMITED", limit: "1" })
        expect(yield* search(server, otherKey)).toMatchObject({ status: 200, limit: String(settingLimit) })
      }))
  })
})

// Needs a PostgreSQL server and a Redis server, as two instances behind a load balancer have.
describeNeeding(missingOf(postgresMissing, redisMissing), "a key's own limit on two instances sharing PostgreSQL and Redis", () => {
  it.live("is counted by both from the request after the change, whichever instance made it and whichever knew the key", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase("postgres")
      const settings = { REDIS_URL: process.env.REDIS_URL!, RATE_LIMIT_PER_MINUTE: String(settingLimit) }
      const a = Context.get(yield* Layer.build(testServer("postgres", settings, env)), TestServer)
      const b = Context.get(yield* Layer.build(testServer("postgres", settings, env)), TestServer)
      const { projectId } = yield* createProject(a)
      const adminA = (yield* a.api(adminToken)).admin
      const adminB = (yield* b.api(adminToken)).admin
      const key = yield* adminA.createKey({ params: { pid: projectId }, payload: {} })
      // both instances know the key, with the setting's limit
      for (const instance of [a, b]) {
        expect(yield* search(instance, key.api_key)).toMatchObject({ status: 200, limit: String(settingLimit) })
      }

      // the instance that made the change counts it from its very next request; the other one
      // from the moment the notification reaches it, which the change's answer does not wait for
      // (only for its own instance to hear it), so a loaded machine may show it a request or two late
      yield* adminA.updateKey({ params: { pid: projectId, key_id: key.key_id }, payload: { rate_limit_per_minute: 3 } })
      expect(yield* search(a, key.api_key)).toMatchObject({ status: 200, limit: "3" })
      /** Asks `instance` until it reports `limit`. */
      const reaches = (instance: TestServerShape, limit: string) =>
        eventually(
          `the other instance to count a limit of ${limit}`,
          Effect.map(search(instance, key.api_key), (answer) => ({ done: answer.limit === limit, value: answer }))
        )
      yield* reaches(b, "3")
      // one budget in Redis: three requests a minute between the two instances, at least two of
      // them spent by now, so at most one more gets through, on either
      const answers = []
      for (const instance of [a, b, a, b]) answers.push(yield* search(instance, key.api_key))
      expect(answers.map((answer) => answer.limit)).toEqual(["3", "3", "3", "3"])
      expect(answers.slice(1).map((answer) => [answer.status, answer.code])).toEqual(Array(3).fill([429, "RATE_LIMITED"]))

      yield* adminB.updateKey({ params: { pid: projectId, key_id: key.key_id }, payload: { rate_limit_per_minute: null } })
      expect(yield* search(b, key.api_key)).toMatchObject({ status: 200, limit: String(settingLimit) })
      expect(yield* reaches(a, String(settingLimit))).toMatchObject({ status: 200 })
    }), 120_000)
})
