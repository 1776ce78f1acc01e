// Custom fields through the running service, on both databases: their definitions in the
// operator API; values checked on create and on an agent's change, shown in every read, filtered
// and sorted in the operator list, matched by automation and carried by ticket_created.
import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect } from "vitest"
import type { CreateCustomFieldInput } from "../../src/Domain/CustomField.ts"
import { type CreateTicketInput, TicketOrders } from "../../src/Domain/Ticket.ts"
import { adminRead, createTicket, settled, withStatus } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { stubServer } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const call = (server: TestServerShape, ...args: Parameters<TestServerShape["request"]>) =>
  Effect.promise(() => server.request(...args))

const asAdmin = (server: TestServerShape) => server.api(adminToken)

const fieldsPath = (projectId: string) => `/v1/admin/projects/${projectId}/custom-fields`

const defineField = (server: TestServerShape, projectId: string, payload: CreateCustomFieldInput) =>
  Effect.flatMap(asAdmin(server), (admin) => admin.customFields.create({ params: { pid: projectId }, payload })).pipe(
    Effect.orDie
  )

/** The five kinds of field a test project has. */
const defineAll = (server: TestServerShape, projectId: string) =>
  Effect.gen(function*() {
    yield* defineField(server, projectId, { key: "plan", label: "Plan", type: "select", options: ["free", "pro"] })
    yield* defineField(server, projectId, { key: "seats", label: "Seats", type: "number" })
    yield* defineField(server, projectId, { key: "renewal", label: "Renewal", type: "date" })
    yield* defineField(server, projectId, { key: "vip", label: "VIP", type: "boolean" })
    yield* defineField(server, projectId, { key: "account", label: "Account", type: "text" })
  })

const ticketCount = (projectId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM tickets WHERE project_id = ${projectId}`.pipe(
      Effect.map((rows) => Number(rows[0]!.n)),
      Effect.orDie
    ))

const storedValues = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ custom_fields: unknown }>`SELECT custom_fields FROM tickets WHERE id = ${ticketId}`.pipe(
      Effect.map((rows) => rows[0]!.custom_fields),
      Effect.orDie
    ))

const ticket = (subject: string, customFields?: CreateTicketInput["custom_fields"]): CreateTicketInput =>
  customFields === undefined
    ? { subject, body: `${subject}, in detail` }
    : { subject, body: `${subject}, in detail`, custom_fields: customFields }

/** Every page of the operator list for `query`, following the cursors, as ticket subjects. */
const allPages = (server: TestServerShape, projectId: string, query: string, limit: number) =>
  Effect.gen(function*() {
    const subjects: Array<string> = []
    const pages: Array<number> = []
    let cursor: string | null = null
    do {
      const path: string = `/v1/admin/projects/${projectId}/tickets?${query}&limit=${limit}${
        cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`
      }`
      const response = yield* call(server, "GET", path, { key: adminToken })
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      subjects.push(...response.body.tickets.map((t: { subject: string }) => t.subject))
      pages.push(response.body.tickets.length)
      cursor = response.body.next_cursor
    } while (cursor !== null && pages.length < 20)
    return { subjects, pages }
  })

const listSubjects = (server: TestServerShape, projectId: string, query: string) =>
  Effect.map(allPages(server, projectId, query, 100), ({ subjects }) => subjects)

