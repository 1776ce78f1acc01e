/**
 * The operator's audit log, through the server on both databases: each action that changed
 * something is listed once, with who, when, what and from where; reads and refusals are not;
 * filters and cursor paging; and the database itself refuses to change or remove an entry.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { startStub } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const auditOf = (server: TestServerShape, query: Record<string, string>) =>
  Effect.promise(() =>
    server.request("GET", `/v1/admin/audit-log?${new URLSearchParams(query)}`, {
      key: adminToken,
      headers: { "user-agent": "audit-test" }
    })
  )

/** The messages of an error and of every cause under it: the database's own words are at the bottom. */
const messagesOf = (error: unknown): string => {
  const messages: Array<string> = []
  for (let at: unknown = error; at instanceof Object; at = (at as { cause?: unknown }).cause) {
    messages.push(String((at as { message?: unknown }).message))
  }
  return messages.join(" / ")
}

describe.each(databaseKinds)("the audit log on %s", (kind) => {
  layer(testServer(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }), { excludeTestServices: true })((it) => {
    it.effect("lists each operator action once: who, when, what and from where; reads and refusals are not actions", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const started = new Date().toISOString()
        const project = yield* createProject(server, "Audited")
        const pid = project.projectId
        const hook = yield* Effect.acquireRelease(Effect.promise(() => startStub()), (stub) => Effect.promise(() => stub.close()))

        const key = yield* admin.admin.createKey({ params: { pid }, payload: { scope: "full", name: "ci" } })
        yield* admin.admin.revokeKey({ params: { pid, key_id: key.key_id } })
        const webhook = yield* admin.webhooks.register({ params: { pid }, payload: { url: `${hook.url}/h` } })
        yield* admin.webhooks.update({ params: { pid, webhook_id: webhook.webhook_id }, payload: { max_per_second: 10 } })
        yield* admin.webhooks.replay({ params: { pid, webhook_id: webhook.webhook_id }, payload: { since: started } })
        const first = yield* createTicket(server, project.key, { subject: "One", body: "First" })
        const second = yield* createTicket(server, project.key, { subject: "Two", body: "Second" })
        yield* admin.merge.merge({ params: { pid, id: second.ticket_id }, payload: { into_id: first.ticket_id } })
        yield* admin.satisfactionAdmin.updateSettings({ params: { pid }, payload: { delay_minutes: 5 } })
        const policy = yield* admin.sla.create({
          params: { pid },
          payload: { name: "Urgent", first_response_minutes: 60 }
        })
        // reads, and a refusal that changed nothing, are no actions
        yield* admin.webhooks.list({ params: { pid } })
        yield* admin.admin.getTicket({ params: { pid, id: first.ticket_id } })
        const refused = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${pid}/webhooks`, { key: adminToken, body: { url: "ftp://nope" } })
        )
        expect(refused.status).toBe(400)

        const listed = yield* auditOf(server, { project_id: pid })
        expect(listed.status).toBe(200)
        const entries = listed.body.entries as Array<Record<string, unknown>>
        expect(entries.map((entry) => [entry.action, entry.target])).toEqual([
          ["sla.create", {}],
          ["satisfactionAdmin.updateSettings", {}],
          ["merge.merge", { id: second.ticket_id }],
          ["webhooks.replay", { webhook_id: webhook.webhook_id }],
          ["webhooks.update", { webhook_id: webhook.webhook_id }],
          ["webhooks.register", {}],
          ["admin.revokeKey", { key_id: key.key_id }],
          ["admin.createKey", {}],
          // createProject's own widget key
          ["admin.createKey", {}]
        ])
        expect(policy.policy_id).toBeDefined()
        for (const entry of entries) {
          expect(entry).toMatchObject({
            audit_id: expect.stringMatching(/^\d+$/),
            at: expect.stringMatching(/Z$/),
            project_id: pid,
            actor: "admin_token",
            status: expect.any(Number),
            source_ip: expect.stringMatching(/127\.0\.0\.1/)
          })
          expect((entry.at as string) >= started).toBe(true)
        }
        expect(entries[3]!.status).toBe(202)
        // the project itself was made before it had an id to file under
        const global = yield* auditOf(server, { action: "admin.createProject", since: started })
        expect(global.body.entries.some((entry: { project_id: string | null }) => entry.project_id === null)).toBe(true)
      }))

    it.effect("filters and pages with a cursor bound to its filter; bad filters are 400", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const project = yield* createProject(server, "Paged")
        const pid = project.projectId
        for (let i = 0; i < 5; i++) {
          yield* admin.admin.createAgent({ params: { pid }, payload: { email: `agent${i}@acme.test`, name: `Agent ${i}` } })
        }
        const seen: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* auditOf(server, {
            project_id: pid,
            action: "admin.createAgent",
            limit: "2",
            ...(cursor === undefined ? {} : { cursor })
          })
          expect(page.status).toBe(200)
          seen.push(...page.body.entries.map((entry: { audit_id: string }) => entry.audit_id))
          cursor = page.body.next_cursor ?? undefined
        } while (cursor !== undefined)
        expect(seen).toHaveLength(5)
        expect(new Set(seen).size).toBe(5)
        expect([...seen].sort((a, b) => Number(b) - Number(a))).toEqual(seen)

        const firstPage = yield* auditOf(server, { project_id: pid, action: "admin.createAgent", limit: "2" })
        const elsewhere = yield* auditOf(server, { action: "admin.createAgent", limit: "2", cursor: firstPage.body.next_cursor })
        expect(elsewhere.status).toBe(400)
        expect(elsewhere.body.error.message).toBe("cursor is not valid")
        for (
          const [query, message] of [
            [{ actor: "robot" }, "actor must be one of admin_token, agent, cli"],
            [{ since: "last week" }, "since must be an ISO 8601 timestamp"],
            [{ project_id: "nope" }, "project_id must be a project id"],
            [{ since: "2026-11-28T10:00:00Z", until: "2026-11-28T09:00:00Z" }, "until must be later than since"],
            [{ limit: "0" }, "limit must be at least 1"],
            [{ agent_email: "someone" }, "agent_email must be a valid email address"]
          ] as const
        ) {
          const bad = yield* auditOf(server, query)
          expect(bad.status, JSON.stringify(query)).toBe(400)
          expect(bad.body.error.message).toContain(message)
        }
        const byCli = yield* auditOf(server, { project_id: pid, actor: "cli" })
        expect(byCli.body.entries).toEqual([])
      }))

    it.effect("names the agent an action was done as: by X-Agent-Email, or as a reply's author; a stranger is 400 and does nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const admin = yield* server.api(adminToken)
        const project = yield* createProject(server, "Desk")
        const pid = project.projectId
        yield* admin.admin.createAgent({ params: { pid }, payload: { email: "ana@acme.test", name: "Ana" } })
        yield* admin.admin.createAgent({ params: { pid }, payload: { email: "ben@acme.test", name: "Ben" } })
        const other = yield* createProject(server, "Elsewhere")
        yield* admin.admin.createAgent({ params: { pid: other.projectId }, payload: { email: "eve@acme.test", name: "Eve" } })
        const ticket = yield* createTicket(server, project.key, { subject: "Help", body: "Please" })
        const asAgent = (method: "POST" | "PATCH", path: string, body: unknown, agent: string | undefined) =>
          Effect.promise(() =>
            server.request(method, `/v1/admin/projects/${pid}${path}`, {
              key: adminToken,
              body,
              headers: agent === undefined ? {} : { "x-agent-email": agent }
            })
          )

        // a desk acting for Ana names her (in any case of letters); a reply names its author
        const update = yield* asAgent("PATCH", `/tickets/${ticket.ticket_id}`, { status: "in_progress" }, "ANA@acme.test")
        expect(update.status).toBe(200)
        const reply = yield* asAgent("POST", `/tickets/${ticket.ticket_id}/messages`, { body: "On it", author_email: "ben@acme.test" }, undefined)
        expect(reply.status).toBe(201)
        // the header wins over the author: Ana posted Ben's words
        const onBehalf = yield* asAgent("POST", `/tickets/${ticket.ticket_id}/messages`, { body: "For Ben", author_email: "ben@acme.test" }, "ana@acme.test")
        expect(onBehalf.status).toBe(201)
        const note = yield* asAgent("POST", `/tickets/${ticket.ticket_id}/messages`, { body: "No author", internal: true }, undefined)
        expect(note.status).toBe(201)

        // someone who is no agent of this project, or no address, is refused before anything is done
        const before = yield* admin.admin.getTicket({ params: { pid, id: ticket.ticket_id } })
        for (const [agent, message] of [
          ["eve@acme.test", "X-Agent-Email must be the address of an agent of this project"],
          ["nobody@acme.test", "X-Agent-Email must be the address of an agent of this project"],
          ["not an address", "X-Agent-Email must be a valid email address"]
        ] as const) {
          const refused = yield* asAgent("POST", `/tickets/${ticket.ticket_id}/messages`, { body: "Sneaky" }, agent)
          expect(refused.status, agent).toBe(400)
          expect(refused.body.error).toMatchObject({ code: "VALIDATION_ERROR", message: expect.stringContaining(message) })
        }
        const global = yield* Effect.promise(() =>
          server.request("POST", "/v1/admin/projects", {
            key: adminToken,
            body: { name: "No project named" },
            headers: { "x-agent-email": "ana@acme.test" }
          })
        )
        expect(global.status).toBe(400)
        expect(global.body.error.message).toContain("this call is about no one project")
        // outside any project the call is a 404, as it is without the header
        const elsewhere = yield* Effect.promise(() =>
          server.request("GET", "/v1/admin/projects/7d0c8f5e-6a4b-4c3d-8e2f-1a2b3c4d5e6f/tickets", {
            key: adminToken,
            headers: { "x-agent-email": "ana@acme.test" }
          })
        )
        expect(elsewhere.status).toBe(404)
        expect(elsewhere.body.error.code).toBe("NOT_FOUND")
        const after = yield* admin.admin.getTicket({ params: { pid, id: ticket.ticket_id } })
        expect(after.messages).toHaveLength(before.messages.length)

        const listed = yield* auditOf(server, { project_id: pid, action: "admin.addAgentMessage" })
        expect(listed.body.entries.map((entry: Record<string, unknown>) => [entry.actor, entry.agent_email])).toEqual([
          ["admin_token", null],
          ["agent", "ana@acme.test"],
          ["agent", "ben@acme.test"]
        ])
        const byAna = yield* auditOf(server, { agent_email: "Ana@acme.test" })
        expect(byAna.body.entries.map((entry: Record<string, unknown>) => [entry.action, entry.actor, entry.project_id])).toEqual([
          ["admin.addAgentMessage", "agent", pid],
          ["admin.updateTicket", "agent", pid]
        ])
        const agents = yield* auditOf(server, { project_id: pid, actor: "agent" })
        expect(agents.body.entries).toHaveLength(3)
      }))

    it.effect("is append-only: the database refuses to change or remove an entry", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        yield* createProject(server, "Kept")
        const sql = yield* SqlClient.SqlClient
        const changed = yield* Effect.flip(sql`UPDATE audit_log SET action = 'nothing'`)
        expect(messagesOf(changed)).toContain("the audit log is append-only")
        const removed = yield* Effect.flip(sql`DELETE FROM audit_log`)
        expect(messagesOf(removed)).toContain("the audit log is append-only")
        const [{ count }] = yield* sql<{ count: string }>`SELECT count(*)::text AS count FROM audit_log`
        expect(Number(count)).toBeGreaterThan(0)
      }))
  })
})
