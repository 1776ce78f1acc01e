/**
 * A list's cursor reads back only on the list it came from: the same project, the same filters
 * and order. Another project's cursor, one of another list, one edited by hand (a moment in the
 * year 9999) or one the service never made is a 400, and changes nothing.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createTicket } from "../support/Calls.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { describeNeeding, postgresMissing } from "../support/Requires.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const refused = (response: { status: number; body: any }) =>
  expect({ status: response.status, body: response.body }).toEqual({
    status: 400,
    body: { error: { code: "VALIDATION_ERROR", message: "cursor is not valid" } }
  })

const adminList = (server: TestServerShape, projectId: string, query: string) =>
  Effect.promise(() => server.request("GET", `/v1/admin/projects/${projectId}/tickets?${query}`, { key: adminToken }))

/** A project with three tickets from one contact, and the cursor after the first of its list. */
const projectWithTickets = (server: TestServerShape, name: string) =>
  Effect.gen(function*() {
    const project = yield* createProject(server, name)
    for (let i = 0; i < 3; i++) {
      yield* createTicket(server, project.key, { subject: `${name} ${i}`, body: "x", sender_email: "kim@example.com" })
    }
    const first = yield* adminList(server, project.projectId, "limit=1")
    expect(first.status).toBe(200)
    return { ...project, cursor: first.body.next_cursor as string }
  })

/** The cursor's payload edited by hand, its tag kept. */
const edited = (cursor: string, change: (payload: any) => unknown) => {
  const [payload, tag] = cursor.split(".")
  const json = JSON.parse(Buffer.from(payload!, "base64url").toString())
  return `${Buffer.from(JSON.stringify(change(json))).toString("base64url")}.${tag}`
}

describe.each(databaseKinds)("list cursors on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "100000" }), { excludeTestServices: true })((it) => {
    it.effect("read back on their own list, and on no other project's", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* projectWithTickets(server, "A")
        const b = yield* projectWithTickets(server, "B")
        const next = yield* adminList(server, a.projectId, `limit=1&cursor=${a.cursor}`)
        expect(next.status).toBe(200)
        expect(next.body.tickets.map((ticket: any) => ticket.subject)).toEqual(["A 1"])
        refused(yield* adminList(server, b.projectId, `limit=1&cursor=${a.cursor}`))
        // the same list with another filter or order is another list
        refused(yield* adminList(server, a.projectId, `limit=1&status=open&cursor=${a.cursor}`))
        refused(yield* adminList(server, a.projectId, `limit=1&q=x&cursor=${a.cursor}`))
        // a page size of its own is no other list
        expect((yield* adminList(server, a.projectId, `limit=2&cursor=${a.cursor}`)).body.tickets).toHaveLength(2)
      }))

    it.effect("are refused when edited by hand or made up", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* projectWithTickets(server, "Edited")
        const updated = yield* adminList(server, a.projectId, "limit=1&sort=updated")
        const cursor = updated.body.next_cursor as string
        expect((yield* adminList(server, a.projectId, `limit=1&sort=updated&cursor=${cursor}`)).status).toBe(200)
        refused(yield* adminList(server, a.projectId, `sort=updated&cursor=${edited(cursor, (c) => ({ ...c, at: "9999-12-31T23:59:59.999999Z" }))}`))
        refused(yield* adminList(server, a.projectId, `cursor=${edited(a.cursor, (c) => ({ ...c, number: c.number + 1 }))}`))
        // the form cursors had before they were bound to a list, and one with no tag
        const bare = Buffer.from(JSON.stringify({ order: "updated", at: "9999-12-31T23:59:59.999999Z", id: crypto.randomUUID() }))
          .toString("base64url")
        refused(yield* adminList(server, a.projectId, `sort=updated&cursor=${bare}`))
        refused(yield* adminList(server, a.projectId, `sort=updated&cursor=${bare}.`))
        refused(yield* adminList(server, a.projectId, `sort=updated&cursor=${bare}.${"A".repeat(22)}`))
      }))

    it.effect("of a contact's tickets read back whatever the address's case, and only for that contact", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* projectWithTickets(server, "Contact")
        const list = (query: string) =>
          Effect.promise(() => server.request("GET", `/v1/tickets?${query}`, { key: a.key }))
        const first = yield* list("contact_email=kim@example.com&limit=1")
        expect(first.status).toBe(200)
        const cursor = first.body.next_cursor as string
        expect((yield* list(`contact_email=KIM@example.com&limit=1&cursor=${cursor}`)).body.tickets).toHaveLength(1)
        refused(yield* list(`contact_email=lee@example.com&limit=1&cursor=${cursor}`))
        // nor does the operator's list take it, or it the operator's
        refused(yield* adminList(server, a.projectId, `limit=1&cursor=${cursor}`))
        refused(yield* list(`contact_email=kim@example.com&limit=1&cursor=${a.cursor}`))
      }))

    it.effect("of articles read back on their own project's list only", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* createProject(server, "Articles A")
        const b = yield* createProject(server, "Articles B")
        const admin = yield* server.api(adminToken)
        for (const project of [a, b]) {
          for (let i = 0; i < 2; i++) {
            yield* admin.admin.createArticle({
              params: { pid: project.projectId },
              payload: { title: `Article ${i}`, body: "text", category: "guides", published: true }
            }).pipe(Effect.orDie)
          }
        }
        const articles = (projectId: string, query: string) =>
          Effect.promise(() => server.request("GET", `/v1/admin/projects/${projectId}/articles?${query}`, { key: adminToken }))
        const first = yield* articles(a.projectId, "limit=1")
        const cursor = first.body.next_cursor as string
        expect((yield* articles(a.projectId, `limit=1&cursor=${cursor}`)).body.articles).toHaveLength(1)
        refused(yield* articles(b.projectId, `limit=1&cursor=${cursor}`))
        refused(yield* articles(a.projectId, `limit=1&published=true&cursor=${cursor}`))
      }))
  })
})

class Second extends Context.Service<Second, TestServerShape>()("test/Second") {}

// two instances on one database: only a server takes them (the embedded one locks its directory)
describeNeeding(postgresMissing, "list cursors across instances on PostgreSQL", () => {
  const shared = Layer.unwrap(Effect.map(freshDatabase("postgres"), (env) =>
    Layer.merge(
      testServer("postgres", {}, env),
      Layer.effect(Second, Effect.service(TestServer)).pipe(Layer.provide(testServer("postgres", {}, env)))
    )))
  layer(shared, { excludeTestServices: true })((it) => {
    it.effect("read back on any instance", () =>
      Effect.gen(function*() {
        const first = yield* TestServer
        const second = yield* Second
        const a = yield* projectWithTickets(first, "Shared")
        const next = yield* adminList(second, a.projectId, `limit=1&cursor=${a.cursor}`)
        expect(next.status).toBe(200)
        expect(next.body.tickets.map((ticket: any) => ticket.subject)).toEqual(["Shared 1"])
      }))
  })
})
