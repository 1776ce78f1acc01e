import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { adminRead, createTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, type RawResponse, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

/** How deep a JSON body may nest, as the README promises. */
const maxJsonDepth = 64

/** What every refused input gets: 400 with the field and the rule in the message. */
const refused = (message: string) => ({ status: 400, body: { error: { code: "VALIDATION_ERROR", message } } })

const call = (server: TestServerShape, ...args: Parameters<TestServerShape["request"]>) =>
  Effect.promise(() => server.request(...args))

/** `depth` arrays around `leaf`, as JSON text. */
const nested = (depth: number, leaf = "1") => "[".repeat(depth) + leaf + "]".repeat(depth)

/** The description a ticket was created with, which no read returns. */
const bodyOf = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ body: string }>`SELECT body FROM tickets WHERE id = ${ticketId}`.pipe(
      Effect.map(([row]) => row?.body),
      Effect.orDie
    ))

interface Case {
  readonly method: string
  readonly path: string
  readonly key: string
  readonly body?: unknown
  readonly rawBody?: string
  readonly message: string
}

/** Each case sent as it is, and the answer it got beside the one it should get. */
const answers = (server: TestServerShape, cases: ReadonlyArray<Case>) =>
  Effect.forEach(cases, (c) =>
    Effect.map(
      call(server, c.method, c.path, {
        key: c.key,
        body: c.body,
        ...(c.rawBody === undefined ? {} : { rawBody: c.rawBody, headers: { "content-type": "application/json" } })
      }),
      (response) => ({
        call: `${c.method} ${c.path} ${c.rawBody === undefined ? JSON.stringify(c.body) : c.rawBody.slice(0, 80)}`,
        got: { status: response.status, body: response.body },
        expected: refused(c.message)
      })
    ))

/** A project with a ticket and an article, for the routes that need ids. */
const fixture = (server: TestServerShape) =>
  Effect.gen(function*() {
    const project = yield* createProject(server)
    const ticket = yield* createTicket(server, project.key, { subject: "Fixture", body: "A ticket to write to" })
    const admin = yield* server.api(adminToken)
    const article = yield* admin.admin.createArticle({
      params: { pid: project.projectId },
      payload: { title: "Resetting a password", body: "Use the link on the sign-in page.", category: "account", published: true }
    }).pipe(Effect.orDie)
    return { ...project, ticketId: ticket.ticket_id, articleId: article.id }
  })

type Fixture = Effect.Success<ReturnType<typeof fixture>>

/**
 * A call with `bad` put in each text input of the API, public and operator, with the message
 * that must name it; `rule` is what the message says after the field.
 */
