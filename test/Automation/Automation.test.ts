import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { matches, type TicketFacts } from "../../src/Automation/Conditions.ts"
import type { Condition, CreateRuleInput } from "../../src/Domain/Automation.ts"
import {
  adminRead,
  agentMessage,
  contactMessage,
  createAgent,
  createTicket,
  jobsOf,
  settled,
  updateTicket,
  withStatus
} from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { stubServer } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

// --- conditions, as pure functions ---------------------------------------------------------

const facts: TicketFacts = {
  status: "open",
  priority: "p2_high",
  category: "billing",
  source: "widget",
  tags: ["VIP", "refund"],
  sender_email: "jane@example.com",
  message_body: "Where is my Invoice for March?",
  custom_fields: { plan: "Pro", seats: 12, renewal: "2027-03-01", vip: true }
}

const when = (field: Condition["field"], op: Condition["op"], value: Condition["value"]): Condition =>
  ({ field, op, value }) as Condition

describe("automation conditions", () => {
  it("eq and neq compare whole values, case-insensitively", () => {
    expect(matches([when("status", "eq", "open")], facts)).toBe(true)
    expect(matches([when("status", "eq", "OPEN")], facts)).toBe(true)
    expect(matches([when("status", "eq", "waiting")], facts)).toBe(false)
    expect(matches([when("status", "eq", "ope")], facts)).toBe(false)
    expect(matches([when("priority", "neq", "p1_critical")], facts)).toBe(true)
    expect(matches([when("priority", "neq", "P2_HIGH")], facts)).toBe(false)
    expect(matches([when("sender_email", "eq", "Jane@Example.COM")], facts)).toBe(true)
    expect(matches([when("source", "eq", "widget")], facts)).toBe(true)
  })

  it("in asks for one of the values, case-insensitively", () => {
    expect(matches([when("category", "in", ["bug", "Billing"])], facts)).toBe(true)
    expect(matches([when("category", "in", ["bug", "account"])], facts)).toBe(false)
    expect(matches([when("category", "in", [])], facts)).toBe(false)
    expect(matches([when("priority", "in", ["p1_critical", "p2_high"])], facts)).toBe(true)
  })

  it("contains looks for a substring, case-insensitively", () => {
    expect(matches([when("message_body", "contains", "invoice")], facts)).toBe(true)
    expect(matches([when("message_body", "contains", "INVOICE FOR")], facts)).toBe(true)
    expect(matches([when("message_body", "contains", "receipt")], facts)).toBe(false)
    expect(matches([when("sender_email", "contains", "@EXAMPLE.com")], facts)).toBe(true)
    expect(matches([when("message_body", "contains", "")], facts)).toBe(true)
  })

  it("on tags, eq/in/contains ask whether some tag matches, neq whether none does", () => {
    expect(matches([when("tags", "eq", "vip")], facts)).toBe(true)
    expect(matches([when("tags", "eq", "Refund")], facts)).toBe(true)
    expect(matches([when("tags", "eq", "urgent")], facts)).toBe(false)
    expect(matches([when("tags", "in", ["urgent", "REFUND"])], facts)).toBe(true)
    expect(matches([when("tags", "in", ["urgent", "later"])], facts)).toBe(false)
    expect(matches([when("tags", "contains", "fun")], facts)).toBe(true)
    expect(matches([when("tags", "contains", "xyz")], facts)).toBe(false)
    expect(matches([when("tags", "neq", "urgent")], facts)).toBe(true)
    expect(matches([when("tags", "neq", "vip")], facts)).toBe(false)
    expect(matches([when("tags", "neq", "VIP")], facts)).toBe(false)
    // a ticket without tags has no tag that matches, so only neq holds
    const untagged = { ...facts, tags: [] }
    expect(matches([when("tags", "eq", "vip")], untagged)).toBe(false)
    expect(matches([when("tags", "in", ["vip"])], untagged)).toBe(false)
    expect(matches([when("tags", "contains", "")], untagged)).toBe(false)
    expect(matches([when("tags", "neq", "vip")], untagged)).toBe(true)
  })

  it("a field without a value satisfies only neq", () => {
    const bare = { ...facts, category: null, sender_email: null, message_body: null }
    expect(matches([when("category", "eq", "billing")], bare)).toBe(false)
    expect(matches([when("category", "in", ["billing", "bug"])], bare)).toBe(false)
    expect(matches([when("message_body", "contains", "")], bare)).toBe(false)
    expect(matches([when("sender_email", "contains", "example")], bare)).toBe(false)
    expect(matches([when("category", "neq", "billing")], bare)).toBe(true)
    expect(matches([when("sender_email", "neq", "jane@example.com")], bare)).toBe(true)
  })

  it("every condition must hold; an empty list always does", () => {
    expect(matches([], facts)).toBe(true)
    expect(matches([], { ...facts, category: null, tags: [], message_body: null })).toBe(true)
    expect(matches([when("status", "eq", "open"), when("tags", "eq", "vip")], facts)).toBe(true)
    expect(matches([when("status", "eq", "open"), when("tags", "eq", "urgent")], facts)).toBe(false)
    expect(matches([when("status", "eq", "closed"), when("tags", "eq", "vip")], facts)).toBe(false)
  })

  it("custom fields: values as text for eq/neq/in/contains, numbers by size and dates in order for gt/lt", () => {
    expect(matches([when("custom_fields.plan", "eq", "pro")], facts)).toBe(true)
    expect(matches([when("custom_fields.plan", "in", ["free", "PRO"])], facts)).toBe(true)
    expect(matches([when("custom_fields.plan", "neq", "pro")], facts)).toBe(false)
    expect(matches([when("custom_fields.seats", "eq", "12")], facts)).toBe(true)
    expect(matches([when("custom_fields.vip", "eq", "true")], facts)).toBe(true)
    expect(matches([when("custom_fields.seats", "gt", "9")], facts)).toBe(true)
    expect(matches([when("custom_fields.seats", "gt", "12")], facts)).toBe(false)
    expect(matches([when("custom_fields.seats", "lt", "100")], facts)).toBe(true)
    expect(matches([when("custom_fields.renewal", "gt", "2027-02-28")], facts)).toBe(true)
    expect(matches([when("custom_fields.renewal", "lt", "2027-02-28")], facts)).toBe(false)
    // no value (and no inherited `constructor`): only neq holds
    expect(matches([when("custom_fields.region", "eq", "eu")], facts)).toBe(false)
    expect(matches([when("custom_fields.region", "neq", "eu")], facts)).toBe(true)
    expect(matches([when("custom_fields.constructor", "contains", "")], facts)).toBe(false)
    expect(matches([when("custom_fields.seats", "gt", "1")], { ...facts, custom_fields: {} })).toBe(false)
  })
})

