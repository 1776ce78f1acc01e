import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { CreateArticleInput } from "../../src/Domain/Article.ts"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const article = (server: TestServerShape, projectId: string, payload: CreateArticleInput) =>
  Effect.flatMap(server.api(adminToken), (admin) => admin.admin.createArticle({ params: { pid: projectId }, payload }))
    .pipe(Effect.orDie)

describe.each(databaseKinds)("reading one article on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("a full and a widget key read a published article of their project by id and by slug", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, widgetKey, projectId } = yield* createProject(server)
        const body = "# Reset\n\nOpen **Settings**, then [the form](https://example.com/reset)."
        const created = yield* article(server, projectId, {
          title: "Reset your password",
          body,
          category: "Account",
          published: true
        })
        for (const token of [key, widgetKey]) {
          const api = yield* server.api(token)
          for (const id of [created.id, created.slug]) {
            const [read, response] = yield* api.articles.get({ params: { id }, responseMode: "decoded-and-response" })
            expect(response.status).toBe(200)
            expect(read).toMatchObject({
              id: created.id,
              title: "Reset your password",
              slug: "reset-your-password",
              body,
              category: "Account"
            })
            expect(read.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
          }
        }
        // the fixed path beside the parameter still routes to search
        const widget = yield* server.api(widgetKey)
        const [found, searched] = yield* widget.articles.search({ query: { q: "password" }, responseMode: "decoded-and-response" })
        expect(searched.status).toBe(200)
        expect(found.articles.map((hit) => hit.id)).toEqual([created.id])
      }))

    it.effect("unpublished, another project's, unknown and malformed ids are one 404", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { widgetKey, projectId } = yield* createProject(server)
        const other = yield* createProject(server, "Other project")
        const draft = yield* article(server, projectId, { title: "Draft", body: "Not yet", category: "Misc" })
        const foreign = yield* article(server, other.projectId, {
          title: "Theirs",
          body: "Another project's",
          category: "Misc",
          published: true
        })
        const api = yield* server.api(widgetKey)
        const ids = [draft.id, draft.slug, foreign.id, foreign.slug, crypto.randomUUID(), "no-such-article", "not a uuid!"]
        for (const id of ids) {
          const refused = yield* api.articles.get({ params: { id } }).pipe(Effect.flip)
          expect(refused._tag, id).toBe("NotFound")
          const raw = yield* Effect.promise(() =>
            server.request("GET", `/v1/articles/${encodeURIComponent(id)}`, { key: widgetKey }))
          expect(raw.status, id).toBe(404)
          expect(raw.body, id).toEqual({ error: { code: "NOT_FOUND", message: "article not found" } })
        }
      }))

    it.effect("the read is declared in /openapi.json", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const spec = yield* Effect.promise(() => server.request("GET", "/openapi.json"))
        const path = spec.body.paths["/v1/articles/{id}"]
        expect(path?.get, "GET /v1/articles/{id}").toBeDefined()
        expect(Object.keys(path.get.responses)).toEqual(expect.arrayContaining(["200", "404"]))
        expect(spec.body.paths["/v1/articles/search"]?.get).toBeDefined()
      }))
  })
})
