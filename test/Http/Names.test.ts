/**
 * A person's name is one line: control characters (C0, DEL, C1, CR/LF and TAB among them) and
 * line or paragraph separators become one space, and the name is trimmed, wherever a name comes
 * in (issue 47, point 8). A name of nothing else is as absent as an empty one.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { adminRead, createAgent, createTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

/** Each name as sent, and as stored. */
const names = [
  ["Ada\r\nBcc: eve@attacker.test", "Ada Bcc: eve@attacker.test"],
  ["Ada \r\n  Lovelace", "Ada Lovelace"],
  ["Ada\tLovelace", "Ada Lovelace"],
  ["Ada\u0085Lovelace", "Ada Lovelace"],
  ["Ada\u2028Lovelace\u2029", "Ada Lovelace"],
  ["\u001b[31mAda\u007f", "[31mAda"],
  ["\nAda  Lovelace\n", "Ada  Lovelace"]
] as const

const contactName = (projectId: string, email: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ name: string | null }>`SELECT name FROM contacts WHERE project_id = ${projectId} AND email = ${email}`
  ).pipe(Effect.orDie, Effect.map((rows) => rows[0]?.name))

describe.each(databaseKinds)("names on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "1000000" }), { excludeTestServices: true })((it) => {
    it.effect("stores a sender's name on one line, on the ticket and on its contact", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, widgetKey, projectId } = yield* createProject(server)
        for (const [i, [sent, stored]] of names.entries()) {
          for (const [by, apiKey] of [["full", key], ["widget", widgetKey]] as const) {
            const email = `${by}${i}@example.com`
            const { ticket_id } = yield* createTicket(server, apiKey, { subject: "Name", body: "x", sender_email: email, sender_name: sent })
            expect((yield* adminRead(server, projectId, ticket_id)).sender_name, JSON.stringify(sent)).toBe(stored)
            expect(yield* contactName(projectId, email), JSON.stringify(sent)).toBe(stored)
          }
        }
        // nothing but control characters and blanks: no name, as an empty one
        const { ticket_id } = yield* createTicket(server, key, {
          subject: "Nameless",
          body: "x",
          sender_email: "blank@example.com",
          sender_name: " \r\n\t\u2028 "
        })
        expect((yield* adminRead(server, projectId, ticket_id)).sender_name).toBeNull()
        expect(yield* contactName(projectId, "blank@example.com")).toBeNull()
        // the length is counted on the name as stored
        const long = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { subject: "s", body: "b", sender_name: `${"n".repeat(200)}\r\n` } }))
        expect(long.status).toBe(202)
      }))

    it.effect("stores an agent's name on one line; one of nothing else is missing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId } = yield* createProject(server)
        for (const [i, [sent, stored]] of names.entries()) {
          const created = yield* createAgent(server, projectId, `agent${i}@support.example`, sent)
          expect([created.status, created.value.name], JSON.stringify(sent)).toEqual([201, stored])
        }
        const admin = yield* server.api(adminToken)
        const listed = yield* admin.admin.listAgents({ params: { pid: projectId } })
        expect(listed.agents.map((agent) => agent.name).sort()).toEqual(names.map(([, stored]) => stored).sort())
        const blank = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/agents`, {
            key: adminToken,
            body: { email: "blank@support.example", name: "\r\n\u0085\t" }
          }))
        expect([blank.status, blank.body]).toEqual([400, { error: { code: "VALIDATION_ERROR", message: "name is required" } }])
      }))
  })
})