// --- over HTTP -------------------------------------------------------------------------------

/** The events sent for a ticket: one delivery each to the one endpoint a test registers. */
const eventsSent = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ event: string }>`SELECT event FROM webhook_deliveries WHERE ticket_id = ${ticketId} ORDER BY created_at`.pipe(
      Effect.map((rows) => rows.map((row) => row.event)),
      Effect.orDie
    ))

const registerReceiver = (server: TestServerShape, projectId: string) =>
  Effect.gen(function*() {
    const hook = yield* stubServer()
    const admin = yield* server.api(adminToken)
    const registered = yield* withStatus(admin.webhooks.register({
      params: { pid: projectId },
      payload: { url: `${hook.url}/hooks` },
      responseMode: "decoded-and-response"
    }))
    expect(registered.status).toBe(201)
    return hook
  })

/** `fetch` for what the typed client cannot send: bodies the contract refuses. */
const call = (server: TestServerShape, ...args: Parameters<TestServerShape["request"]>) =>
  Effect.promise(() => server.request(...args))

// the setup and reads of a test: a failure there is no outcome under test, so it dies
const asAdmin = (server: TestServerShape) => server.api(adminToken)

const createRule = (server: TestServerShape, projectId: string, rule: CreateRuleInput) =>
  Effect.flatMap(asAdmin(server), (admin) => admin.automation.create({ params: { pid: projectId }, payload: rule })).pipe(
    Effect.map((created) => created.rule_id),
    Effect.orDie
  )

