import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { EventsRepo } from "../../src/Events/Repo.ts"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { describeNeeding, postgresMissing } from "../support/Requires.ts"
import { openStream } from "../support/Sse.ts"
import { adminToken, createProject, TestServer, testServer, type TestServerShape } from "../support/TestServer.ts"

/** Files a ticket as the widget does, and answers its id and the access token the browser keeps. */
const fileFromWidget = (server: TestServerShape, widgetKey: string, subject: string) =>
  Effect.promise(() =>
    server.request("POST", "/v1/tickets", {
      key: widgetKey,
      body: { subject, body: "It broke", sender_email: "visitor@example.com", source: "widget" }
    })
  ).pipe(Effect.map((response) => {
    expect(response.status).toBe(202)
    return response.body as { ticket_id: string; access_token: string }
  }))

const asAdmin = (server: TestServerShape, method: string, path: string, body?: unknown) =>
  Effect.promise(() => server.request(method, path, { key: adminToken, body })).pipe(Effect.map((response) => {
    expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300)
    return response.body
  }))

const dataOf = (event: { readonly data: string }) => JSON.parse(event.data).data

describe.each(databaseKinds)("a ticket's stream on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("gives the widget its ticket's public events only, and resumes after an id with exactly what followed", () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key, widgetKey } = yield* createProject(server)
        yield* asAdmin(server, "POST", `/v1/admin/projects/${projectId}/agents`, { email: "ana@example.com", name: "Ana Agent" })
        const ticket = yield* fileFromWidget(server, widgetKey, "Printer on fire")
        const other = yield* fileFromWidget(server, widgetKey, "Someone else's")
        const path = `/v1/tickets/${ticket.ticket_id}/events`
        const proof = { authorization: `Bearer ${widgetKey}`, "x-ticket-token": ticket.access_token }
        const widget = yield* openStream(server.baseUrl, path, proof)
        expect(widget.response.status).toBe(200)
        expect(widget.response.headers.get("content-type")).toMatch(/^text\/event-stream/)
        const desk = yield* openStream(server.baseUrl, path, { authorization: `Bearer ${key}` })

        const admin = `/v1/admin/projects/${projectId}/tickets/${ticket.ticket_id}`
        yield* asAdmin(server, "POST", `${admin}/messages`, { body: "On our way", author_email: "ana@example.com" })
        yield* asAdmin(server, "POST", `${admin}/messages`, { body: "internal: call the fire brigade", internal: true })
        yield* asAdmin(server, "POST", `/v1/admin/projects/${projectId}/tickets/${other.ticket_id}/messages`, { body: "not yours" })
        yield* asAdmin(server, "PATCH", admin, { assignee_email: "ana@example.com" })
        yield* asAdmin(server, "PATCH", admin, { status: "resolved" })
        const answered = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${ticket.ticket_id}/messages`, {
            key: widgetKey,
            headers: { "x-ticket-token": ticket.access_token },
            body: { body: "Thanks, it is out" }
          }))
        expect(answered.status).toBe(201)

        const seen = yield* Effect.promise(() => widget.next(5))
        expect(seen.map((event) => [event.event, dataOf(event).body ?? dataOf(event).status])).toEqual([
          ["ticket_replied", "On our way"],
          ["ticket_status_changed", "resolved"],
          ["ticket_resolved", "resolved"],
          ["ticket_replied", "Thanks, it is out"],
          // the visitor's answer reopens the resolved ticket
          ["ticket_status_changed", "open"]
        ])
        expect(dataOf(seen[0]!)).toMatchObject({ author_type: "agent", author_name: "Ana Agent", id: ticket.ticket_id })
        expect(seen.every((event) => dataOf(event).id === ticket.ticket_id)).toBe(true)
        const ids = seen.map((event) => Number(event.id))
        expect(ids).toEqual([...ids].sort((x, y) => x - y))
        // the desk sees the assignment too; nobody sees the internal note
        const deskSeen = yield* Effect.promise(() => desk.next(6))
        expect(deskSeen.map((event) => event.event)).toContain("ticket_assigned")
        expect(JSON.stringify([...seen, ...deskSeen])).not.toContain("fire brigade")
        widget.close()

        // two replies while the widget is away, then a reconnect after the first event it saw
        yield* asAdmin(server, "POST", `${admin}/messages`, { body: "Glad to hear", author_email: "ana@example.com" })
        yield* asAdmin(server, "POST", `${admin}/messages`, { body: "Closing this", author_email: "ana@example.com" })
        const resumed = yield* openStream(server.baseUrl, path, { ...proof, "last-event-id": seen[3]!.id! })
        const replayed = yield* Effect.promise(() => resumed.next(3))
        expect(replayed.map((event) => dataOf(event).body ?? dataOf(event).status)).toEqual(["open", "Glad to hear", "Closing this"])
        yield* Effect.sleep("300 millis")
        expect(resumed.pending()).toEqual([])
        // the keep-alive is a comment line, which EventSource ignores; one comes as the stream opens
        expect(resumed.comments()).toBeGreaterThan(0)
      })), 60_000)

    it.effect("is in the contract: /openapi.json declares the stream, its resume header and parameter, and the widget's headers", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const spec = (yield* Effect.promise(() => server.request("GET", "/openapi.json"))).body
        const stream = spec.paths["/v1/tickets/{id}/events"]?.get
        expect(Object.keys(stream?.responses?.["200"]?.content ?? {})).toEqual(["text/event-stream"])
        expect(stream.parameters.map((p: any) => `${p.in}:${p.name}`).sort()).toEqual([
          "header:last-event-id",
          "header:x-ticket-token",
          "header:x-visitor-token",
          "path:id",
          "query:last_event_id"
        ])
        expect(Object.keys(spec.paths["/v1/events"]?.get?.responses?.["200"]?.content ?? {})).toEqual(["text/event-stream"])
      }))

    it.effect("is refused without the ticket's token, with another's, and resets an id too old to replay", () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* TestServer
        const { widgetKey } = yield* createProject(server)
        const ticket = yield* fileFromWidget(server, widgetKey, "Mine")
        const other = yield* fileFromWidget(server, widgetKey, "Theirs")
        const path = `/v1/tickets/${ticket.ticket_id}/events`
        const bare = yield* Effect.promise(() => server.request("GET", path, { key: widgetKey }))
        expect([bare.status, bare.body.error.code]).toEqual([403, "FORBIDDEN"])
        expect(bare.body.error.message).toContain("X-Ticket-Token")
        const wrong = yield* Effect.promise(() =>
          server.request("GET", path, { key: widgetKey, headers: { "x-ticket-token": other.access_token } }))
        expect([wrong.status, wrong.body.error.code]).toEqual([404, "NOT_FOUND"])
        const malformed = yield* Effect.promise(() =>
          server.request("GET", `${path}?last_event_id=yesterday`, { key: widgetKey, headers: { "x-ticket-token": ticket.access_token } }))
        expect(malformed.body).toEqual({
          error: { code: "VALIDATION_ERROR", message: "last_event_id must be the id of an event this stream sent" }
        })

        // the log forgets what is older than EVENT_RETENTION: resuming before that is a reset
        const proof = { authorization: `Bearer ${widgetKey}`, "x-ticket-token": ticket.access_token }
        const first = yield* openStream(server.baseUrl, path, proof)
        yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${ticket.ticket_id}/messages`, {
            key: widgetKey,
            headers: { "x-ticket-token": ticket.access_token },
            body: { body: "hello?" }
          }))
        const [heard] = yield* Effect.promise(() => first.next(1))
        first.close()
        // one more while the visitor is away, which the log then forgets
        yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${ticket.ticket_id}/messages`, {
            key: widgetKey,
            headers: { "x-ticket-token": ticket.access_token },
            body: { body: "anyone?" }
          }))
        const repo = yield* EventsRepo.make
        const { pruned } = yield* repo.prune(new Date(Date.now() + 60_000).toISOString())
        expect(pruned).toBeGreaterThan(0)
        const late = yield* openStream(server.baseUrl, path, { ...proof, "last-event-id": heard!.id! })
        const [reset] = yield* Effect.promise(() => late.next(1))
        expect(reset).toMatchObject({ event: "reset", id: undefined })
        expect(JSON.parse(reset!.data).reason).toContain("too old")
        // and it carries on from now
        yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${ticket.ticket_id}/messages`, {
            key: widgetKey,
            headers: { "x-ticket-token": ticket.access_token },
            body: { body: "still there?" }
          }))
        const [next] = yield* Effect.promise(() => late.next(1))
        expect(dataOf(next!).body).toBe("still there?")
        // a client that had seen everything the log forgot missed nothing: it resumes without a reset
        yield* repo.prune(new Date(Date.now() + 60_000).toISOString())
        const current = yield* openStream(server.baseUrl, path, { ...proof, "last-event-id": next!.id! })
        yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${ticket.ticket_id}/messages`, {
            key: widgetKey,
            headers: { "x-ticket-token": ticket.access_token },
            body: { body: "found it" }
          }))
        expect((yield* Effect.promise(() => current.next(1))).map((event) => dataOf(event).body)).toEqual(["found it"])
        // an id this log never gave (ahead of everything) is a reset too, not a stream that waits for ever
        const ahead = yield* openStream(server.baseUrl, path, { ...proof, "last-event-id": "9000000000000000" })
        expect((yield* Effect.promise(() => ahead.next(1)))[0]!.event).toBe("reset")
      })), 60_000)
  })
})

describeNeeding(postgresMissing, "a ticket's stream behind a transaction still running, with two instances", () => {
  it.live("holds back what committed after a transaction that began writing earlier, then gives both in order, once", () =>
    Effect.scoped(Effect.gen(function*() {
      const env = yield* freshDatabase("postgres")
      const a = yield* Layer.build(testServer("postgres", {}, env))
      const serverA = Context.get(a, TestServer)
      const serverB = Context.get(yield* Layer.build(testServer("postgres", {}, env)), TestServer)
      const { projectId, key } = yield* createProject(serverA)
      const created = yield* Effect.promise(() =>
        serverA.request("POST", "/v1/tickets", { key, body: { subject: "Held", body: "Held back" } }))
      const ticketId = created.body.ticket_id as string
      const onB = yield* openStream(serverB.baseUrl, `/v1/tickets/${ticketId}/events`, { authorization: `Bearer ${key}` })

      // a transaction that takes its id now and writes its event later, as a slow request would
      const sql = Context.get(a, SqlClient.SqlClient)
      const slow = yield* sql.reserve
      yield* slow.executeRaw("BEGIN", [])
      yield* slow.executeRaw("SELECT pg_current_xact_id()::text", [])
      // meanwhile a reply commits on instance A
      const admin = `/v1/admin/projects/${projectId}/tickets/${ticketId}/messages`
      yield* asAdmin(serverA, "POST", admin, { body: "committed first" })
      yield* Effect.sleep("500 millis")
      expect(onB.pending()).toEqual([])
      // the slow transaction now writes its event, and commits
      yield* slow.executeRaw(
        `INSERT INTO events (position, project_id, ticket_id, kind, body, created_at)
         SELECT event_position_before_next() + 1, $1, $2, 'ticket_replied', $3, now()`,
        [projectId, ticketId, JSON.stringify({ event: "ticket_replied", data: { id: ticketId, body: "began first" } })]
      )
      yield* slow.executeRaw("COMMIT", [])
      const both = yield* Effect.promise(() => onB.next(2))
      expect(both.map((event) => dataOf(event).body)).toEqual(["began first", "committed first"])
      expect(Number(both[0]!.id)).toBeLessThan(Number(both[1]!.id))
      yield* Effect.sleep("300 millis")
      expect(onB.pending()).toEqual([])
      // resumed on the other instance from the first: exactly the second
      const onA = yield* openStream(serverA.baseUrl, `/v1/tickets/${ticketId}/events`, {
        authorization: `Bearer ${key}`,
        "last-event-id": both[0]!.id!
      })
      expect((yield* Effect.promise(() => onA.next(1))).map((event) => dataOf(event).body)).toEqual(["committed first"])
    })), 90_000)
})