describe.each(databaseKinds)("custom fields on %s", (kind) => {
  layer(testServer(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" }, undefined, { pipeline: "live" }), {
    excludeTestServices: true
  })((it) => {
    it.effect("defines, lists, changes and deletes a project's fields, and refuses what does not fit", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        const other = yield* createProject(server, "Other")
        const admin = yield* asAdmin(server)

        const created = yield* withStatus(admin.customFields.create({
          params: { pid: projectId },
          payload: { key: "plan", label: "Plan", type: "select", options: ["free", "pro"] },
          responseMode: "decoded-and-response"
        }))
        expect(created.status).toBe(201)
        expect(created.value).toEqual({
          field_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          key: "plan",
          label: "Plan",
          type: "select",
          options: ["free", "pro"],
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        })
        const seats = yield* defineField(server, projectId, { key: "seats", label: "Seats", type: "number" })
        expect(seats.options).toBeNull()

        const cases: ReadonlyArray<readonly [string, unknown, number, string]> = [
          ["a taken key", { key: "plan", label: "Plan again", type: "text" }, 409, "a custom field with key plan exists"],
          [
            "a key with capitals",
            { key: "Plan", label: "x", type: "text" },
            400,
            "key must start with a lowercase letter and hold at most 50 lowercase letters, digits and underscores"
          ],
          ["an empty label", { key: "region", label: "  ", type: "text" }, 400, "label is required"],
          ["a label of 101", { key: "region", label: "x".repeat(101), type: "text" }, 400, "label must be at most 100 characters"],
          [
            "an unknown type",
            { key: "region", label: "Region", type: "colour" },
            400,
            "type must be one of text, number, boolean, date, select"
          ],
          ["a select without options", { key: "region", label: "Region", type: "select" }, 400, "options is required for a field of type select"],
          ["options on text", { key: "region", label: "Region", type: "text", options: ["eu"] }, 400, "options apply only to a field of type select"],
          ["no options", { key: "region", label: "Region", type: "select", options: [] }, 400, "options must hold at least one option"],
          ["a repeated option", { key: "region", label: "Region", type: "select", options: ["eu", "eu"] }, 400, "options must not repeat an option"],
          ["an empty option", { key: "region", label: "Region", type: "select", options: ["eu", " "] }, 400, "options[1] is required"]
        ]
        for (const [what, body, status, message] of cases) {
          const response = yield* call(server, "POST", fieldsPath(projectId), { key: adminToken, body })
          expect({ what, status: response.status, message: response.body?.error?.message }).toEqual({ what, status, message })
        }

        // label and options change; the type never does, and saying the same type is fine
        const fieldPath = `${fieldsPath(projectId)}/${created.value.field_id}`
        const renamed = yield* call(server, "PATCH", fieldPath, {
          key: adminToken,
          body: { label: "Subscription", options: ["free", "pro", "enterprise"], type: "select" }
        })
        expect(renamed.status).toBe(200)
        expect(renamed.body).toMatchObject({ key: "plan", label: "Subscription", options: ["free", "pro", "enterprise"] })
        const retyped = yield* call(server, "PATCH", fieldPath, { key: adminToken, body: { type: "text" } })
        expect(retyped.status).toBe(409)
        expect(retyped.body.error.message).toBe(
          "the type of a custom field cannot change (plan is select); delete it and create another"
        )
        const optionsOnNumber = yield* call(server, "PATCH", `${fieldsPath(projectId)}/${seats.field_id}`, {
          key: adminToken,
          body: { options: ["1"] }
        })
        expect(optionsOnNumber.status).toBe(400)

        const listed = yield* admin.customFields.list({ params: { pid: projectId } })
        expect(listed.custom_fields.map((field) => [field.key, field.label])).toEqual([["plan", "Subscription"], ["seats", "Seats"]])
        expect((yield* admin.customFields.list({ params: { pid: other.projectId } })).custom_fields).toEqual([])

        // another project's field, an unknown one, a malformed id, an unknown project: 404
        for (const [pid, fid] of [
          [other.projectId, created.value.field_id],
          [projectId, crypto.randomUUID()],
          [projectId, "nope"],
          [crypto.randomUUID(), created.value.field_id]
        ] as const) {
          const patched = yield* call(server, "PATCH", `${fieldsPath(pid)}/${fid}`, { key: adminToken, body: { label: "x" } })
          expect(patched.status, `${pid}/${fid}`).toBe(404)
          const removed = yield* call(server, "DELETE", `${fieldsPath(pid)}/${fid}`, { key: adminToken })
          expect(removed.status, `${pid}/${fid}`).toBe(404)
        }
        // a project key is no operator
        expect((yield* call(server, "GET", fieldsPath(projectId), { key })).status).toBe(401)

        // deleting a field takes its values off the tickets; the key can be made again, empty
        const filed = yield* createTicket(server, key, ticket("With a plan", { plan: "pro", seats: 3 }))
        const removed = yield* call(server, "DELETE", fieldPath, { key: adminToken })
        expect(removed.status).toBe(204)
        expect((yield* adminRead(server, projectId, filed.ticket_id)).custom_fields).toEqual({ seats: 3 })
        yield* call(server, "DELETE", `${fieldsPath(projectId)}/${seats.field_id}`, { key: adminToken })
        expect(yield* storedValues(filed.ticket_id)).toBeNull()
        const again = yield* call(server, "POST", fieldsPath(projectId), {
          key: adminToken,
          body: { key: "plan", label: "Plan", type: "text" }
        })
        expect(again.status).toBe(201)
        expect((yield* adminRead(server, projectId, filed.ticket_id)).custom_fields).toEqual({})
      }))

    it.effect("a project has at most 50 fields", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId } = yield* createProject(server)
        for (let i = 0; i < 50; i++) yield* defineField(server, projectId, { key: `f${i}`, label: `F${i}`, type: "text" })
        const response = yield* call(server, "POST", fieldsPath(projectId), {
          key: adminToken,
          body: { key: "one_more", label: "One more", type: "text" }
        })
        expect(response.status).toBe(400)
        expect(response.body.error.message).toBe("a project has at most 50 custom fields; delete one first")
      }))

    it.effect("checks values on create against the project's fields, writes nothing on a 400, and shows them in reads", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key, widgetKey } = yield* createProject(server)
        const other = yield* createProject(server, "Other")
        yield* defineAll(server, projectId)
        yield* defineField(server, other.projectId, { key: "colour", label: "Colour", type: "text" })

        const cases: ReadonlyArray<readonly [string, unknown, string]> = [
          ["a select value not listed", { plan: "gold" }, "custom_fields.plan must be one of free, pro"],
          ["a number as text", { seats: "12" }, "custom_fields.seats must be a number"],
          ["a date in another form", { renewal: "01/03/2027" }, "custom_fields.renewal must be a date (YYYY-MM-DD)"],
          ["a date that does not exist", { renewal: "2027-02-30" }, "custom_fields.renewal must be a date (YYYY-MM-DD)"],
          ["a boolean as text", { vip: "yes" }, "custom_fields.vip must be true or false"],
          ["an empty text", { account: "  " }, "custom_fields.account must be a string of 1 to 1,000 characters"],
          ["a text of 1,001", { account: "x".repeat(1001) }, "custom_fields.account must be a string of 1 to 1,000 characters"],
          ["a text with NUL", { account: "a\u0000b" }, "custom_fields.account must not contain NUL characters"],
          ["another project's field", { colour: "red" }, "custom_fields.colour is not a custom field of this project"],
          ["a key that is no key", { "Not A Key": 1 }, "custom_fields.\"Not A Key\" is not a custom field of this project"],
          ["the second value bad", { plan: "pro", seats: true }, "custom_fields.seats must be a number"],
          ["an object value", { seats: { n: 1 } }, "custom_fields.seats has the wrong type"],
          ["not an object", ["plan"], "custom_fields must be a JSON object of field keys to values"]
        ]
        for (const [what, customFields, message] of cases) {
          for (const k of [key, widgetKey]) {
            const response = yield* call(server, "POST", "/v1/tickets", {
              key: k,
              body: { subject: "Seats", body: "How many?", custom_fields: customFields }
            })
            expect({ what, status: response.status, code: response.body?.error?.code, message: response.body?.error?.message })
              .toEqual({ what, status: 400, code: "VALIDATION_ERROR", message })
          }
        }
        expect(yield* ticketCount(projectId)).toBe(0)

        const values = { plan: "pro", seats: 12.5, renewal: "2027-02-28", vip: false, account: "  ACME-42 " }
        const created = yield* createTicket(server, key, ticket("All five", values))
        const shown = { plan: "pro", seats: 12.5, renewal: "2027-02-28", vip: false, account: "ACME-42" }
        expect((yield* adminRead(server, projectId, created.ticket_id)).custom_fields).toEqual(shown)
        const api = yield* server.api(key)
        const read = yield* api.tickets.get({ params: { id: created.ticket_id }, query: {}, headers: {} })
        expect(read.custom_fields).toEqual(shown)
        const listed = yield* Effect.flatMap(asAdmin(server), (admin) =>
          admin.admin.listTickets({ params: { pid: projectId }, query: {} }))
        expect(listed.tickets[0]!.custom_fields).toEqual(shown)

        // a widget key's create is checked the same way, and null is no value
        const fromWidget = yield* createTicket(server, widgetKey, ticket("From the widget", { plan: "free", seats: null }))
        expect((yield* adminRead(server, projectId, fromWidget.ticket_id)).custom_fields).toEqual({ plan: "free" })

        // none given, or only nulls: nothing stored, `{}` shown
        const plain = yield* createTicket(server, key, ticket("Plain"))
        const onlyNulls = yield* createTicket(server, key, ticket("Only nulls", { seats: null }))
        for (const id of [plain.ticket_id, onlyNulls.ticket_id]) {
          expect(yield* storedValues(id)).toBeNull()
          expect((yield* adminRead(server, projectId, id)).custom_fields).toEqual({})
        }
        // a contact's list shows them too
        const contact = yield* createTicket(server, key, { ...ticket("Mine", { vip: true }), sender_email: "ann@example.com" })
        const mine = yield* api.tickets.list({ query: { contact_email: "ann@example.com" }, headers: {} })
        expect(mine.tickets.map((t) => [t.ticket_id, t.custom_fields])).toEqual([[contact.ticket_id, { vip: true }]])
      }))

    it.effect("agents set and unset values; a bad one changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        const other = yield* createProject(server, "Other")
        yield* defineAll(server, projectId)
        const created = yield* createTicket(server, key, ticket("Agent's", { plan: "free", seats: 2 }))
        const path = `/v1/admin/projects/${projectId}/tickets/${created.ticket_id}`

        const changed = yield* call(server, "PATCH", path, {
          key: adminToken,
          body: { custom_fields: { seats: 20, plan: null, vip: true } }
        })
        expect(changed.status).toBe(200)
        expect(changed.body.custom_fields).toEqual({ seats: 20, vip: true })

        const before = yield* adminRead(server, projectId, created.ticket_id)
        for (
          const [body, message] of [
            [{ custom_fields: { seats: "many" } }, "custom_fields.seats must be a number"],
            [{ status: "waiting", custom_fields: { region: "eu" } }, "custom_fields.region is not a custom field of this project"]
          ] as const
        ) {
          const refused = yield* call(server, "PATCH", path, { key: adminToken, body })
          expect({ status: refused.status, message: refused.body?.error?.message }).toEqual({ status: 400, message })
        }
        const after = yield* adminRead(server, projectId, created.ticket_id)
        expect([after.custom_fields, after.status, after.updated_at]).toEqual([before.custom_fields, before.status, before.updated_at])

        // unsetting every value leaves the column empty again
        const cleared = yield* call(server, "PATCH", path, { key: adminToken, body: { custom_fields: { seats: null, vip: null } } })
        expect(cleared.body.custom_fields).toEqual({})
        expect(yield* storedValues(created.ticket_id)).toBeNull()

        // another project's ticket is not found
        const elsewhere = yield* call(server, "PATCH", `/v1/admin/projects/${other.projectId}/tickets/${created.ticket_id}`, {
          key: adminToken,
          body: { custom_fields: { seats: 1 } }
        })
        expect(elsewhere.status).toBe(404)
      }))

    it.effect("filters the operator list by a field of each type, and refuses a filter that names no field or a bad value", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        const other = yield* createProject(server, "Other")
        yield* defineAll(server, projectId)
        yield* defineField(server, other.projectId, { key: "plan", label: "Plan", type: "select", options: ["free", "pro"] })
        yield* createTicket(server, key, ticket("A", { plan: "pro", seats: 10, renewal: "2027-01-01", vip: true, account: "acme" }))
        yield* createTicket(server, key, ticket("B", { plan: "free", seats: 10.0, renewal: "2027-06-30", vip: false, account: "Acme" }))
        yield* createTicket(server, key, ticket("C", { plan: "pro", seats: 3 }))
        yield* createTicket(server, key, ticket("D"))
        yield* createTicket(server, other.key, ticket("Other's", { plan: "pro" }))

        const filtered = (filter: string, more = "") => listSubjects(server, projectId, `custom_field=${encodeURIComponent(filter)}${more}`)
        expect(yield* filtered("plan:pro")).toEqual(["C", "A"])
        expect(yield* filtered("seats:10")).toEqual(["B", "A"])
        expect(yield* filtered("seats:3.0")).toEqual(["C"])
        expect(yield* filtered("renewal:2027-06-30")).toEqual(["B"])
        expect(yield* filtered("vip:false")).toEqual(["B"])
        expect(yield* filtered("account:acme")).toEqual(["A"])
        // a value may hold colons: the key ends at the first
        expect(yield* filtered("account:acme:eu")).toEqual([])
        // with the other filters, and in another order
        expect(yield* filtered("plan:pro", "&sort=updated")).toEqual(["C", "A"])

        for (
          const [filter, message] of [
            ["colour:red", "custom_field colour is not a custom field of this project"],
            ["seats:many", "custom_field seats must be a number"],
            ["vip:yes", "custom_field vip must be true or false"],
            ["renewal:2027-13-01", "custom_field renewal must be a date (YYYY-MM-DD)"],
            ["plan:gold", "custom_field plan must be one of free, pro"],
            ["plan", "custom_field must be <key>:<value>, the key of a custom field"],
            [":pro", "custom_field must be <key>:<value>, the key of a custom field"]
          ] as const
        ) {
          const response = yield* call(server, "GET", `/v1/admin/projects/${projectId}/tickets?custom_field=${encodeURIComponent(filter)}`, {
            key: adminToken
          })
          expect({ filter, status: response.status, message: response.body?.error?.message }).toEqual({ filter, status: 400, message })
        }
      }))

    it.effect("sorts by a field's value, tickets without one last and ties newest first, across pages", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        yield* defineAll(server, projectId)
        // numbers sort by size (9 before 10), not as text
        const seats: ReadonlyArray<readonly [string, number | null]> = [
          ["s10a", 10],
          ["none1", null],
          ["s9", 9],
          ["s10b", 10],
          ["s-1", -1],
          ["none2", null],
          ["s10c", 10],
          ["s100", 100]
        ]
        for (const [subject, value] of seats) {
          yield* createTicket(server, key, ticket(subject, value === null ? undefined : { seats: value }))
        }
        const expected = ["s-1", "s9", "s10c", "s10b", "s10a", "s100", "none2", "none1"]
        expect(yield* listSubjects(server, projectId, "sort=custom_field:seats")).toEqual(expected)
        for (const limit of [1, 2, 3]) {
          const paged = yield* allPages(server, projectId, "sort=custom_field:seats", limit)
          expect(paged.subjects, `limit ${limit}`).toEqual(expected)
          expect(paged.pages.every((n) => n === limit || n === paged.pages.at(-1))).toBe(true)
        }
        // with a filter, and on text and boolean fields
        yield* createTicket(server, key, ticket("t-beta", { account: "beta", vip: true }))
        yield* createTicket(server, key, ticket("t-alpha", { account: "alpha", vip: false }))
        yield* createTicket(server, key, ticket("t-gamma", { account: "gamma", vip: true }))
        const byAccount = yield* allPages(server, projectId, "sort=custom_field:account", 2)
        expect(byAccount.subjects.slice(0, 3)).toEqual(["t-alpha", "t-beta", "t-gamma"])
        expect(byAccount.subjects).toHaveLength(11)
        const vipOnly = yield* allPages(server, projectId, "sort=custom_field:account&custom_field=vip:true", 1)
        expect(vipOnly.subjects).toEqual(["t-beta", "t-gamma"])
        const byVip = yield* listSubjects(server, projectId, "sort=custom_field:vip")
        expect(byVip.slice(0, 3)).toEqual(["t-alpha", "t-gamma", "t-beta"])

        // a cursor belongs to its sort: another field's, or the created order's, is refused
        const first = yield* call(server, "GET", `/v1/admin/projects/${projectId}/tickets?sort=custom_field:seats&limit=2`, {
          key: adminToken
        })
        const cursor = encodeURIComponent(first.body.next_cursor)
        for (const sort of ["custom_field:account", "created"]) {
          const misused = yield* call(server, "GET", `/v1/admin/projects/${projectId}/tickets?sort=${sort}&limit=2&cursor=${cursor}`, {
            key: adminToken
          })
          expect({ sort, status: misused.status, message: misused.body?.error?.message }).toEqual({
            sort,
            status: 400,
            message: "cursor is not valid"
          })
        }
        for (
          const [sort, message] of [
            ["custom_field:colour", "sort custom_field:colour is not a custom field of this project"],
            ["custom_field:", `sort must be one of ${TicketOrders.join(", ")}, or custom_field:<key>`],
            ["seats", `sort must be one of ${TicketOrders.join(", ")}, or custom_field:<key>`]
          ] as const
        ) {
          const response = yield* call(server, "GET", `/v1/admin/projects/${projectId}/tickets?sort=${sort}`, { key: adminToken })
          expect({ sort, status: response.status, message: response.body?.error?.message }).toEqual({ sort, status: 400, message })
        }
      }))

    it.effect("an automation rule on a custom field fires, and ticket_created carries the values", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        yield* defineAll(server, projectId)
        const hook = yield* stubServer()
        const admin = yield* asAdmin(server)
        yield* admin.webhooks.register({ params: { pid: projectId }, payload: { url: `${hook.url}/hooks` } })

        const refusals: ReadonlyArray<readonly [unknown, string]> = [
          [{ field: "custom_fields.colour", op: "eq", value: "red" }, "conditions[0].field custom_fields.colour is not a custom field of this project"],
          [{ field: "custom_fields.plan", op: "gt", value: "free" }, "conditions[0].op gt compares number and date fields; custom_fields.plan is select"],
          [{ field: "custom_fields.seats", op: "gt", value: "many" }, "conditions[0].value for custom_fields.seats must be a number"],
          [{ field: "custom_fields.plan", op: "in", value: ["pro", "gold"] }, "conditions[0].value for custom_fields.plan must be one of free, pro"],
          [{ field: "status", op: "lt", value: "open" }, "conditions[0].op must be one of eq, neq, in, contains for status; gt and lt compare number and date custom fields"],
          [{ field: "custom_fields.Plan", op: "eq", value: "pro" }, "conditions[0].field must be one of status, priority, category, source, tags, sender_email, message_body, or custom_fields.<key>"]
        ]
        const fine = { field: "custom_fields.plan", op: "eq", value: "pro" }
        for (const [condition, message] of refusals) {
          for (const [conditions, named] of [[[condition], message], [[fine, condition], message.replace("[0]", "[1]")]] as const) {
            const response = yield* call(server, "POST", `/v1/admin/projects/${projectId}/automation-rules`, {
              key: adminToken,
              body: { name: "x", event: "ticket_created", conditions, actions: [{ type: "add_tag", value: "x" }] }
            })
            expect({ status: response.status, message: response.body?.error?.message }).toEqual({ status: 400, message: named })
          }
        }
        expect((yield* admin.automation.list({ params: { pid: projectId } })).rules).toEqual([])

        yield* admin.automation.create({
          params: { pid: projectId },
          payload: {
            name: "Big pro accounts",
            event: "ticket_created",
            conditions: [
              { field: "custom_fields.plan", op: "eq", value: "pro" },
              { field: "custom_fields.seats", op: "gt", value: "9.50" },
              { field: "custom_fields.renewal", op: "lt", value: "2028-01-01" }
            ],
            actions: [{ type: "add_tag", value: "big-pro" }]
          }
        })
        const big = yield* createTicket(server, key, ticket("Big", { plan: "pro", seats: 10, renewal: "2027-05-01" }))
        const small = yield* createTicket(server, key, ticket("Small", { plan: "pro", seats: 9 }))
        const none = yield* createTicket(server, key, ticket("None"))
        for (const id of [big.ticket_id, small.ticket_id, none.ticket_id]) yield* settled(id)
        expect((yield* adminRead(server, projectId, big.ticket_id)).tags).toEqual(["big-pro"])
        expect((yield* adminRead(server, projectId, small.ticket_id)).tags).toEqual([])
        expect((yield* adminRead(server, projectId, none.ticket_id)).tags).toEqual([])

        // ticket_created: custom_fields only when the ticket has values, so a project without
        // them gets exactly the published fields
        const created = yield* eventually(
          "three ticket_created deliveries",
          Effect.sync(() => {
            const bodies = hook.requests
              .filter((request) => request.headers["x-service-event"] === "ticket_created")
              .map((request) => JSON.parse(request.body).data)
            return { done: bodies.length === 3, value: bodies }
          })
        )
        const byId = new Map<string, Record<string, unknown>>(
          created.map((data: Record<string, unknown>) => [String(data.id), data])
        )
        expect(byId.get(big.ticket_id)?.custom_fields).toEqual({ plan: "pro", seats: 10, renewal: "2027-05-01" })
        expect(Object.keys(byId.get(none.ticket_id) ?? {}).sort()).toEqual(
          ["created_at", "id", "priority", "project_id", "sender_email", "status", "subject"]
        )
      }))
  })
})
