import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape } from "../support/TestServer.ts"
import { testServer } from "../support/TestServer.ts"

const article = (server: TestServerShape, projectId: string, body: Record<string, unknown>) =>
  server.request("POST", `/v1/admin/projects/${projectId}/articles`, { key: adminToken, body })

describe.each(databaseKinds)("search on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("manages articles: derived unique slugs, 409 on a taken one, update, publish, delete", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId } = yield* Effect.promise(() => createProject(server))
        const first = yield* Effect.promise(() =>
          article(server, projectId, { title: "Réset your Password!", body: "Steps", category: "Account" }))
        expect(first.status).toBe(201)
        expect(first.body.slug).toBe("reset-your-password")
        const second = yield* Effect.promise(() =>
          article(server, projectId, { title: "Reset your password", body: "Other", category: "Account" }))
        expect(second.body.slug).toBe("reset-your-password-2")
        const taken = yield* Effect.promise(() =>
          article(server, projectId, { title: "X", body: "Y", category: "Z", slug: "reset-your-password" }))
        expect(taken.status).toBe(409)
        expect(taken.body.error.code).toBe("CONFLICT")
        const missing = yield* Effect.promise(() => article(server, projectId, { body: "Y", category: "Z" }))
        expect(missing.body).toEqual({ error: { code: "VALIDATION_ERROR", message: "title is required" } })

        const updated = yield* Effect.promise(() =>
          server.request("PATCH", `/v1/admin/projects/${projectId}/articles/${first.body.id}`, {
            key: adminToken,
            body: { published: true, title: "Reset your password" }
          }))
        expect(updated.status).toBe(200)
        expect(updated.body).toMatchObject({ published: true, title: "Reset your password", slug: "reset-your-password" })
        const clash = yield* Effect.promise(() =>
          server.request("PATCH", `/v1/admin/projects/${projectId}/articles/${first.body.id}`, {
            key: adminToken,
            body: { slug: "reset-your-password-2" }
          }))
        expect(clash.status).toBe(409)
        const removed = yield* Effect.promise(() =>
          server.request("DELETE", `/v1/admin/projects/${projectId}/articles/${second.body.id}`, { key: adminToken }))
        expect(removed.status).toBe(204)
        const again = yield* Effect.promise(() =>
          server.request("DELETE", `/v1/admin/projects/${projectId}/articles/${second.body.id}`, { key: adminToken }))
        expect(again.status).toBe(404)
        const otherProject = yield* Effect.promise(() =>
          server.request("PATCH", `/v1/admin/projects/${crypto.randomUUID()}/articles/${first.body.id}`, {
            key: adminToken,
            body: { published: false }
          }))
        expect(otherProject.status).toBe(404)
      }))

    it.effect("finds published articles of the key's project only, ranked, highlighted, limited, with the full total", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* Effect.promise(() => createProject(server))
        const other = yield* Effect.promise(() => createProject(server))
        for (let i = 0; i < 12; i++) {
          yield* Effect.promise(() =>
            article(server, projectId, {
              title: i === 0 ? "Refund policy" : `Billing note ${i}`,
              body: i === 0
                ? "How refunds work. A refund is paid back within 5 days; ask for a refund <b>here</b>."
                : `Invoices and payments, volume ${i}. Refund questions go to billing.`,
              category: "Billing",
              published: true
            }))
        }
        yield* Effect.promise(() =>
          article(server, projectId, { title: "Refund draft", body: "refund refund refund", category: "Billing" }))
        yield* Effect.promise(() =>
          article(server, other.projectId, { title: "Refund elsewhere", body: "refund", category: "Billing", published: true }))

        const result = yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=refund", { key }))
        expect(result.status).toBe(200)
        expect(result.body.total).toBe(12)
        expect(result.body.articles).toHaveLength(10)
        const top = result.body.articles[0]
        expect(top.title).toBe("Refund policy")
        expect(Object.keys(top).sort()).toEqual(["category", "excerpt", "id", "relevance", "slug", "title"])
        expect(top.excerpt).toContain("<mark>refund</mark>")
        expect(top.excerpt).toContain("&lt;b&gt;")
        expect(top.excerpt).not.toContain("<b>")
        expect(top.category).toBe("Billing")
        const relevances = result.body.articles.map((a: any) => a.relevance)
        expect([...relevances].sort((a, b) => b - a)).toEqual(relevances)
        expect(relevances.every((r: number) => r > 0 && r < 1)).toBe(true)

        const limited = yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=refund&limit=3", { key }))
        expect([limited.body.articles.length, limited.body.total]).toEqual([3, 12])
        const phrase = yield* Effect.promise(() =>
          server.request("GET", `/v1/articles/search?q=${encodeURIComponent("\"refund policy\" -invoices")}`, { key }))
        expect(phrase.body.articles.map((a: any) => a.title)).toEqual(["Refund policy"])
        const none = yield* Effect.promise(() => server.request("GET", "/v1/articles/search?q=kangaroo", { key }))
        expect(none.body).toEqual({ articles: [], total: 0 })

        for (const [query, message] of [
          ["", "q is required"],
          ["?q=", "q is required"],
          ["?q=refund&limit=51", "limit must be at most 50"],
          ["?q=refund&limit=0", "limit must be at least 1"],
          ["?q=refund&limit=ten", "limit must be an integer"],
          [`?q=${"x".repeat(201)}`, "q must be at most 200 characters"]
        ] as const) {
          const bad = yield* Effect.promise(() => server.request("GET", `/v1/articles/search${query}`, { key }))
          expect([bad.status, bad.body]).toEqual([400, { error: { code: "VALIDATION_ERROR", message } }])
        }
      }))

    it.effect("searches tickets, articles and contacts of the project in one ranked list", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId, widgetKey } = yield* Effect.promise(() => createProject(server))
        const other = yield* Effect.promise(() => createProject(server))
        const ticket = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key,
            body: { subject: "Invoice missing", body: "My invoice for March is missing", sender_email: "maria.invoice@example.com", sender_name: "Maria Lopez" }
          }))
        yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key: other.key, body: { subject: "Invoice elsewhere", body: "invoice" } }))
        yield* Effect.promise(() =>
          article(server, projectId, { title: "Where is my invoice?", body: "Invoices are under Billing.", category: "Billing", published: true }))
        yield* Effect.promise(() =>
          article(server, projectId, { title: "Invoice draft", body: "invoice", category: "Billing" }))

        const all = yield* Effect.promise(() => server.request("GET", "/v1/search?q=invoice", { key }))
        expect(all.status).toBe(200)
        const types = all.body.results.map((r: any) => r.type).sort()
        expect(types).toEqual(["article", "contact", "ticket"])
        expect(all.body.total).toBe(3)
        const relevances = all.body.results.map((r: any) => r.relevance)
        expect([...relevances].sort((a, b) => b - a)).toEqual(relevances)
        const ticketHit = all.body.results.find((r: any) => r.type === "ticket")
        expect(ticketHit).toMatchObject({
          id: ticket.body.ticket_id,
          title: "Invoice missing",
          ticket_number: 1,
          status: "open"
        })
        expect(ticketHit.excerpt).toContain("<mark>")
        const contact = all.body.results.find((r: any) => r.type === "contact")
        expect(contact).toMatchObject({ email: "maria.invoice@example.com", name: "Maria Lopez", title: "Maria Lopez" })
        const articleHit = all.body.results.find((r: any) => r.type === "article")
        expect(articleHit.slug).toBe("where-is-my-invoice")

        const byName = yield* Effect.promise(() => server.request("GET", "/v1/search?q=maria&types=contacts", { key }))
        expect(byName.body.results.map((r: any) => r.type)).toEqual(["contact"])
        const onlyTickets = yield* Effect.promise(() =>
          server.request("GET", "/v1/search?q=invoice&types=tickets,articles&limit=1", { key }))
        expect(onlyTickets.body.results).toHaveLength(1)
        expect(onlyTickets.body.total).toBe(2)
        const unknownType = yield* Effect.promise(() => server.request("GET", "/v1/search?q=invoice&types=tickets,users", { key }))
        expect(unknownType.status).toBe(400)
        expect(unknownType.body.error.message).toBe("types must be a comma-separated list of tickets, articles, contacts")
        const widget = yield* Effect.promise(() => server.request("GET", "/v1/search?q=invoice", { key: widgetKey }))
        expect(widget.status).toBe(403)
        expect(widget.body.error.code).toBe("FORBIDDEN")
      }))
  })
})
