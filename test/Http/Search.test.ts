import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { CreateArticleInput } from "../../src/Domain/Article.ts"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const article = (server: TestServerShape, projectId: string, payload: CreateArticleInput) =>
  Effect.flatMap(server.api(adminToken), (admin) =>
    admin.admin.createArticle({ params: { pid: projectId }, payload, responseMode: "decoded-and-response" }))

describe.each(databaseKinds)("search on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("manages articles: derived unique slugs, 409 on a taken one, update, publish, delete", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const { projectId } = yield* createProject(server)
        const [first, firstResponse] = yield* article(server, projectId, {
          title: "Réset your Password!",
          body: "Steps",
          category: "Account"
        })
        expect(firstResponse.status).toBe(201)
        expect(first.slug).toBe("reset-your-password")
        const [second] = yield* article(server, projectId, {
          title: "Reset your password",
          body: "Other",
          category: "Account"
        })
        expect(second.slug).toBe("reset-your-password-2")
        const taken = yield* article(server, projectId, { title: "X", body: "Y", category: "Z", slug: "reset-your-password" })
          .pipe(Effect.flip)
        expect(taken._tag).toBe("Conflict")
        // a body without a title: only the raw wire can send it, and its envelope is the point
        const missing = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/articles`, {
            key: adminToken,
            body: { body: "Y", category: "Z" }
          }))
        expect(missing.body).toEqual({ error: { code: "VALIDATION_ERROR", message: "title is required" } })

        const [updated, updatedResponse] = yield* admin.admin.updateArticle({
          params: { pid: projectId, id: first.id },
          payload: { published: true, title: "Reset your password" },
          responseMode: "decoded-and-response"
        })
        expect(updatedResponse.status).toBe(200)
        expect(updated).toMatchObject({ published: true, title: "Reset your password", slug: "reset-your-password" })
        const clash = yield* admin.admin.updateArticle({
          params: { pid: projectId, id: first.id },
          payload: { slug: "reset-your-password-2" }
        }).pipe(Effect.flip)
        expect(clash._tag).toBe("Conflict")
        const [, removed] = yield* admin.admin.deleteArticle({
          params: { pid: projectId, id: second.id },
          responseMode: "decoded-and-response"
        })
        expect(removed.status).toBe(204)
        const again = yield* admin.admin.deleteArticle({ params: { pid: projectId, id: second.id } }).pipe(Effect.flip)
        expect(again._tag).toBe("NotFound")
        const otherProject = yield* admin.admin.updateArticle({
          params: { pid: crypto.randomUUID(), id: first.id },
          payload: { published: false }
        }).pipe(Effect.flip)
        expect(otherProject._tag).toBe("NotFound")
      }))

    it.effect("finds published articles of the key's project only, ranked, highlighted, limited, with the full total", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const api = yield* server.api(key)
        const other = yield* createProject(server)
        for (let i = 0; i < 12; i++) {
          yield* article(server, projectId, {
            title: i === 0 ? "Refund policy" : `Billing note ${i}`,
            body: i === 0
              ? "How refunds work: a refund of < 10 € & more is paid back within 5 days; ask for a refund <b>here</b>."
              : `Invoices and payments, volume ${i}. Refund questions go to billing.`,
            category: "Billing",
            published: true
          })
        }
        yield* article(server, projectId, { title: "Refund draft", body: "refund refund refund", category: "Billing" })
        yield* article(server, other.projectId, {
          title: "Refund elsewhere",
          body: "refund",
          category: "Billing",
          published: true
        })

        const [result, response] = yield* api.articles.search({
          query: { q: "refund" },
          responseMode: "decoded-and-response"
        })
        expect(response.status).toBe(200)
        expect(result.total).toBe(12)
        expect(result.articles).toHaveLength(10)
        const top = result.articles[0]!
        expect(top.title).toBe("Refund policy")
        // the keys on the wire: decoding would drop any the contract does not name
        const wire: any = yield* response.json
        expect(Object.keys(wire.articles[0]).sort()).toEqual(["category", "excerpt", "id", "relevance", "slug", "title"])
        expect(top.excerpt).toContain("<mark>refund</mark>")
        // a tag is markup to strip, a lone < is text to escape
        expect(top.excerpt).toContain("<mark>refund</mark> of &lt; 10 € &amp; more")
        expect(top.excerpt).toContain("<mark>refund</mark> here")
        expect(top.excerpt).not.toContain("<b>")
        expect(top.category).toBe("Billing")
        const relevances = result.articles.map((a) => a.relevance)
        expect([...relevances].sort((a, b) => b - a)).toEqual(relevances)
        expect(relevances.every((r) => r > 0 && r < 1)).toBe(true)

        const limited = yield* api.articles.search({ query: { q: "refund", limit: 3 } })
        expect([limited.articles.length, limited.total]).toEqual([3, 12])
        const phrase = yield* api.articles.search({ query: { q: "\"refund policy\" -invoices" } })
        expect(phrase.articles.map((a) => a.title)).toEqual(["Refund policy"])
        const none = yield* api.articles.search({ query: { q: "kangaroo" } })
        expect(none).toEqual({ articles: [], total: 0 })

        // queries the contract refuses: only the raw wire can send them
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

    it.effect("article excerpts are plain text: Markdown syntax stripped, still escaped, matches marked", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const api = yield* server.api(key)
        const body = [
          "## If you cannot sign in",
          "",
          "Click **Forgot password?** on the [sign-in page](https://app.example.com/login) (2 < 3 & so on), then",
          "follow the _link_ in the email. ![The sign-in form](https://cdn.example.com/form.png)",
          "",
          "- Check that `Caps Lock` is off",
          "1. Wait __fifteen__ minutes if the account is locked",
          "",
          "```",
          "password reset",
          "```",
          "",
          "> A <kbd>password</kbd> manager helps."
        ].join("\n")
        const [created] = yield* article(server, projectId, {
          title: "Cannot sign in",
          body,
          category: "Account",
          published: true
        })

        const { articles } = yield* api.articles.search({ query: { q: "password" } })
        const { results } = yield* api.search.search({ query: { q: "password", types: ["articles"] } })
        const excerpts = [articles[0]?.excerpt, results[0]?.excerpt]
        expect(results[0]).toMatchObject({ type: "article", id: created.id })
        for (const excerpt of excerpts) {
          expect(excerpt).toBeDefined()
          for (const syntax of ["##", "**", "__", "[", "](", "`", "![", "- Check", "1. Wait", "> A", "<kbd>", "&lt;kbd&gt;"]) {
            expect(excerpt, `${syntax} in ${excerpt}`).not.toContain(syntax)
          }
          expect(excerpt).toContain("<mark>password</mark>")
          // the words stay, and the text around them is still escaped
          expect(excerpt).toContain(
            "Click Forgot <mark>password</mark>? on the sign-in page (2 &lt; 3 &amp; so on), then follow the link in the email. The sign-in form"
          )
          expect(excerpt).toContain("Caps Lock is off")
          expect(excerpt).toContain("Wait fifteen minutes")
        }

        // an edit is searched and excerpted from the new text at once
        const admin = yield* server.api(adminToken)
        yield* admin.admin.updateArticle({
          params: { pid: projectId, id: created.id },
          payload: { body: "### Locked out\n\nUse **Reset password** from the [help menu](/help)." }
        })
        const edited = yield* api.articles.search({ query: { q: "password" } })
        expect(edited.articles[0]!.excerpt).toBe("Locked out. Use Reset <mark>password</mark> from the help menu")
      }))

    it.effect("searches tickets, articles and contacts of the project in one ranked list", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId, widgetKey } = yield* createProject(server)
        const api = yield* server.api(key)
        const other = yield* createProject(server)
        const ticket = yield* api.tickets.create({
          payload: {
            subject: "Invoice missing",
            body: "My invoice for March is missing",
            sender_email: "maria.invoice@example.com",
            sender_name: "Maria Lopez"
          },
          headers: {}
        })
        yield* Effect.flatMap(server.api(other.key), (theirs) =>
          theirs.tickets.create({ payload: { subject: "Invoice elsewhere", body: "invoice" }, headers: {} }))
        yield* article(server, projectId, {
          title: "Where is my invoice?",
          body: "Invoices are under Billing.",
          category: "Billing",
          published: true
        })
        yield* article(server, projectId, { title: "Invoice draft", body: "invoice", category: "Billing" })

        const [all, response] = yield* api.search.search({ query: { q: "invoice" }, responseMode: "decoded-and-response" })
        expect(response.status).toBe(200)
        const types = all.results.map((r) => r.type).sort()
        expect(types).toEqual(["article", "contact", "ticket"])
        expect(all.total).toBe(3)
        const relevances = all.results.map((r) => r.relevance)
        expect([...relevances].sort((a, b) => b - a)).toEqual(relevances)
        const ticketHit = all.results.find((r) => r.type === "ticket")!
        expect(ticketHit).toMatchObject({
          id: ticket.ticket_id,
          title: "Invoice missing",
          ticket_number: 1,
          status: "open"
        })
        expect(ticketHit.excerpt).toBe("My <mark>invoice</mark> for March is missing")
        const contact = all.results.find((r) => r.type === "contact")
        expect(contact).toMatchObject({ email: "maria.invoice@example.com", name: "Maria Lopez", title: "Maria Lopez" })
        const articleHit = all.results.find((r) => r.type === "article")
        expect(articleHit).toMatchObject({ slug: "where-is-my-invoice", excerpt: "<mark>Invoices</mark> are under Billing" })

        const byName = yield* api.search.search({ query: { q: "maria", types: ["contacts"] } })
        expect(byName.results.map((r) => r.type)).toEqual(["contact"])
        const onlyTickets = yield* api.search.search({ query: { q: "invoice", types: ["tickets", "articles"], limit: 1 } })
        expect(onlyTickets.results).toHaveLength(1)
        expect(onlyTickets.total).toBe(2)
        // a type the contract refuses: only the raw wire can send it
        const unknownType = yield* Effect.promise(() => server.request("GET", "/v1/search?q=invoice&types=tickets,users", { key }))
        expect(unknownType.status).toBe(400)
        expect(unknownType.body.error.message).toBe("types must be a comma-separated list of tickets, articles, contacts")
        const widget = yield* Effect.flatMap(server.api(widgetKey), (w) => w.search.search({ query: { q: "invoice" } })).pipe(
          Effect.flip
        )
        expect(widget._tag).toBe("Forbidden")
      }))
  })
})
