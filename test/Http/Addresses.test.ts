/**
 * Every email field holds one rule, the HTML standard's valid e-mail address (what a browser's
 * `<input type=email>` accepts) within 254 characters: a display name, a group, a comment or a
 * second address would otherwise be stored as the contact and steer mail elsewhere (issue 47,
 * point 7).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createAgent, createTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

/** Forms that mail software reads as something other than one plain address, or that are no address. */
const notAddresses = [
  "d6<evil6@attacker.test>",
  "grp:d7@example.com;",
  "Eve <eve@attacker.test>",
  "\"eve\"@example.com",
  "eve@example.com (Eve)",
  "eve@attacker.test, ann@example.com",
  "eve@attacker.test;ann@example.com",
  "a@b@example.com",
  "eve@[127.0.0.1]",
  "eve@-example.com",
  "eve@example..com",
  "eve@example.com.",
  "eve@exam_ple.com",
  "ann@example.com\r\nBcc: eve@attacker.test",
  "éva@example.com",
  "eve@",
  "@example.com",
  `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(62)}` // 255 characters
]

/** Valid by the rule, each given with how it is stored. */
const addresses = [
  ["o'brien+tag@example.com", "o'brien+tag@example.com"],
  ["A.B-C_D@Sub.Example.COM", "a.b-c_d@sub.example.com"],
  ["!#$%&'*+/=?^_`{|}~-@example.com", "!#$%&'*+/=?^_`{|}~-@example.com"],
  ["ann@localhost", "ann@localhost"],
  [`${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`, null] // 254 characters
] as const

/** What a project holds, counted: a refused call must leave it as it was. */
const counts = (projectId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ tickets: number; contacts: number; messages: number; agents: number; assigned: number }>`
      SELECT (SELECT count(*)::int FROM tickets WHERE project_id = ${projectId}) AS tickets,
        (SELECT count(*)::int FROM contacts WHERE project_id = ${projectId}) AS contacts,
        (SELECT count(*)::int FROM messages WHERE project_id = ${projectId}) AS messages,
        (SELECT count(*)::int FROM agents WHERE project_id = ${projectId}) AS agents,
        (SELECT count(*)::int FROM tickets WHERE project_id = ${projectId} AND assignee_id IS NOT NULL) AS assigned`
  ).pipe(Effect.orDie, Effect.map((rows) => rows[0]!))

/** Every email input of the API, public and operator, with `address` in it and the field its message names. */
const everyEmailInput = (server: TestServerShape, f: { key: string; widgetKey: string; projectId: string; ticketId: string }, address: string) => {
  const admin = `/v1/admin/projects/${f.projectId}`
  const q = encodeURIComponent(address)
  const ticket = { subject: "s", body: "b" }
  return [
    ["sender_email", "POST", "/v1/tickets", f.key, { ...ticket, sender_email: address }],
    ["sender_email", "POST", "/v1/tickets", f.widgetKey, { ...ticket, sender_email: address, source: "widget" }],
    ["contact_email", "POST", `/v1/tickets/${f.ticketId}/messages`, f.key, { body: "x", contact_email: address }],
    ["contact_email", "POST", `/v1/tickets/${f.ticketId}/messages`, f.widgetKey, { body: "x", contact_email: address }],
    ["contact_email", "GET", `/v1/tickets/${f.ticketId}?contact_email=${q}`, f.widgetKey, undefined],
    ["contact_email", "GET", `/v1/tickets?contact_email=${q}`, f.key, undefined],
    ["email", "POST", `${admin}/agents`, adminToken, { email: address, name: "Eve" }],
    ["assignee_email", "PATCH", `${admin}/tickets/${f.ticketId}`, adminToken, { assignee_email: address }],
    ["author_email", "POST", `${admin}/tickets/${f.ticketId}/messages`, adminToken, { body: "x", author_email: address }],
    ["contact_email", "GET", `${admin}/tickets?contact_email=${q}`, adminToken, undefined],
    ["assignee", "GET", `${admin}/tickets?assignee=${q}`, adminToken, undefined]
  ].map(([field, method, path, key, body]) =>
    Effect.map(Effect.promise(() => server.request(method as string, path as string, { key: key as string, body })), (response) => ({
      call: `${method} ${path} ${JSON.stringify(body)}`,
      got: { status: response.status, body: response.body },
      expected: {
        status: 400,
        body: {
          error: {
            code: "VALIDATION_ERROR",
            message: field === "assignee" ? "assignee must be an email address or none" : `${field} must be a valid email address`
          }
        }
      }
    }))
  )
}

describe.each(databaseKinds)("email addresses on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "1000000" }), { excludeTestServices: true })((it) => {
    it.effect("every email field refuses what is not one plain address, with 400 in the envelope, and creates nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const project = yield* createProject(server)
        const { ticket_id } = yield* createTicket(server, project.key, { subject: "Fixture", body: "x", sender_email: "owner@example.com" })
        const f = { ...project, ticketId: ticket_id }
        const before = yield* counts(project.projectId)
        for (const address of notAddresses) {
          for (const answer of yield* Effect.all(everyEmailInput(server, f, address))) {
            expect(answer.got, answer.call).toEqual(answer.expected)
          }
        }
        expect(yield* counts(project.projectId)).toEqual(before)
      }))

    it.effect("takes every address the rule allows, lower-cased, up to 254 characters", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const sql = yield* SqlClient.SqlClient
        for (const [address, stored] of addresses) {
          const { ticket_id } = yield* createTicket(server, key, { subject: "Valid", body: "x", sender_email: address })
          const [row] = yield* sql<{ email: string }>`
            SELECT c.email FROM tickets t JOIN contacts c ON c.id = t.contact_id WHERE t.id = ${ticket_id}`
          expect(row?.email).toBe(stored ?? address)
        }
        const agent = yield* createAgent(server, projectId, "Ops+Night@Support.Example", "Night shift")
        expect([agent.status, agent.value.email]).toEqual([201, "ops+night@support.example"])
      }))
  })
})
