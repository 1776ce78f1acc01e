import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { describeNeeding, postgresMissing } from "../support/Requires.ts"
import { openStream } from "../support/Sse.ts"
import { adminToken, createProject, TestServer, testServer, type TestServerShape } from "../support/TestServer.ts"

const fileTicket = (server: TestServerShape, key: string, subject: string) =>
  Effect.promise(() => server.request("POST", "/v1/tickets", { key, body: { subject, body: "Streamed" } }))
    .pipe(Effect.map((response) => {
      expect(response.status).toBe(202)
      return response.body as { ticket_id: string; ticket_number: number }
    }))

describe.each(databaseKinds)("the project's event stream on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("streams each event as the webhooks would carry it, and resumes after an id with exactly what followed", () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* TestServer
        const project = yield* createProject(server)
        const other = yield* createProject(server, "Another")
        const stream = yield* openStream(server.baseUrl, `/v1/admin/projects/${project.projectId}/events`, {
          authorization: `Bearer ${adminToken}`
        })
        expect(stream.response.status).toBe(200)
        expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/)

        const first = yield* fileTicket(server, project.key, "First")
        yield* fileTicket(server, other.key, "Not this project's")
        const second = yield* fileTicket(server, project.key, "Second")
        const [a, b] = yield* Effect.promise(() => stream.next(2))
        expect([a!.event, b!.event]).toEqual(["ticket_created", "ticket_created"])
        expect(JSON.parse(a!.data)).toMatchObject({
          event: "ticket_created",
          data: { id: first.ticket_id, subject: "First", project_id: project.projectId }
        })
        expect(JSON.parse(b!.data).data.id).toBe(second.ticket_id)
        expect(Number(b!.id)).toBeGreaterThan(Number(a!.id))
        stream.close()

        // three more while nobody listens, then a reconnect after the first event
        const later = []
        for (const subject of ["Third", "Fourth", "Fifth"]) later.push(yield* fileTicket(server, project.key, subject))
        const resumed = yield* openStream(server.baseUrl, `/v1/admin/projects/${project.projectId}/events`, {
          authorization: `Bearer ${adminToken}`,
          "last-event-id": a!.id!
        })
        const replayed = yield* Effect.promise(() => resumed.next(4))
        expect(replayed.map((event) => JSON.parse(event.data).data.id)).toEqual([second, ...later].map((t) => t.ticket_id))
        expect(replayed.map((event) => Number(event.id))).toEqual([...replayed.map((event) => Number(event.id))].sort((x, y) => x - y))
        // nothing twice, nothing more
        yield* Effect.sleep("500 millis")
        expect(resumed.pending()).toEqual([])
      })), 60_000)

    it.effect("is a full key's too, not a widget key's; a malformed Last-Event-ID is a 400 that names it", () =>
      Effect.scoped(Effect.gen(function*() {
        const server = yield* TestServer
        const project = yield* createProject(server)
        const stream = yield* openStream(server.baseUrl, "/v1/events?last_event_id=0", { authorization: `Bearer ${project.key}` })
        expect(stream.response.status).toBe(200)
        const ticket = yield* fileTicket(server, project.key, "Mine")
        const [event] = yield* Effect.promise(() => stream.next(1))
        expect(JSON.parse(event!.data).data.id).toBe(ticket.ticket_id)

        const widget = yield* Effect.promise(() => server.request("GET", "/v1/events", { key: project.widgetKey }))
        expect([widget.status, widget.body?.error?.code]).toEqual([403, "FORBIDDEN"])
        const malformed = yield* Effect.promise(() =>
          server.request("GET", "/v1/events", { key: project.key, headers: { "last-event-id": "yesterday" } }))
        expect(malformed.status).toBe(400)
        expect(malformed.body).toEqual({
          error: { code: "VALIDATION_ERROR", message: "Last-Event-ID must be the id of an event this stream sent" }
        })
        const unknown = yield* Effect.promise(() =>
          server.request("GET", "/v1/admin/projects/00000000-0000-4000-8000-000000000000/events", { key: adminToken }))
        expect(unknown.status).toBe(404)
      })), 60_000)
  })
})

describe("the project's event stream when its instance shuts down", () => {
  it.effect("ends, so the shutdown does not wait on it and its client resumes elsewhere", () =>
    Effect.gen(function*() {
      const instance = yield* Scope.make()
      const server = Context.get(yield* Layer.build(testServer("pglite")).pipe(Scope.provide(instance)), TestServer)
      const project = yield* createProject(server)
      const stream = yield* openStream(server.baseUrl, "/v1/events", { authorization: `Bearer ${project.key}` }).pipe(
        Scope.provide(instance)
      )
      const started = Date.now()
      yield* Scope.close(instance, Exit.void)
      // the response ended from the server's side, and the shutdown did not wait for a heartbeat's failure
      yield* Effect.promise(() => stream.ended)
      expect(Date.now() - started).toBeLessThan(10_000)
    }), 60_000)
})

describeNeeding(postgresMissing, "the project's event stream with two instances on one PostgreSQL", () => {
  it.live("delivers an event committed on one instance to a stream held by the other, in the order numbered", () =>
    Effect.scoped(Effect.gen(function*() {
      const env = yield* freshDatabase("postgres")
      const a = Context.get(yield* Layer.build(testServer("postgres", {}, env)), TestServer)
      const b = Context.get(yield* Layer.build(testServer("postgres", {}, env)), TestServer)
      const project = yield* createProject(a)
      const onB = yield* openStream(b.baseUrl, "/v1/events", { authorization: `Bearer ${project.key}` })
      const created = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => fileTicket(i % 2 === 0 ? a : b, project.key, `Ticket ${i}`)),
        { concurrency: "unbounded" }
      )
      const received = yield* Effect.promise(() => onB.next(20))
      expect(new Set(received.map((event) => JSON.parse(event.data).data.id))).toEqual(new Set(created.map((t) => t.ticket_id)))
      const ids = received.map((event) => Number(event.id))
      expect(ids).toEqual([...ids].sort((x, y) => x - y))
      expect(new Set(ids).size).toBe(20)
      // the same from the first instance, resumed from the start: the same order
      const onA = yield* openStream(a.baseUrl, "/v1/events?last_event_id=0", { authorization: `Bearer ${project.key}` })
      expect((yield* Effect.promise(() => onA.next(20))).map((event) => event.id)).toEqual(received.map((event) => event.id))
    })), 90_000)
})