const runsOf = (server: TestServerShape, projectId: string, ruleId: string) =>
  Effect.flatMap(asAdmin(server), (admin) => admin.automation.runs({ params: { pid: projectId, rule_id: ruleId } })).pipe(
    Effect.map((list) => list.runs),
    Effect.orDie
  )

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe.each(databaseKinds)("automation rules on %s", (kind) => {
  // the tests that read events register a receiver on loopback
  layer(testServer(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }, undefined, { pipeline: "live" }), {
    excludeTestServices: true
  })((it) => {
    it.effect("rejects a bad rule with VALIDATION_ERROR and stores nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId } = yield* createProject(server)
        yield* createAgent(server, projectId, "ada@support.example", "Ada")
        const good = {
          name: "Billing to Ada",
          event: "ticket_created",
          conditions: [{ field: "message_body", op: "contains", value: "invoice" }],
          actions: [{ type: "assign", value: "ada@support.example" }]
        }
        const cases: ReadonlyArray<readonly [string, unknown, RegExp]> = [
          ["unknown event", { ...good, event: "ticket_deleted" }, /event.*must be one of ticket_created/],
          ["unknown field", { ...good, conditions: [{ field: "subject", op: "eq", value: "x" }] }, /field must be one of status/],
          ["unknown op", { ...good, conditions: [{ field: "status", op: "gt", value: "x" }] }, /op must be one of eq, neq, in, contains/],
          [
            "in with a string",
            { ...good, conditions: [{ field: "status", op: "in", value: "open" }] },
            /value must be an array of strings for op in/
          ],
          [
            "eq with an array",
            { ...good, conditions: [{ field: "status", op: "eq", value: ["open"] }] },
            /value must be a string for op eq/
          ],
          [
            "unknown action type",
            { ...good, actions: [{ type: "close_ticket", value: "x" }] },
            /type must be one of set_status, set_priority, add_tag, assign/
          ],
          [
            "set_status with a bad status",
            { ...good, actions: [{ type: "set_status", value: "done" }] },
            /^set_status value must be one of open, in_progress, waiting, resolved, closed$/
          ],
          [
            "set_priority with a bad priority",
            { ...good, actions: [{ type: "set_priority", value: "urgent" }] },
            /^set_priority value must be one of p1_critical, p2_high, p3_medium, p4_low$/
          ],
          [
            "assign to an unknown agent",
            { ...good, actions: [{ type: "assign", value: "nobody@support.example" }] },
            /^assign value must be the email of an agent of this project$/
          ],
          ["no actions", { ...good, actions: [] }, /^actions must hold at least one action$/],
          ["no name", { ...good, name: "   " }, /^name is required$/],
          ["not an object", [good], /^request body must be a JSON object$/]
        ]
        for (const [what, body, message] of cases) {
          const response = yield* call(server, "POST", `/v1/admin/projects/${projectId}/automation-rules`, {
            key: adminToken,
            body
          })
          expect({ what, status: response.status, code: response.body?.error?.code }).toEqual({
            what,
            status: 400,
            code: "VALIDATION_ERROR"
          })
          expect(response.body.error.message, what).toMatch(message)
        }
        // the same rule with an agent of the project, in another spelling, is fine
        const admin = yield* asAdmin(server)
        const accepted = yield* withStatus(admin.automation.create({
          params: { pid: projectId },
          payload: {
            name: "Billing to Ada",
            event: "ticket_created",
            conditions: [{ field: "message_body", op: "contains", value: "invoice" }],
            actions: [{ type: "assign", value: "ADA@support.example" }]
          },
          responseMode: "decoded-and-response"
        }))
        expect(accepted.status).toBe(201)
        expect(accepted.value.rule_id).toMatch(uuid)
        const listed = yield* admin.automation.list({ params: { pid: projectId } })
        expect(listed.rules).toHaveLength(1)
      }))

    it.effect("names the field of an unknown event as `event`", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId } = yield* createProject(server)
        const response = yield* call(server, "POST", `/v1/admin/projects/${projectId}/automation-rules`, {
          key: adminToken,
          body: { name: "x", event: "ticket_deleted", conditions: [], actions: [{ type: "add_tag", value: "x" }] }
        })
        expect(response.status).toBe(400)
        // CONTRACT: validation messages name the field; the field here is `event`, a single name
        expect(response.body.error.message).toBe(
          "event must be one of ticket_created, ticket_replied, ticket_resolved, ticket_status_changed, ticket_assigned, ticket_sla_breached, ticket_rated, ticket_merged"
        )
      }))

    it.effect("404 for an unknown project, 401 for a project key, 404 for an unknown rule", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        const other = yield* createProject(server, "Other")
        const rule: CreateRuleInput = {
          name: "Tag all",
          event: "ticket_created",
          conditions: [],
          actions: [{ type: "add_tag", value: "seen" }]
        }
        const unknown = crypto.randomUUID()
        // the typed client gives each error envelope back as its class: NotFound is a 404 with code NOT_FOUND
        const admin = yield* asAdmin(server)
        for (const pid of [unknown, "not-a-uuid"]) {
          const created = yield* Effect.flip(admin.automation.create({ params: { pid }, payload: rule }))
          expect(created._tag, pid).toBe("NotFound")
          const listed = yield* Effect.flip(admin.automation.list({ params: { pid } }))
          expect(listed._tag, pid).toBe("NotFound")
        }
        const asProject = yield* server.api(key)
        const createdAsProject = yield* Effect.flip(asProject.automation.create({ params: { pid: projectId }, payload: rule }))
        expect(createdAsProject._tag).toBe("Unauthorized")
        const listAsProject = yield* Effect.flip(asProject.automation.list({ params: { pid: projectId } }))
        expect(listAsProject._tag).toBe("Unauthorized")
        const anonymous = yield* Effect.flatMap(server.api(), (api) =>
          Effect.flip(api.automation.list({ params: { pid: projectId } })))
        expect(anonymous._tag).toBe("Unauthorized")

        const ruleId = yield* createRule(server, projectId, rule)
        for (const [pid, rid] of [[projectId, unknown], [projectId, "nope"], [other.projectId, ruleId]] as const) {
          const runs = yield* Effect.flip(admin.automation.runs({ params: { pid, rule_id: rid } }))
          expect(runs._tag, `${pid}/${rid}`).toBe("NotFound")
        }
        const mine = yield* runsOf(server, projectId, ruleId)
        expect(mine).toEqual([])
      }))

    it.effect("lists a project's rules in creation order, as stored", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId } = yield* createProject(server)
        const other = yield* createProject(server, "Other")
        yield* createAgent(server, projectId, "ada@support.example", "Ada")
        const bodies: ReadonlyArray<CreateRuleInput> = [
          {
            name: "Zeta: billing to Ada",
            event: "ticket_created",
            conditions: [{ field: "category", op: "in", value: ["billing", "account"] }],
            actions: [{ type: "assign", value: "Ada@Support.example" }]
          },
          {
            name: "Alpha: urgent replies",
            event: "ticket_replied",
            conditions: [{ field: "message_body", op: "contains", value: "urgent" }],
            actions: [{ type: "set_priority", value: "p1_critical" }, { type: "add_tag", value: "urgent" }]
          },
          { name: "Middle: no conditions", event: "ticket_resolved", conditions: [], actions: [{ type: "add_tag", value: "done" }] }
        ]
        const ids: Array<string> = []
        for (const body of bodies) ids.push(yield* createRule(server, projectId, body))
        yield* createRule(server, other.projectId, { ...bodies[2]!, name: "Other project's" })

        const listed = yield* withStatus(
          Effect.flatMap(asAdmin(server), (admin) =>
            admin.automation.list({ params: { pid: projectId }, responseMode: "decoded-and-response" }))
        )
        expect(listed.status).toBe(200)
        expect(listed.value.rules.map((rule) => rule.rule_id)).toEqual(ids)
        expect(listed.value.rules[0]).toEqual({
          rule_id: ids[0],
          name: "Zeta: billing to Ada",
          event: "ticket_created",
          conditions: [{ field: "category", op: "in", value: ["billing", "account"] }],
          actions: [{ type: "assign", value: "ada@support.example" }],
          created_at: expect.stringMatching(isoMillis)
        })
        expect(listed.value.rules[1]).toMatchObject({ name: "Alpha: urgent replies", actions: bodies[1]!.actions })
        expect(listed.value.rules[2]).toMatchObject({ name: "Middle: no conditions", event: "ticket_resolved", conditions: [] })
      }))

    it.effect("a ticket_created rule assigns, tags and moves a matching ticket, and records the run", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        yield* registerReceiver(server, projectId)
        const agent = yield* createAgent(server, projectId, "billing@support.example", "Bill Ing")
        const ruleId = yield* createRule(server, projectId, {
          name: "Invoices to billing",
          event: "ticket_created",
          conditions: [{ field: "message_body", op: "contains", value: "invoice" }],
          actions: [
            { type: "assign", value: "billing@support.example" },
            { type: "add_tag", value: "Billing-Auto" },
            { type: "set_status", value: "in_progress" }
          ]
        })

        const hit = yield* createTicket(server, key, {
          subject: "Missing document",
          body: "I cannot find the INVOICE for March anywhere.",
          sender_email: "payer@example.com"
        })
        const miss = yield* createTicket(server, key, {
          subject: "Login trouble",
          body: "My password is not accepted.",
          tags: ["login"]
        })
        const hitJobs = yield* settled(hit.ticket_id)
        yield* settled(miss.ticket_id)

        const ticket = yield* adminRead(server, projectId, hit.ticket_id)
        expect(ticket.assignee).toEqual({ id: agent.value.agent_id, email: "billing@support.example", name: "Bill Ing" })
        expect(ticket.tags).toEqual(["Billing-Auto"])
        expect(ticket.status).toBe("in_progress")
        const publicRead = yield* Effect.flatMap(server.api(key), (api) =>
          api.tickets.get({ params: { id: hit.ticket_id }, query: {}, headers: {} }))
        expect(publicRead.status).toBe("in_progress")

        const runs = yield* runsOf(server, projectId, ruleId)
        expect(runs).toHaveLength(2)
        const hitRuns = runs.filter((run) => run.ticket_id === hit.ticket_id)
        expect(hitRuns).toEqual([{
          run_id: expect.stringMatching(uuid),
          ticket_id: hit.ticket_id,
          event: "ticket_created",
          matched: true,
          actions: [
            { type: "assign", value: "billing@support.example", applied: true },
            { type: "add_tag", value: "Billing-Auto", applied: true },
            { type: "set_status", value: "in_progress", applied: true }
          ],
          created_at: expect.stringMatching(isoMillis)
        }])
        // the rule's changes fire their events to webhooks only: no automation job for them
        const automationEvents = hitJobs.filter((job) => job.kind === "automation").map((job) => job.event)
        expect(automationEvents).toEqual(["ticket_created"])
        const webhookEvents = [...yield* eventsSent(hit.ticket_id)].sort()
        expect(webhookEvents).toEqual(["ticket_assigned", "ticket_created", "ticket_status_changed"])

        const missRuns = runs.filter((run) => run.ticket_id === miss.ticket_id)
        expect(missRuns).toHaveLength(1)
        expect(missRuns[0]).toMatchObject({ event: "ticket_created", matched: false, actions: [] })
        const untouched = yield* adminRead(server, projectId, miss.ticket_id)
        expect(untouched.assignee).toBeNull()
        expect(untouched.tags).toEqual(["login"])
        expect(untouched.status).toBe("open")
      }))

    it.effect("a ticket_replied rule reads the new message", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        const ruleId = yield* createRule(server, projectId, {
          name: "Urgent replies",
          event: "ticket_replied",
          conditions: [{ field: "message_body", op: "contains", value: "urgent" }],
          actions: [{ type: "set_priority", value: "p1_critical" }, { type: "add_tag", value: "escalated" }]
        })
        // "urgent" in the ticket itself is no reply: the rule must not fire on creation
        const created = yield* createTicket(server, key, {
          subject: "Urgent: question about plans",
          body: "This is urgent, which plan has SSO?",
          sender_email: "sam@example.com",
          priority: "p4_low"
        })
        yield* settled(created.ticket_id)
        expect(yield* runsOf(server, projectId, ruleId)).toEqual([])

        const calm = yield* contactMessage(server, key, created.ticket_id, "No hurry, whenever you can.", "sam@example.com")
        expect(calm.status).toBe(201)
        yield* settled(created.ticket_id)
        const afterCalm = yield* adminRead(server, projectId, created.ticket_id)
        expect(afterCalm.priority).toBe("p4_low")
        expect(afterCalm.tags).toEqual([])

        const pressing = yield* contactMessage(
          server,
          key,
          created.ticket_id,
          "Now it is URGENT, our demo is tomorrow.",
          "sam@example.com"
        )
        expect(pressing.status).toBe(201)
        yield* settled(created.ticket_id)
        const ticket = yield* adminRead(server, projectId, created.ticket_id)
        expect(ticket.priority).toBe("p1_critical")
        expect(ticket.tags).toEqual(["escalated"])

        const runs = yield* runsOf(server, projectId, ruleId)
        expect(runs.map((run) => [run.event, run.matched])).toEqual([["ticket_replied", true], ["ticket_replied", false]])
        expect(runs[0].actions).toEqual([
          { type: "set_priority", value: "p1_critical", applied: true },
          { type: "add_tag", value: "escalated", applied: true }
        ])
      }))

    it.effect("each event kind runs its own rules; an internal note fires none", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        yield* createAgent(server, projectId, "ada@support.example", "Ada")
        const onAssigned = yield* createRule(server, projectId, {
          name: "assigned",
          event: "ticket_assigned",
          conditions: [],
          actions: [{ type: "add_tag", value: "assigned" }]
        })
        const onReplied = yield* createRule(server, projectId, {
          name: "replied",
          event: "ticket_replied",
          conditions: [],
          actions: [{ type: "add_tag", value: "replied" }]
        })
        const onResolved = yield* createRule(server, projectId, {
          name: "resolved",
          event: "ticket_resolved",
          conditions: [],
          actions: [{ type: "add_tag", value: "resolved-once" }]
        })
        const onStatus = yield* createRule(server, projectId, {
          name: "status",
          event: "ticket_status_changed",
          conditions: [{ field: "status", op: "eq", value: "resolved" }, { field: "message_body", op: "neq", value: "x" }],
          actions: [{ type: "set_priority", value: "p4_low" }]
        })
        const runs = Effect.all({
          assigned: runsOf(server, projectId, onAssigned),
          replied: runsOf(server, projectId, onReplied),
          resolved: runsOf(server, projectId, onResolved),
          status: runsOf(server, projectId, onStatus)
        })
        const counts = Effect.map(runs, (all) => Object.fromEntries(Object.entries(all).map(([name, list]) => [name, list.length])))

        const created = yield* createTicket(server, key, {
          subject: "Events",
          body: "One of each",
          sender_email: "eve@example.com",
          priority: "p2_high"
        })
        yield* settled(created.ticket_id)
        expect(yield* counts).toEqual({ assigned: 0, replied: 0, resolved: 0, status: 0 })

        expect((yield* updateTicket(server, projectId, created.ticket_id, { assignee_email: "ada@support.example" })).status)
          .toBe(200)
        yield* settled(created.ticket_id)
        expect(yield* counts).toEqual({ assigned: 1, replied: 0, resolved: 0, status: 0 })

        const note = yield* agentMessage(server, projectId, created.ticket_id, "psst", true)
        expect(note.status).toBe(201)
        yield* settled(created.ticket_id)
        expect(yield* counts).toEqual({ assigned: 1, replied: 0, resolved: 0, status: 0 })

        const answer = yield* agentMessage(server, projectId, created.ticket_id, "Fixed now")
        expect(answer.status).toBe(201)
        yield* settled(created.ticket_id)
        expect(yield* counts).toEqual({ assigned: 1, replied: 1, resolved: 0, status: 0 })

        expect((yield* updateTicket(server, projectId, created.ticket_id, { status: "resolved" })).status).toBe(200)
        yield* settled(created.ticket_id)
        expect(yield* counts).toEqual({ assigned: 1, replied: 1, resolved: 1, status: 1 })
        const resolved = yield* adminRead(server, projectId, created.ticket_id)
        expect(resolved.priority).toBe("p4_low")
        expect(resolved.tags).toEqual(["assigned", "replied", "resolved-once"])

        // a contact's reply reopens the ticket: a status change to open (no match) and a reply
        const reopen = yield* contactMessage(server, key, created.ticket_id, "It broke again", "eve@example.com")
        expect(reopen.status).toBe(201)
        yield* settled(created.ticket_id)
        const all = yield* runs
        expect(Object.fromEntries(Object.entries(all).map(([name, list]) => [name, list.length])))
          .toEqual({ assigned: 1, replied: 2, resolved: 1, status: 2 })
        expect(all.status.map((run) => run.matched)).toEqual([false, true])
        expect(all.replied.every((run) => run.matched && run.event === "ticket_replied")).toBe(true)
        expect(all.replied[0].actions).toEqual([{ type: "add_tag", value: "replied", applied: false }])
        const reopened = yield* adminRead(server, projectId, created.ticket_id)
        expect(reopened.status).toBe("open")
      }))

    it.effect("a ticket a rule assigned notifies its agent of the contact's next reply", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        const agent = yield* createAgent(server, projectId, "vip@support.example", "Vic")
        yield* createRule(server, projectId, {
          name: "VIPs to Vic",
          event: "ticket_created",
          conditions: [{ field: "tags", op: "eq", value: "VIP" }],
          actions: [{ type: "assign", value: "vip@support.example" }]
        })
        const created = yield* createTicket(server, key, {
          subject: "Contract renewal",
          body: "We want to renew for three years.",
          sender_email: "cfo@bigcorp.example",
          tags: ["vip"]
        })
        yield* settled(created.ticket_id)
        const assigned = yield* adminRead(server, projectId, created.ticket_id)
        expect(assigned.assignee?.id).toBe(agent.value.agent_id)
        const reply = yield* contactMessage(server, key, created.ticket_id, "Any update?", "cfo@bigcorp.example")
        expect(reply.status).toBe(201)
        yield* settled(created.ticket_id)
        const ticket = yield* adminRead(server, projectId, created.ticket_id)
        expect(ticket.notifications).toMatchObject([{
          agent: { id: agent.value.agent_id, email: "vip@support.example" },
          reason: "ticket_replied",
          message_id: reply.value.message_id,
          email_status: "not_configured"
        }])
      }))

    it.effect("rules of one event run in creation order, each seeing what the ones before it changed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        const early = yield* createRule(server, projectId, {
          name: "Made before the status changes",
          event: "ticket_created",
          conditions: [{ field: "status", op: "eq", value: "waiting" }],
          actions: [{ type: "add_tag", value: "early" }]
        })
        const setter = yield* createRule(server, projectId, {
          name: "Wait for the customer",
          event: "ticket_created",
          conditions: [{ field: "tags", op: "in", value: ["needs-info"] }],
          actions: [{ type: "set_status", value: "waiting" }, { type: "add_tag", value: "NEEDS-INFO" }]
        })
        const follower = yield* createRule(server, projectId, {
          name: "Tag what waits",
          event: "ticket_created",
          conditions: [{ field: "status", op: "eq", value: "waiting" }, { field: "tags", op: "neq", value: "chained" }],
          actions: [{ type: "add_tag", value: "chained" }, { type: "set_status", value: "waiting" }]
        })
        const created = yield* createTicket(server, key, {
          subject: "Details missing",
          body: "Something is off.",
          tags: ["needs-info"]
        })
        yield* settled(created.ticket_id)
        const ticket = yield* adminRead(server, projectId, created.ticket_id)
        expect(ticket.status).toBe("waiting")
        expect(ticket.tags).toEqual(["chained", "needs-info"])

        const [earlyRuns, setterRuns, followerRuns] = yield* Effect.all([
          runsOf(server, projectId, early),
          runsOf(server, projectId, setter),
          runsOf(server, projectId, follower)
        ])
        expect(earlyRuns.map((run) => run.matched)).toEqual([false])
        expect(setterRuns).toHaveLength(1)
        expect(setterRuns[0]).toMatchObject({
          matched: true,
          // the tag is there already (other spelling): nothing to apply
          actions: [
            { type: "set_status", value: "waiting", applied: true },
            { type: "add_tag", value: "NEEDS-INFO", applied: false }
          ]
        })
        expect(followerRuns).toHaveLength(1)
        expect(followerRuns[0]).toMatchObject({
          matched: true,
          actions: [
            { type: "add_tag", value: "chained", applied: true },
            { type: "set_status", value: "waiting", applied: false }
          ]
        })
      }))

    it.effect("a rule's own change never triggers rules again: no loops", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        yield* registerReceiver(server, projectId)
        const bounce = yield* createRule(server, projectId, {
          name: "Back to waiting",
          event: "ticket_status_changed",
          conditions: [{ field: "status", op: "eq", value: "in_progress" }],
          actions: [{ type: "set_status", value: "waiting" }]
        })
        const pingPong = yield* createRule(server, projectId, {
          name: "Waiting goes to in_progress",
          event: "ticket_status_changed",
          conditions: [{ field: "status", op: "eq", value: "waiting" }],
          actions: [{ type: "set_status", value: "in_progress" }]
        })
        const created = yield* createTicket(server, key, { subject: "Loop", body: "Round and round" })
        yield* settled(created.ticket_id)

        const patched = yield* updateTicket(server, projectId, created.ticket_id, { status: "in_progress" })
        expect(patched.status).toBe(200)
        const jobs = yield* settled(created.ticket_id)
        const ticket = yield* adminRead(server, projectId, created.ticket_id)
        // the second rule sees the first one's change in the same run and sends it back
        const bounceRuns = yield* runsOf(server, projectId, bounce)
        const pingPongRuns = yield* runsOf(server, projectId, pingPong)
        expect(bounceRuns).toHaveLength(1)
        expect(bounceRuns[0]).toMatchObject({
          event: "ticket_status_changed",
          matched: true,
          actions: [{ type: "set_status", value: "waiting", applied: true }]
        })
        expect(pingPongRuns).toHaveLength(1)
        expect(pingPongRuns[0]).toMatchObject({
          event: "ticket_status_changed",
          matched: true,
          actions: [{ type: "set_status", value: "in_progress", applied: true }]
        })
        expect(ticket.status).toBe("in_progress")
        // one automation job for the operator's change; the rules' two changes went to webhooks only
        const statusJobs = jobs.filter((job) => job.event === "ticket_status_changed")
        expect(statusJobs.filter((job) => job.kind === "automation")).toHaveLength(1)
        expect((yield* eventsSent(created.ticket_id)).filter((event) => event === "ticket_status_changed")).toHaveLength(3)
      }))

    it.effect("a ticket_status_changed rule that sets the status back runs once for the change", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        const ruleId = yield* createRule(server, projectId, {
          name: "Agents may not start work",
          event: "ticket_status_changed",
          conditions: [{ field: "status", op: "eq", value: "in_progress" }],
          actions: [{ type: "set_status", value: "waiting" }]
        })
        const created = yield* createTicket(server, key, { subject: "Status", body: "Will it settle?" })
        yield* settled(created.ticket_id)
        const patched = yield* updateTicket(server, projectId, created.ticket_id, { status: "in_progress" })
        expect(patched.status).toBe(200)
        yield* settled(created.ticket_id)
        const ticket = yield* adminRead(server, projectId, created.ticket_id)
        expect(ticket.status).toBe("waiting")
        const runs = yield* runsOf(server, projectId, ruleId)
        expect(runs).toHaveLength(1)
        expect(runs[0]).toMatchObject({
          ticket_id: created.ticket_id,
          event: "ticket_status_changed",
          matched: true,
          actions: [{ type: "set_status", value: "waiting", applied: true }]
        })
        // and nothing is still waiting to run for the ticket: the count is final
        const left = yield* jobsOf(created.ticket_id)
        expect(left.filter((job) => job.status !== "done")).toEqual([])
      }))
  })
})