const everyTextInput = (f: Fixture, bad: string, rule: string): Array<Case> => {
  const admin = `/v1/admin/projects/${f.projectId}`
  const ticket = { subject: "s", body: "b" }
  const article = { title: "t", body: "b", category: "c" }
  const automationRule = { name: "n", event: "ticket_created", conditions: [], actions: [{ type: "add_tag", value: "x" }] }
  const post = (path: string, key: string, body: unknown, message: string): Case => ({ method: "POST", path, key, body, message })
  const patch = (path: string, body: unknown, message: string): Case => ({ method: "PATCH", path, key: adminToken, body, message })
  return [
    post("/v1/tickets", f.key, { ...ticket, subject: `a${bad}b` }, `subject ${rule}`),
    post("/v1/tickets", f.key, { ...ticket, body: `${bad}` }, `body ${rule}`),
    post("/v1/tickets", f.key, { ...ticket, sender_email: `a${bad}@example.com` }, `sender_email ${rule}`),
    post("/v1/tickets", f.key, { ...ticket, sender_name: `Ada ${bad}` }, `sender_name ${rule}`),
    post("/v1/tickets", f.key, { ...ticket, tags: ["ok", `t${bad}`] }, `tags[1] ${rule}`),
    post("/v1/tickets", f.key, { ...ticket, metadata: { plan: `pro${bad}` } }, `metadata.plan ${rule}`),
    post("/v1/tickets", f.key, { ...ticket, metadata: { [`k${bad}`]: 1 } }, `metadata keys ${rule}`),
    post(
      "/v1/tickets",
      f.key,
      { ...ticket, metadata: { customer: { notes: ["fine", { text: `x${bad}` }] } } },
      `metadata.customer.notes[1].text ${rule}`
    ),
    post("/v1/tickets", f.key, { ...ticket, metadata: { customer: { [`${bad}`]: true } } }, `metadata.customer keys ${rule}`),
    post(`/v1/tickets/${f.ticketId}/messages`, f.key, { body: `x${bad}` }, `body ${rule}`),
    post(`/v1/tickets/${f.ticketId}/messages`, f.key, { body: "x", contact_email: `c${bad}@example.com` }, `contact_email ${rule}`),
    post(`${admin}/tickets/${f.ticketId}/messages`, adminToken, { body: `${bad}` }, `body ${rule}`),
    post(`${admin}/tickets/${f.ticketId}/messages`, adminToken, { body: "x", author_email: `${bad}@x.example` }, `author_email ${rule}`),
    patch(`${admin}/tickets/${f.ticketId}`, { assignee_email: `a${bad}@x.example` }, `assignee_email ${rule}`),
    post("/v1/admin/projects", adminToken, { name: `p${bad}` }, `name ${rule}`),
    post(`${admin}/api-keys`, adminToken, { name: `k${bad}` }, `name ${rule}`),
    post(`${admin}/agents`, adminToken, { email: `a${bad}@x.example`, name: "Ada" }, `email ${rule}`),
    post(`${admin}/agents`, adminToken, { email: "ada@x.example", name: `Ada${bad}` }, `name ${rule}`),
    post(`${admin}/articles`, adminToken, { ...article, title: `t${bad}` }, `title ${rule}`),
    post(`${admin}/articles`, adminToken, { ...article, body: `b${bad}` }, `body ${rule}`),
    post(`${admin}/articles`, adminToken, { ...article, category: `c${bad}` }, `category ${rule}`),
    post(`${admin}/articles`, adminToken, { ...article, slug: `s${bad}` }, `slug ${rule}`),
    patch(`${admin}/articles/${f.articleId}`, { title: `t${bad}` }, `title ${rule}`),
    post(`${admin}/webhooks`, adminToken, { url: `https://hooks.example/${bad}` }, `url ${rule}`),
    post(`${admin}/webhooks`, adminToken, { url: "https://hooks.example/", secret: `0123456789abcdef${bad}` }, `secret ${rule}`),
    post(`${admin}/automation-rules`, adminToken, { ...automationRule, name: `n${bad}` }, `name ${rule}`),
    post(
      `${admin}/automation-rules`,
      adminToken,
      { ...automationRule, conditions: [{ field: "message_body", op: "contains", value: `v${bad}` }] },
      `conditions[0].value ${rule}`
    ),
    post(
      `${admin}/automation-rules`,
      adminToken,
      { ...automationRule, conditions: [{ field: "status", op: "in", value: ["open", `v${bad}`] }] },
      `conditions[0].value[1] ${rule}`
    ),
    post(`${admin}/automation-rules`, adminToken, { ...automationRule, actions: [{ type: "add_tag", value: `v${bad}` }] }, `actions[0].value ${rule}`)
  ]
}

// a small, seeded generator, so a failing fuzz case comes back on every run
const seeded = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!
  return { next, int, pick }
}

type Random = ReturnType<typeof seeded>

const oddStrings = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "😀",
  "\ud83d\ude00\ud83d",
  "'; DROP TABLE tickets; --",
  "%00",
  "\\",
  "\"",
  "<script>alert(1)</script>",
  "p1_critical",
  "open",
  "ticket_created",
  "a@b.co",
  "A@B.CO\u0000",
  "https://hooks.example/x",
  "00000000-0000-0000-0000-000000000000",
  "\u202e\ufeff\u200b",
  "x".repeat(201),
  "y".repeat(5000)
]

/** Any JSON value, as text: odd strings, huge and odd numbers, and nesting up to `depth`. */
const randomJson = (r: Random, depth: number): string => {
  switch (r.int(depth > 0 ? 10 : 6)) {
    case 0:
      return JSON.stringify(r.pick(oddStrings))
    case 1:
      return r.pick(["0", "-0", "1e309", "-1e309", "123456789012345678901234567890", "0.1", "-7", "1E-400", "9007199254740993"])
    case 2:
      return r.pick(["true", "false", "null"])
    case 3:
      return JSON.stringify(r.pick(oddStrings) + r.pick(oddStrings))
    case 4:
      return r.pick(["{}", "[]", "\"\""])
    case 5:
      return nested(r.pick([2, 70, 500, 3000]), r.pick(["", "1", "{}"]))
    case 6:
    case 7:
      return `[${Array.from({ length: r.int(4) }, () => randomJson(r, depth - 1)).join(",")}]`
    default:
      return `{${
        Array.from({ length: r.int(5) }, () =>
          `${JSON.stringify(r.pick([...fieldNames, ...oddStrings]))}:${randomJson(r, depth - 1)}`).join(",")
      }}`
  }
}

