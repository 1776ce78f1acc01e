/**
 * A widget key sits in a web page, so whoever reads the page can file a ticket as any address:
 * such a ticket may create a contact but never changes one, and agents see that its sender is
 * unverified (issue 47, point 6). A full key is the site's own backend, and vouches for its sender.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { CreateTicketInput } from "../../src/Domain/Ticket.ts"
import { adminRead, contactMessage, createTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

/** The project's contact of `email` as stored, or undefined. */
const contactOf = (projectId: string, email: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ name: string | null; updated_at: Date | string }>`
      SELECT name, updated_at FROM contacts WHERE project_id = ${projectId} AND email = ${email}`
  ).pipe(Effect.orDie, Effect.map((rows) => rows[0]))

/** A ticket filed through the typed client with `key`, answered 202. */
const file = (server: TestServerShape, key: string, payload: CreateTicketInput) =>
  Effect.map(createTicket(server, key, payload), (created) => created.ticket_id)

describe.each(databaseKinds)("contacts and unverified senders on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "100000" }), { excludeTestServices: true })((it) => {
    it.effect("a widget key's ticket for an existing contact leaves its name alone and is marked unverified", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, widgetKey, projectId } = yield* createProject(server)
        const genuine = yield* file(server, key, {
          subject: "Where is my invoice?",
          body: "Please send it again.",
          sender_email: "victim@example.com",
          sender_name: "Victoria"
        })
        const before = yield* contactOf(projectId, "victim@example.com")
        expect(before?.name).toBe("Victoria")

        const forged = yield* file(server, widgetKey, {
          subject: "Please change my account email",
          body: "To mallory@attacker.test, thanks.",
          sender_email: "Victim@Example.com",
          sender_name: "Mallory",
          source: "widget"
        })
        const after = yield* contactOf(projectId, "victim@example.com")
        expect(after).toEqual(before)

        // the agent's read says who vouched for the sender, and shows what the forged one claims
        const forgedRead = yield* adminRead(server, projectId, forged)
        expect(forgedRead).toMatchObject({ sender_email: "victim@example.com", sender_name: "Mallory", sender_verified: false })
        expect((yield* adminRead(server, projectId, genuine)).sender_verified).toBe(true)
        const wireRead = yield* Effect.promise(() =>
          server.request("GET", `/v1/admin/projects/${projectId}/tickets/${forged}`, { key: adminToken }))
        expect(wireRead.body.sender_verified).toBe(false)

        // the contact's history, to the operator and to the site's backend, marks the forged one
        const admin = yield* server.api(adminToken)
        const listed = yield* admin.admin.listTickets({ params: { pid: projectId }, query: { contact_email: "victim@example.com" } })
        expect(listed.tickets.map((t) => [t.ticket_id, t.sender_verified])).toEqual([[forged, false], [genuine, true]])
        const history = yield* Effect.promise(() =>
          server.request("GET", "/v1/tickets?contact_email=victim@example.com", { key }))
        expect(history.body.tickets.map((t: any) => [t.ticket_id, t.sender_verified])).toEqual([[forged, false], [genuine, true]])

        // the published read keeps exactly the published fields
        const publicRead = yield* Effect.promise(() => server.request("GET", `/v1/tickets/${forged}`, { key }))
        expect(publicRead.body).not.toHaveProperty("sender_verified")

        // a contact search finds the contact by its own name, not by the forger's
        const search = (q: string) =>
          Effect.promise(() => server.request("GET", `/v1/search?q=${q}&types=contacts`, { key }))
        expect((yield* search("Victoria")).body.results.map((r: any) => [r.email, r.name])).toEqual([
          ["victim@example.com", "Victoria"]
        ])
        expect((yield* search("Mallory")).body.results).toEqual([])
      }))

    it.effect("a widget key's name neither fills in a nameless contact nor renames one; a full key's does", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, widgetKey, projectId } = yield* createProject(server)
        // a contact known only by address: a full key's message names no one
        const ticket = yield* file(server, key, { subject: "Shared inbox", body: "x" })
        expect((yield* contactMessage(server, key, ticket, "Me too", "quiet@example.com")).status).toBe(201)
        expect((yield* contactOf(projectId, "quiet@example.com"))?.name).toBeNull()

        yield* file(server, widgetKey, { subject: "Hello", body: "x", sender_email: "quiet@example.com", sender_name: "Mallory" })
        expect((yield* contactOf(projectId, "quiet@example.com"))?.name).toBeNull()

        // a new address from a widget key: the contact is created with the name it gave
        const fresh = yield* file(server, widgetKey, { subject: "New here", body: "x", sender_email: "new@example.com", sender_name: "Nia" })
        expect((yield* contactOf(projectId, "new@example.com"))?.name).toBe("Nia")
        expect((yield* adminRead(server, projectId, fresh)).sender_verified).toBe(false)

        // the site's own backend may name or rename its contacts
        yield* file(server, key, { subject: "Named", body: "x", sender_email: "quiet@example.com", sender_name: "Quinn" })
        expect((yield* contactOf(projectId, "quiet@example.com"))?.name).toBe("Quinn")
        yield* file(server, key, { subject: "Renamed", body: "x", sender_email: "new@example.com", sender_name: "Nia Smith" })
        expect((yield* contactOf(projectId, "new@example.com"))?.name).toBe("Nia Smith")
      }))

    it.effect("tickets written together in one statement follow the same rule", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, widgetKey, projectId } = yield* createProject(server)
        yield* file(server, key, { subject: "First", body: "x", sender_email: "vic@example.com", sender_name: "Vic" })
        // concurrent creates go out in shared statements: forged names for an existing contact,
        // verified tickets without a name, and a new contact that only widget tickets name
        const filed = yield* Effect.forEach(
          Array.from({ length: 40 }, (_, i) => i),
          (i) =>
            i % 4 === 3
              ? Effect.map(file(server, key, { subject: `Real ${i}`, body: "x", sender_email: "vic@example.com" }), (id): [string, boolean] => [id, true])
              : Effect.map(
                file(server, widgetKey, {
                  subject: `Forged ${i}`,
                  body: "x",
                  sender_email: i % 2 === 0 ? "vic@example.com" : "solo@example.com",
                  sender_name: `Mallory ${i}`
                }),
                (id): [string, boolean] => [id, false]
              ),
          { concurrency: "unbounded" }
        )
        expect((yield* contactOf(projectId, "vic@example.com"))?.name).toBe("Vic")
        expect((yield* contactOf(projectId, "solo@example.com"))?.name).toMatch(/^Mallory \d+$/)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ id: string; sender_verified: boolean; contacts: number; writes: string }>`
          SELECT t.id, t.sender_verified, (SELECT count(*)::int FROM contacts c WHERE c.id = t.contact_id) AS contacts,
            t.xmin::text AS writes
          FROM tickets t WHERE t.project_id = ${projectId}`
        // fewer transactions than tickets: concurrent creates did go out together
        expect(new Set(rows.map((row) => row.writes)).size).toBeLessThan(rows.length)
        const verified = new Map(rows.map((row) => [row.id, row.sender_verified]))
        for (const [id, expected] of filed) expect(verified.get(id), id).toBe(expected)
        expect(rows.every((row) => row.contacts === 1)).toBe(true)

        // a verified name in the same flood wins over every forged one, whatever the order
        yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) =>
            i === 7
              ? file(server, key, { subject: "Rename", body: "x", sender_email: "vic@example.com", sender_name: "Victor" })
              : file(server, widgetKey, { subject: `Forged again ${i}`, body: "x", sender_email: "vic@example.com", sender_name: `Eve ${i}` }),
          { concurrency: "unbounded" }
        )
        expect((yield* contactOf(projectId, "vic@example.com"))?.name).toBe("Victor")
      }))
  })
})
