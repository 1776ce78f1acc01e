import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { type TicketListQuery, TicketOrders } from "../../src/Domain/Ticket.ts"
import { createAgent, createTicket, updateTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const admin = (server: TestServerShape) => server.api(adminToken)

/** The numbers of the tickets the operator's list shows for `query`, in its order, all pages read. */
const numbersOf = (server: TestServerShape, projectId: string, query: TicketListQuery) =>
  Effect.gen(function*() {
    const api = yield* admin(server)
    const numbers: Array<number> = []
    let cursor: string | undefined
    do {
      const page = yield* api.admin.listTickets({
        params: { pid: projectId },
        query: { ...query, ...(cursor === undefined ? {} : { cursor }) }
      })
      numbers.push(...page.tickets.map((ticket) => ticket.ticket_number))
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
    return numbers
  })

/** A 400 in the envelope whose message says `message`. */
const refused = (response: { status: number; body: any }, message: string) => {
  expect(response.status).toBe(400)
  expect(response.body.error).toEqual({ code: "VALIDATION_ERROR", message })
}

const notFound = (response: { status: number; body: any }) => {
  expect(response.status).toBe(404)
  expect(response.body.error.code).toBe("NOT_FOUND")
}

describe.each(databaseKinds)("lists on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "100000" }), { excludeTestServices: true })((it) => {
    it.effect("filters the operator's ticket list by each field, alone and together, newest first", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        yield* createAgent(server, projectId, "ana@support.example", "Ana")
        yield* createAgent(server, projectId, "bo@support.example", "Bo")
        const specs = [
          { subject: "Invoice charged twice", priority: "p1_critical", source: "email", sender_email: "Kim@Example.com", tags: ["VIP", "billing"] },
          { subject: "Login page broken", priority: "p2_high", source: "widget", sender_email: "lee@example.com", tags: ["vip"] },
          { subject: "Export to CSV", source: "api", sender_email: "kim@example.com" },
          { subject: "Refund request for invoice", priority: "p2_high", source: "form", tags: ["billing"] },
          { subject: "Dark mode please", priority: "p4_low", source: "widget", sender_email: "lee@example.com" }
        ] as const
        const ids: Array<string> = []
        for (const spec of specs) {
          ids.push((yield* createTicket(server, key, { body: `About: ${spec.subject}`, ...spec })).ticket_id)
        }
        yield* updateTicket(server, projectId, ids[0]!, { status: "in_progress", category: "billing", assignee_email: "ana@support.example" })
        yield* updateTicket(server, projectId, ids[1]!, { category: "bug", assignee_email: "bo@support.example" })
        yield* updateTicket(server, projectId, ids[3]!, { status: "in_progress", category: "billing", assignee_email: "ana@support.example" })

        const list = (query: TicketListQuery) => numbersOf(server, projectId, query)
        expect(yield* list({})).toEqual([5, 4, 3, 2, 1])
        expect(yield* list({ status: "in_progress" })).toEqual([4, 1])
        expect(yield* list({ status: "open" })).toEqual([5, 3, 2])
        expect(yield* list({ priority: "p2_high" })).toEqual([4, 2])
        expect(yield* list({ category: "billing" })).toEqual([4, 1])
        expect(yield* list({ source: "widget" })).toEqual([5, 2])
        expect(yield* list({ assignee: "ana@support.example" })).toEqual([4, 1])
        expect(yield* list({ assignee: "none" })).toEqual([5, 3])
        expect(yield* list({ assignee: "nobody@support.example" })).toEqual([])
        expect(yield* list({ tag: "VIP" })).toEqual([2, 1])
        expect(yield* list({ tag: "billing" })).toEqual([4, 1])
        expect(yield* list({ contact_email: "KIM@example.com" })).toEqual([3, 1])
        expect(yield* list({ q: "invoice" })).toEqual([4, 1])
        // filters combine with AND
        expect(yield* list({ tag: "billing", assignee: "ana@support.example", q: "refund" })).toEqual([4])
        expect(yield* list({ source: "widget", priority: "p4_low" })).toEqual([5])
        expect(yield* list({ status: "closed" })).toEqual([])

        // each item as the admin read names its fields
        const api = yield* admin(server)
        const page = yield* api.admin.listTickets({ params: { pid: projectId }, query: { tag: "vip", limit: 1 } })
        expect(page.tickets).toEqual([expect.objectContaining({
          ticket_id: ids[1],
          ticket_number: 2,
          subject: "Login page broken",
          status: "open",
          priority: "p2_high",
          category: "bug",
          source: "widget",
          sender_email: "lee@example.com",
          sender_name: null,
          assignee: expect.objectContaining({ email: "bo@support.example", name: "Bo" }),
          tags: ["VIP"] // a project's tag keeps its first spelling
        })])
        expect(page.next_cursor).toEqual(expect.any(String))
        const wire = yield* Effect.promise(() =>
          server.request("GET", `/v1/admin/projects/${projectId}/tickets?limit=1`, { key: adminToken }))
        expect(Object.keys(wire.body.tickets[0]).sort()).toEqual([
          "assignee", "category", "created_at", "custom_fields", "priority", "sender_email", "sender_name", "sender_verified", "sla_breached",
          "sla_due_at", "source", "status", "subject", "tags", "ticket_id", "ticket_number", "updated_at"
        ])
      }))

    it.effect("orders by the last update when asked, and pages that order too", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const ids: Array<string> = []
        for (let i = 1; i <= 6; i++) ids.push((yield* createTicket(server, key, { subject: `T${i}`, body: "x" })).ticket_id)
        yield* updateTicket(server, projectId, ids[1]!, { priority: "p1_critical" })
        yield* updateTicket(server, projectId, ids[4]!, { status: "waiting" })
        yield* updateTicket(server, projectId, ids[0]!, { status: "resolved" })
        expect(yield* numbersOf(server, projectId, { sort: "updated", limit: 2 })).toEqual([1, 5, 2, 6, 4, 3])
        expect(yield* numbersOf(server, projectId, { sort: "created", limit: 4 })).toEqual([6, 5, 4, 3, 2, 1])
      }))

    for (const sort of ["created", "updated"] as const) {
      it.effect(`pages (${sort}) to the end without skipping or repeating a ticket while others are created`, () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const { key, projectId } = yield* createProject(server)
          const original = new Set<string>()
          // concurrent creates may be written together in one statement and share a created_at
          const first = yield* Effect.all(
            Array.from({ length: 40 }, (_, i) => createTicket(server, key, { subject: `Original ${i}`, body: "x" })),
            { concurrency: "unbounded" }
          )
          for (const created of first) original.add(created.ticket_id)

          // more tickets arrive all the while the pages are read
          const arriving = yield* Effect.forkChild(Effect.all(
            Array.from({ length: 40 }, (_, i) => createTicket(server, key, { subject: `Arriving ${i}`, body: "x" })),
            { concurrency: 4 }
          ))
          const api = yield* admin(server)
          const seen: Array<string> = []
          let cursor: string | undefined
          let pages = 0
          do {
            const page = yield* api.admin.listTickets({
              params: { pid: projectId },
              query: { sort, limit: 6, ...(cursor === undefined ? {} : { cursor }) }
            })
            seen.push(...page.tickets.map((ticket) => ticket.ticket_id))
            cursor = page.next_cursor ?? undefined
            pages++
            // and some between two pages for certain
            yield* createTicket(server, key, { subject: `Between ${pages}`, body: "x" })
          } while (cursor !== undefined)
          yield* Fiber.join(arriving)

          expect(new Set(seen).size).toBe(seen.length)
          expect([...original].filter((id) => !seen.includes(id))).toEqual([])
          expect(pages).toBeGreaterThanOrEqual(7)
        }))
    }

    it.effect("refuses bad list parameters with a 400 naming the field and the rule", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        for (let i = 0; i < 3; i++) yield* createTicket(server, key, { subject: `T${i}`, body: "x" })
        const get = (query: string) =>
          Effect.promise(() => server.request("GET", `/v1/admin/projects/${projectId}/tickets?${query}`, { key: adminToken }))
        refused(yield* get("status=pending"), "status must be one of open, in_progress, waiting, resolved, closed")
        refused(yield* get("priority=urgent"), "priority must be one of p1_critical, p2_high, p3_medium, p4_low")
        refused(yield* get("category=misc"), "category must be one of billing, bug, account, feature_request, question, other")
        refused(yield* get("source=fax"), "source must be one of api, widget, email, form")
        refused(yield* get("sort=oldest"), `sort must be one of ${TicketOrders.join(", ")}, or custom_field:<key>`)
        refused(yield* get("limit=0"), "limit must be at least 1")
        refused(yield* get("limit=101"), "limit must be at most 100")
        refused(yield* get("limit=ten"), "limit must be an integer")
        refused(yield* get(`q=${"x".repeat(201)}`), "q must be at most 200 characters")
        refused(yield* get("q=%20"), "q is required")
        refused(yield* get("assignee=ana"), "assignee must be an email address or none")
        refused(yield* get("contact_email=kim"), "contact_email must be a valid email address")
        refused(yield* get("cursor=not-a-cursor"), "cursor is not valid")
        // a well-formed cursor made up by hand: not a real moment, or not a uuid
        const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
        refused(yield* get(`sort=updated&cursor=${forged({ order: "updated", at: "2026-02-30T10:00:00.000000Z", id: crypto.randomUUID() })}`), "cursor is not valid")
        refused(yield* get(`sort=updated&cursor=${forged({ order: "updated", at: "2026-02-03T10:00:00.000000Z", id: "1; DROP" })}`), "cursor is not valid")
        refused(yield* get(`cursor=${forged({ order: "created", number: "1 OR 1=1" })}`), "cursor is not valid")
        refused(yield* get(`cursor=${forged({ order: "created", number: 2 ** 31 })}`), "cursor is not valid")
        // a cursor of one order is refused by the other
        const first = yield* get("limit=1")
        expect(first.status).toBe(200)
        refused(yield* get(`sort=updated&cursor=${first.body.next_cursor}`), "cursor is not valid")
        const next = yield* get(`limit=1&cursor=${first.body.next_cursor}`)
        expect(next.body.tickets.map((t: any) => t.ticket_number)).toEqual([2])
        // nor does an article list take a ticket cursor
        refused(
          yield* Effect.promise(() =>
            server.request("GET", `/v1/admin/projects/${projectId}/articles?cursor=${first.body.next_cursor}`, { key: adminToken })),
          "cursor is not valid"
        )
        refused(
          yield* Effect.promise(() =>
            server.request("GET", `/v1/admin/projects/${projectId}/articles?published=yes`, { key: adminToken })),
          "published must be one of true, false"
        )
      }))

    it.effect("keeps every list to its project: another project's or an unknown id is 404", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* createProject(server, "A")
        const b = yield* createProject(server, "B")
        yield* createTicket(server, a.key, { subject: "A's ticket", body: "x", sender_email: "kim@example.com" })
        yield* createTicket(server, b.key, { subject: "B's ticket", body: "x", sender_email: "kim@example.com" })
        const api = yield* admin(server)
        const article = yield* api.admin.createArticle({
          params: { pid: a.projectId },
          payload: { title: "A's article", body: "x", category: "faq" }
        })
        yield* createAgent(server, a.projectId, "ana@support.example", "Ana")

        const listB = yield* api.admin.listTickets({ params: { pid: b.projectId }, query: {} })
        expect(listB.tickets.map((t) => t.subject)).toEqual(["B's ticket"])
        expect((yield* api.admin.listArticles({ params: { pid: b.projectId }, query: {} })).articles).toEqual([])
        expect((yield* api.admin.listAgents({ params: { pid: b.projectId } })).agents).toEqual([])
        expect((yield* api.admin.listKeys({ params: { pid: b.projectId } })).api_keys.map((k) => k.key_id)).not.toContain(
          a.keyId
        )
        notFound(yield* Effect.promise(() =>
          server.request("GET", `/v1/admin/projects/${b.projectId}/articles/${article.id}`, { key: adminToken })))
        for (const pid of [crypto.randomUUID(), "not-a-uuid"]) {
          for (const path of ["tickets", "articles", "agents", "api-keys", `articles/${article.id}`]) {
            notFound(yield* Effect.promise(() => server.request("GET", `/v1/admin/projects/${pid}/${path}`, { key: adminToken })))
          }
        }
        notFound(yield* Effect.promise(() =>
          server.request("GET", `/v1/admin/projects/${a.projectId}/articles/${crypto.randomUUID()}`, { key: adminToken })))
        // the operator's lists are not a project key's
        const byKey = yield* Effect.promise(() => server.request("GET", `/v1/admin/projects/${a.projectId}/tickets`, { key: a.key }))
        expect(byKey.status).toBe(401)
      }))

    it.effect("lists keys without their secrets, agents by email, and articles by state and text, a page at a time", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, keyId, projectId } = yield* createProject(server)
        const api = yield* admin(server)
        const widget = (yield* api.admin.listKeys({ params: { pid: projectId } })).api_keys[0]!
        yield* api.admin.revokeKey({ params: { pid: projectId, key_id: widget.key_id } })
        const keys = yield* Effect.promise(() => server.request("GET", `/v1/admin/projects/${projectId}/api-keys`, { key: adminToken }))
        expect(keys.status).toBe(200)
        expect(keys.body.api_keys).toEqual([
          {
            key_id: widget.key_id,
            name: "widget",
            scope: "widget",
            rate_limit_per_minute: null,
            created_at: expect.any(String),
            revoked_at: expect.any(String)
          },
          { key_id: keyId, name: "default", scope: "full", rate_limit_per_minute: null, created_at: expect.any(String), revoked_at: null }
        ])
        expect(keys.text).not.toContain(key)
        expect(keys.text).not.toContain(key.slice(0, 7))

        yield* createAgent(server, projectId, "zoe@support.example", "Zoe")
        yield* createAgent(server, projectId, "ana@support.example", "Ana")
        const agents = (yield* api.admin.listAgents({ params: { pid: projectId } })).agents
        expect(agents.map((agent) => [agent.email, agent.name])).toEqual([["ana@support.example", "Ana"], [
          "zoe@support.example",
          "Zoe"
        ]])

        const titles = ["Reset your password", "Invoices and receipts", "Password rules", "Cancel a plan", "Two-factor login"]
        const created: Array<string> = []
        for (const [i, title] of titles.entries()) {
          created.push((yield* api.admin.createArticle({
            params: { pid: projectId },
            payload: { title, body: `All about ${title.toLowerCase()}.`, category: "help", published: i % 2 === 0 }
          })).id)
        }
        const listArticles = (query: { published?: "true" | "false"; q?: string }) =>
          Effect.gen(function*() {
            const seen: Array<string> = []
            let cursor: string | undefined
            do {
              const page = yield* api.admin.listArticles({
                params: { pid: projectId },
                query: { ...query, limit: 2, ...(cursor === undefined ? {} : { cursor }) }
              })
              seen.push(...page.articles.map((article) => article.title))
              cursor = page.next_cursor ?? undefined
            } while (cursor !== undefined)
            return seen
          })
        expect(yield* listArticles({})).toEqual([...titles].reverse())
        expect(yield* listArticles({ published: "true" })).toEqual(["Two-factor login", "Password rules", "Reset your password"])
        expect(yield* listArticles({ published: "false" })).toEqual(["Cancel a plan", "Invoices and receipts"])
        expect(yield* listArticles({ q: "password" })).toEqual(["Password rules", "Reset your password"])
        expect(yield* listArticles({ q: "password", published: "false" })).toEqual([])
        const page = yield* Effect.promise(() =>
          server.request("GET", `/v1/admin/projects/${projectId}/articles?limit=1`, { key: adminToken }))
        expect(Object.keys(page.body.articles[0]).sort()).toEqual([
          "category", "created_at", "id", "published", "slug", "title", "updated_at"
        ])

        const one = yield* api.admin.getArticle({ params: { pid: projectId, id: created[1]! } })
        expect(one).toMatchObject({ id: created[1], title: "Invoices and receipts", body: "All about invoices and receipts.", published: false })
      }))

    it.effect("declares the lists in the OpenAPI document", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const document = yield* Effect.promise(() => server.request("GET", "/openapi.json"))
        const paths = document.body.paths
        for (const path of ["tickets", "api-keys", "articles", "agents"]) {
          expect(paths[`/v1/admin/projects/{pid}/${path}`]?.get, path).toBeDefined()
        }
        expect(paths["/v1/admin/projects/{pid}/articles/{id}"]?.get).toBeDefined()
        expect(paths["/v1/tickets"]?.get?.parameters?.map((p: any) => p.name).sort()).toEqual([
          "contact_email",
          "cursor",
          "limit",
          "x-visitor-token"
        ])
      }))

    it.effect("lists a contact's tickets for a full key: newest first, paged, case-insensitive, only the key's project", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* createProject(server, "A")
        const b = yield* createProject(server, "B")
        const mine: Array<string> = []
        for (let i = 0; i < 5; i++) {
          mine.push((yield* createTicket(server, a.key, { subject: `Mine ${i}`, body: "x", sender_email: "kim@example.com" })).ticket_id)
          yield* createTicket(server, a.key, { subject: `Other ${i}`, body: "x", sender_email: "lee@example.com" })
        }
        yield* createTicket(server, b.key, { subject: "Same address, other project", body: "x", sender_email: "kim@example.com" })
        const api = yield* server.api(a.key)
        const seen: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* api.tickets.list({
            query: { contact_email: "Kim@Example.COM", limit: 2, ...(cursor === undefined ? {} : { cursor }) },
            headers: {}
          })
          seen.push(...page.tickets.map((ticket) => ticket.ticket_id))
          cursor = page.next_cursor ?? undefined
        } while (cursor !== undefined)
        expect(seen).toEqual([...mine].reverse())

        const wire = yield* Effect.promise(() => server.request("GET", "/v1/tickets?contact_email=kim@example.com", { key: a.key }))
        expect(wire.status).toBe(200)
        expect(wire.body.next_cursor).toBeNull()
        expect(wire.body.tickets).toHaveLength(5)
        expect(Object.keys(wire.body.tickets[0]).sort()).toEqual([
          "category", "created_at", "custom_fields", "priority", "sender_verified", "status", "subject", "ticket_id", "ticket_number",
          "updated_at"
        ])
        const none = yield* Effect.promise(() => server.request("GET", "/v1/tickets?contact_email=nobody@example.com", { key: a.key }))
        expect(none.body).toEqual({ tickets: [], next_cursor: null })

        refused(yield* Effect.promise(() => server.request("GET", "/v1/tickets", { key: a.key })), "contact_email is required")
        refused(
          yield* Effect.promise(() => server.request("GET", "/v1/tickets?contact_email=kim@example.com&limit=51", { key: a.key })),
          "limit must be at most 50"
        )
        refused(
          yield* Effect.promise(() => server.request("GET", "/v1/tickets?contact_email=kim@example.com&cursor=abc", { key: a.key })),
          "cursor is not valid"
        )
        const widget = yield* Effect.promise(() =>
          server.request("GET", "/v1/tickets?contact_email=kim@example.com", { key: a.widgetKey }))
        expect(widget.status).toBe(403)
        expect(widget.body.error.code).toBe("FORBIDDEN")
        // the read of one ticket is as it was
        const one = yield* api.tickets.get({ params: { id: mine[0]! }, query: {}, headers: {} })
        expect(one.subject).toBe("Mine 0")
      }))
  })
})