const fieldNames = [
  "subject", "body", "sender_email", "sender_name", "priority", "source", "tags", "metadata", "contact_email",
  "name", "scope", "email", "title", "category", "slug", "published", "status", "assignee_email", "author_email",
  "internal", "url", "events", "secret", "event", "conditions", "actions", "field", "op", "value", "type"
]

/** A body the endpoint accepts, with one of its fields (or the whole) replaced by something random. */
const mutate = (r: Random, valid: Record<string, unknown>): string => {
  const choice = r.int(10)
  if (choice === 0) return randomJson(r, 3)
  if (choice === 1) return r.pick(["", "{", "{\"subject\":", "nul\u0000", "{}}", "[1,]", "{\"a\":1,}", "\ufeff{}", "{\"a\":\"\\ud800\"}"])
  const keys = [...Object.keys(valid), r.pick(fieldNames)]
  const field = r.pick(keys)
  const fields = Object.entries(valid).filter(([key]) => key !== field).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`)
  return `{${[...fields, `${JSON.stringify(field)}:${randomJson(r, 3)}`].join(",")}}`
}

const oddQueries = [
  "q=%00",
  "q=a%00b",
  "q=%",
  "q=%zz",
  "q=%E0%A4%A",
  "q=%ED%A0%80",
  "q=%FF%FE",
  "q=",
  "q=+",
  "q=a&q=b",
  `q=${"x".repeat(300)}`,
  "q=password&limit=0",
  "q=password&limit=-1",
  "q=password&limit=1e3",
  "q=password&limit=abc",
  "q=password&limit=99999999999999999999",
  "q=password&limit=5&limit=6",
  "q=password&types=",
  "q=password&types=tickets,,nope",
  "q=password&types=%00",
  "q[]=a",
  "q[a]=b",
  "&&&",
  "q=%22%5B%5B%5B",
  "contact_email=%00",
  "contact_email=a%40b.co"
]

const oddIds = (f: Fixture) => ["not-a-uuid", "%00", "%ED%A0%80", "%", crypto.randomUUID(), f.ticketId, "x".repeat(500), "..%2F..", f.projectId]

describe.each(databaseKinds)("input checks on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "1000000" }), { excludeTestServices: true })((it) => {
    it.effect("refuses a NUL character in every text input with 400 naming the field (issue 11, point 1)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const f = yield* fixture(server)
        const rule = "must not contain NUL characters"
        const cases: Array<Case> = [
          ...everyTextInput(f, "\u0000", rule),
          { method: "GET", path: "/v1/articles/search?q=%00", key: f.key, message: `q ${rule}` },
          { method: "GET", path: "/v1/articles/search?q=pass%00word", key: f.key, message: `q ${rule}` },
          { method: "GET", path: "/v1/search?q=%00", key: f.key, message: `q ${rule}` },
          { method: "GET", path: `/v1/tickets/${f.ticketId}?contact_email=a%00%40b.co`, key: f.key, message: `contact_email ${rule}` }
        ]
        for (const answer of yield* answers(server, cases)) expect(answer.got, answer.call).toEqual(answer.expected)
      }))

    it.effect("refuses a lone surrogate alike in text fields and in metadata keys and values; pairs are kept (issue 11, point 2)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const f = yield* fixture(server)
        const rule = "must not contain unpaired UTF-16 surrogates"
        for (const lone of ["\ud800", "\udfff", "\ude00\ud83d"]) {
          for (const answer of yield* answers(server, everyTextInput(f, lone, rule))) {
            expect(answer.got, answer.call).toEqual(answer.expected)
          }
        }
        // a character outside the BMP is a well-formed pair, stored and read back as it was sent
        const emoji = "Paid 😀 twice 𝄞"
        const created = yield* createTicket(server, f.key, {
          subject: emoji,
          body: emoji,
          tags: [emoji],
          metadata: { [emoji]: { note: emoji } }
        })
        const read = yield* adminRead(server, f.projectId, created.ticket_id)
        expect([read.subject, read.tags, read.metadata]).toEqual([emoji, [emoji], { [emoji]: { note: emoji } }])
        expect(yield* bodyOf(created.ticket_id)).toBe(emoji)
      }))

    it.effect(`refuses JSON nested deeper than ${maxJsonDepth} levels on every route, before decoding (issue 11, point 3)`, () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const f = yield* fixture(server)
        const admin = `/v1/admin/projects/${f.projectId}`
        const message = `request body must not nest arrays or objects more than ${maxJsonDepth} levels deep`
        const deep = (path: string, key: string, rawBody: string, method = "POST"): Case => ({ method, path, key, rawBody, message })
        // 5,000 levels of metadata in 10 KB, which overflowed the stack of the size check
        const cases = [
          deep("/v1/tickets", f.key, `{"subject":"a","body":"b","priority":${nested(3000)}}`),
          deep("/v1/tickets", f.key, `{"subject":"a","body":"b","priority":${nested(5000)}}`),
          deep("/v1/tickets", f.key, `{"subject":"a","body":"b","metadata":{"k":${nested(5000)}}}`),
          deep("/v1/tickets", f.key, `{"subject":"a","body":"b","metadata":${"{\"k\":".repeat(5000)}1${"}".repeat(5000)}}`),
          deep("/v1/tickets", f.key, `{"subject":"a","body":"b","unknown":${nested(maxJsonDepth)}}`),
          deep("/v1/tickets", f.key, nested(5000)),
          deep(`/v1/tickets/${f.ticketId}/messages`, f.key, `{"body":${nested(4000)}}`),
          deep("/v1/admin/projects", adminToken, `{"name":${nested(4000)}}`),
          deep(`${admin}/tickets/${f.ticketId}`, adminToken, `{"priority":${nested(4000)}}`, "PATCH"),
          deep(`${admin}/automation-rules`, adminToken, `{"conditions":${nested(4000, "{}")}}`),
          deep(`${admin}/webhooks`, adminToken, `{"url":"https://hooks.example/","events":${nested(4000)}}`)
        ]
        for (const answer of yield* answers(server, cases)) expect(answer.got, answer.call).toEqual(answer.expected)

        // the deepest body allowed: the body, metadata, and arrays down to the limit
        const deepest = yield* call(server, "POST", "/v1/tickets", {
          key: f.key,
          rawBody: `{"subject":"a","body":"b","metadata":{"k":${nested(maxJsonDepth - 2)}}}`,
          headers: { "content-type": "application/json" }
        })
        expect(deepest.status).toBe(202)
        // large and shallow: near 1 MiB, with brackets and escaped quotes inside strings, which do not nest
        const brackets = `[{\\"[\\\\"${"[".repeat(200)}`
        const large = JSON.stringify({
          subject: `Brackets ${"[".repeat(150)}`,
          body: `é${brackets}`.repeat(200),
          metadata: { text: `${"{".repeat(1000)}\\"` },
          ignored: Array.from({ length: 3800 }, (_, i) => ({ i, text: `[[${brackets}` }))
        })
        const bytes = new TextEncoder().encode(large).length
        expect(bytes).toBeGreaterThan(900_000)
        expect(bytes).toBeLessThan(1024 * 1024)
        const shallow = yield* call(server, "POST", "/v1/tickets", {
          key: f.key,
          rawBody: large,
          headers: { "content-type": "application/json" }
        })
        expect(shallow.status, shallow.text).toBe(202)
        expect(yield* bodyOf(shallow.body.ticket_id)).toBe(`é${brackets}`.repeat(200))
      }))

    it.effect("names tags, and the index of the tag, in the tag rules (issue 11, point 6)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const f = yield* fixture(server)
        const ticket = { subject: "s", body: "b" }
        const post = (body: unknown, message: string): Case => ({ method: "POST", path: "/v1/tickets", key: f.key, body, message })
        const cases = [
          post({ ...ticket, tags: ["ok", "t".repeat(51)] }, "tags[1] must be at most 50 characters"),
          post({ ...ticket, tags: ["ok", "fine", 7] }, "tags[2] must be a string"),
          post({ ...ticket, tags: ["   "] }, "tags[0] is required"),
          {
            method: "POST",
            path: `/v1/admin/projects/${f.projectId}/webhooks`,
            key: adminToken,
            body: { url: "https://hooks.example/", events: ["ticket_created", "ticket_exploded"] },
            message:
              "events[1] must be one of ticket_created, ticket_replied, ticket_resolved, ticket_status_changed, ticket_assigned, ticket_sla_breached, ticket_rated, ticket_merged, endpoint_disabled, contact_erased"
          }
        ]
        for (const answer of yield* answers(server, cases)) expect(answer.got, answer.call).toEqual(answer.expected)
      }))

    it.effect("answers a seeded fuzz of malformed requests with the envelope or a success, never a 5xx", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const f = yield* fixture(server)
        const r = seeded(11)
        const admin = `/v1/admin/projects/${f.projectId}`
        const id = () => r.pick(oddIds(f))
        const routes: ReadonlyArray<
          readonly [method: string, path: () => string, key: () => string | undefined, valid: Record<string, unknown> | undefined]
        > = [
          ["POST", () => "/v1/tickets", () => r.pick([f.key, f.widgetKey]), { subject: "s", body: "b", tags: ["a"], metadata: { a: 1 } }],
          ["GET", () => `/v1/tickets/${id()}?${r.pick(oddQueries)}`, () => r.pick([f.key, f.widgetKey]), undefined],
          ["POST", () => `/v1/tickets/${id()}/messages`, () => f.key, { body: "b", contact_email: "c@x.example" }],
          ["GET", () => `/v1/articles/search?${r.pick(oddQueries)}`, () => f.key, undefined],
          ["GET", () => `/v1/search?${r.pick(oddQueries)}`, () => f.key, undefined],
          ["POST", () => "/v1/admin/projects", () => adminToken, { name: "p" }],
          ["POST", () => `/v1/admin/projects/${id()}/api-keys`, () => adminToken, { name: "k", scope: "widget" }],
          ["DELETE", () => `${admin}/api-keys/${r.pick(["not-a-uuid", "%00", crypto.randomUUID()])}`, () => adminToken, undefined],
          ["POST", () => `${admin}/articles`, () => adminToken, { title: "t", body: "b", category: "c", published: true }],
          ["PATCH", () => `${admin}/articles/${id()}`, () => adminToken, { title: "t", slug: "a-b" }],
          ["POST", () => `${admin}/agents`, () => adminToken, { email: "a@x.example", name: "A" }],
          ["GET", () => `/v1/admin/projects/${id()}/tickets/${id()}`, () => adminToken, undefined],
          ["PATCH", () => `${admin}/tickets/${id()}`, () => adminToken, { status: "waiting", priority: "p2_high" }],
          ["POST", () => `${admin}/tickets/${id()}/messages`, () => adminToken, { body: "b", internal: true }],
          ["POST", () => `${admin}/webhooks`, () => adminToken, { url: "https://hooks.example/", events: ["ticket_created"] }],
          ["GET", () => `${admin}/webhooks/${id()}/deliveries`, () => adminToken, undefined],
          [
            "POST",
            () => `${admin}/automation-rules`,
            () => adminToken,
            { name: "n", event: "ticket_created", conditions: [{ field: "status", op: "eq", value: "open" }], actions: [{ type: "add_tag", value: "x" }] }
          ],
          ["GET", () => `${admin}/automation-rules/${id()}/runs`, () => adminToken, undefined],
          ["POST", () => r.pick(["/v1/tickets", "/v1/nowhere", "/v1/admin/projects"]), () => r.pick(["tf_bogus", "", "Bearer"]), { subject: "s", body: "b" }]
        ]
        const seen: Array<{ readonly call: string; readonly status: number; readonly body: any; readonly allowsIt: boolean }> = []
        for (let n = 0; n < 400; n++) {
          const [method, path, key, valid] = r.pick(routes)
          const target = path()
          // fetch sends no body with a GET; a DELETE may carry one that nobody reads
          const body = valid !== undefined
            ? mutate(r, valid)
            : method === "DELETE" && r.int(2) === 0
            ? randomJson(r, 2)
            : undefined
          const contentType = r.pick(["application/json", "application/json", "application/json", "application/json; charset=utf-8", "text/plain", undefined])
          const response: RawResponse = yield* call(server, method, target, {
            key: key(),
            ...(body === undefined ? {} : { rawBody: body }),
            headers: contentType === undefined ? {} : { "content-type": contentType }
          })
          seen.push({
            call: `${method} ${target} ${body?.slice(0, 120) ?? ""}`,
            status: response.status,
            body: response.body,
            allowsIt: (response.headers.get("allow") ?? "").split(", ").includes(method)
          })
        }
        const broken = seen.filter(({ allowsIt, body, status }) =>
          status >= 500 ||
          // an id the router cannot take (too long, or undecodable escapes) once gave "GET is not allowed; use GET"
          (status === 405 && allowsIt) ||
          (status >= 400 &&
            !(typeof body?.error?.code === "string" && typeof body.error.message === "string" &&
              Object.keys(body).length === 1 && Object.keys(body.error).length === 2))
        )
        expect(broken).toEqual([])
        // the fuzz reached past validation, and was refused in more than one way
        const statuses = new Set(seen.map(({ status }) => status))
        expect([...statuses].some((status) => status < 300)).toBe(true)
        expect(statuses.has(400) && statuses.has(404)).toBe(true)
      }))
  })
})
