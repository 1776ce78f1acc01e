/**
 * Service levels through the operator API on both databases: business hours and policies (their
 * validation, positions, other projects' ids), policies matched in order by tag, priority,
 * category and custom field, and the due times in the operator read and list (filters, the
 * `sla_due` order and its cursors).
 */
import { layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { Notifier } from "../../src/Notifier/Notifier.ts"
import { describe, expect } from "vitest"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"
import { triageMock } from "../support/TriageMock.ts"

const edge = Layer.mergeAll(
  triageMock().layer,
  ErrorTracker.none,
  Layer.succeed(Notifier, Notifier.of({ notify: () => Effect.void }))
)

const call = (server: TestServerShape, method: string, path: string, body?: unknown) =>
  Effect.promise(() => server.request(method, path, { key: adminToken, ...(body === undefined ? {} : { body }) }))

const nineToFive = [{ start: "09:00", end: "17:00" }]
const hours = {
  time_zone: "Europe/Berlin",
  weekly: { monday: nineToFive, tuesday: nineToFive, wednesday: nineToFive, thursday: nineToFive, friday: nineToFive },
  holidays: ["2026-12-25"]
}

const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe.each(databaseKinds)("service levels through the operator API on %s", (kind) => {
  // triage that calls every ticket a question, so only the tests' own changes move categories
  layer(testServer(kind, {}, undefined, { pipeline: edge }), { excludeTestServices: true })((it) => {
    it.effect("keeps a project's business hours, refusing what cannot be measured in", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId } = yield* createProject(server)
        const path = `/v1/admin/projects/${projectId}/business-hours`

        const unset = yield* call(server, "GET", path)
        expect(unset.status).toBe(404)
        expect(unset.body.error.message).toBe("business hours are not set for this project")

        const bad = [
          [{ ...hours, time_zone: "Europe/Atlantis" }, "time_zone must be an IANA time zone, e.g. Europe/Berlin"],
          [{ ...hours, weekly: {} }, "weekly must have hours on at least one day"],
          [{ ...hours, weekly: { monday: [{ start: "17:00", end: "09:00" }] } }, "weekly.monday[0] start must be before end"],
          [{ ...hours, weekly: { monday: [{ start: "9", end: "17:00" }] } }, "weekly.monday[0].start must be a time HH:MM"],
          [{ ...hours, holidays: ["2026-13-01"] }, "holidays[0] must be a date YYYY-MM-DD"],
          [{ weekly: hours.weekly, holidays: [] }, "time_zone"],
          ["every day", "request body must be a JSON object"]
        ] as const
        for (const [body, message] of bad) {
          const refused = yield* call(server, "PUT", path, body)
          expect(refused.status, JSON.stringify(body)).toBe(400)
          expect(refused.body.error.code).toBe("VALIDATION_ERROR")
          expect(refused.body.error.message).toContain(message)
        }
        expect((yield* call(server, "GET", path)).status, "nothing was stored").toBe(404)

        const stored = yield* call(server, "PUT", path, hours)
        expect(stored.status).toBe(200)
        expect(stored.body).toEqual({
          time_zone: "Europe/Berlin",
          weekly: { ...hours.weekly, saturday: [], sunday: [] },
          holidays: ["2026-12-25"]
        })
        expect((yield* call(server, "GET", path)).body).toEqual(stored.body)

        const unknown = yield* call(server, "PUT", `/v1/admin/projects/${crypto.randomUUID()}/business-hours`, hours)
        expect(unknown.status).toBe(404)
        const withKey = yield* Effect.promise(() =>
          server.request("GET", path, { key: "tf_not_the_admin_token" })
        )
        expect(withKey.status).toBe(401)
      }))

    it.effect("creates, orders, changes and deletes policies; bad input is 400 and changes nothing; other projects' ids are 404", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId } = yield* createProject(server)
        const other = yield* createProject(server, "Other")
        const base = `/v1/admin/projects/${projectId}/sla-policies`

        const first = yield* call(server, "POST", base, { name: "Default", first_response_minutes: 480 })
        expect(first.status).toBe(201)
        expect(first.body).toEqual({
          policy_id: expect.any(String),
          name: "Default",
          position: 1,
          conditions: [],
          first_response_minutes: 480,
          resolution_minutes: null,
          hours: "calendar",
          pause_when_waiting: true,
          created_at: expect.stringMatching(iso)
        })
        const urgent = yield* call(server, "POST", base, {
          name: "Urgent",
          conditions: [{ field: "priority", op: "eq", value: "p1_critical" }],
          first_response_minutes: 30,
          resolution_minutes: 240,
          pause_when_waiting: false,
          position: 1
        })
        expect(urgent.status).toBe(201)
        expect(urgent.body.position).toBe(1)

        const bad = [
          [{ first_response_minutes: 10 }, "name is required"],
          [{ name: "No targets" }, "first_response_minutes or resolution_minutes is required"],
          [{ name: "Zero", first_response_minutes: 0 }, "first_response_minutes must be an integer from 1 to 525600"],
          [{ name: "Too long", resolution_minutes: 525_601 }, "resolution_minutes must be an integer from 1 to 525600"],
          [{ name: "Fraction", resolution_minutes: 1.5 }, "resolution_minutes must be an integer from 1 to 525600"],
          [{ name: "Text", resolution_minutes: "60" }, "resolution_minutes must be an integer from 1 to 525600"],
          [{ name: "Hours", resolution_minutes: 60, hours: "weekly" }, "hours must be one of calendar, business"],
          [{ name: "Pause", resolution_minutes: 60, pause_when_waiting: "yes" }, "pause_when_waiting must be true or false"],
          [{ name: "Cond", resolution_minutes: 60, conditions: [{ field: "mood", op: "eq", value: "x" }] }, "conditions[0].field must be one of"],
          [
            { name: "Field", resolution_minutes: 60, conditions: [{ field: "custom_fields.colour", op: "eq", value: "x" }] },
            "conditions[0].field custom_fields.colour is not a custom field of this project"
          ],
          [{ name: "Position", resolution_minutes: 60, position: 0 }, "position must be an integer from 1 to 10000"],
          [{ name: "Position", resolution_minutes: 60, position: "first" }, "position must be an integer from 1 to 10000"],
          // no business hours in this project yet
          [{ name: "Business", resolution_minutes: 60, hours: "business" }, "hours business needs the project's business hours"]
        ] as const
        for (const [body, message] of bad) {
          const refused = yield* call(server, "POST", base, body)
          expect(refused.status, JSON.stringify(body)).toBe(400)
          expect(refused.body.error.message).toContain(message)
        }
        const listed = yield* call(server, "GET", base)
        expect(listed.body.policies.map((p: { name: string; position: number }) => [p.name, p.position])).toEqual([
          ["Urgent", 1],
          ["Default", 2]
        ])

        const policy = `${base}/${first.body.policy_id}`
        const changed = yield* call(server, "PATCH", policy, { name: "Everything", resolution_minutes: 2880, position: 1 })
        expect(changed.status).toBe(200)
        expect(changed.body).toMatchObject({ name: "Everything", position: 1, first_response_minutes: 480, resolution_minutes: 2880 })
        const unknownField = yield* call(server, "PATCH", policy, {
          conditions: [{ field: "custom_fields.colour", op: "eq", value: "x" }]
        })
        expect([unknownField.status, unknownField.body.error.message]).toEqual([
          400,
          "conditions[0].field custom_fields.colour is not a custom field of this project"
        ])
        const noTargets = yield* call(server, "PATCH", policy, { first_response_minutes: null, resolution_minutes: null })
        expect(noTargets.status).toBe(400)
        expect(noTargets.body.error.message).toBe("first_response_minutes or resolution_minutes is required")
        expect((yield* call(server, "GET", policy)).body).toEqual(changed.body)

        const reorder = `${base}/order`
        const missing = yield* call(server, "PUT", reorder, { policy_ids: [first.body.policy_id] })
        expect(missing.status).toBe(400)
        expect(missing.body.error.message).toBe("policy_ids must list every policy of the project once")
        const ordered = yield* call(server, "PUT", reorder, { policy_ids: [urgent.body.policy_id, first.body.policy_id] })
        expect(ordered.status).toBe(200)
        expect(ordered.body.policies.map((p: { name: string }) => p.name)).toEqual(["Urgent", "Everything"])

        // another project's policy, a malformed id, an unknown project: not found
        const elsewhere = `/v1/admin/projects/${other.projectId}/sla-policies/${first.body.policy_id}`
        for (const [method, path] of [
          ["GET", elsewhere],
          ["PATCH", elsewhere],
          ["DELETE", elsewhere],
          ["GET", `${base}/not-an-id`],
          ["GET", `/v1/admin/projects/${crypto.randomUUID()}/sla-policies`]
        ] as const) {
          const refused = yield* call(server, method, path, method === "PATCH" ? { name: "Mine" } : undefined)
          expect(refused.status, `${method} ${path}`).toBe(404)
          expect(refused.body.error.code).toBe("NOT_FOUND")
        }
        const otherOrder = yield* call(server, "PUT", `/v1/admin/projects/${other.projectId}/sla-policies/order`, {
          policy_ids: [first.body.policy_id]
        })
        expect(otherOrder.status).toBe(400)
        expect((yield* call(server, "GET", policy)).body.name).toBe("Everything")

        const removed = yield* call(server, "DELETE", `${base}/${urgent.body.policy_id}`)
        expect(removed.status).toBe(204)
        expect((yield* call(server, "GET", `${base}/${urgent.body.policy_id}`)).status).toBe(404)
        expect((yield* call(server, "GET", base)).body.policies.map((p: { name: string; position: number }) => [p.name, p.position]))
          .toEqual([["Everything", 1]])
      }))

    it.effect("matches the first policy in order by tag, priority, category and custom field; reads and lists show the due times", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key } = yield* createProject(server)
        const field = yield* call(server, "POST", `/v1/admin/projects/${projectId}/custom-fields`, {
          key: "plan",
          label: "Plan",
          type: "select",
          options: ["free", "pro"]
        })
        expect(field.status).toBe(201)
        const base = `/v1/admin/projects/${projectId}/sla-policies`
        const policies = [
          { name: "VIP", conditions: [{ field: "tags", op: "eq", value: "vip" }], first_response_minutes: 15 },
          { name: "Urgent", conditions: [{ field: "priority", op: "eq", value: "p1_critical" }], first_response_minutes: 30 },
          { name: "Billing", conditions: [{ field: "category", op: "eq", value: "billing" }], first_response_minutes: 120 },
          { name: "Pro plan", conditions: [{ field: "custom_fields.plan", op: "eq", value: "pro" }], first_response_minutes: 240 },
          { name: "Low", conditions: [{ field: "priority", op: "eq", value: "p4_low" }], resolution_minutes: 10_080 }
        ]
        for (const policy of policies) expect((yield* call(server, "POST", base, policy)).status).toBe(201)

        const create = (subject: string, extra: Record<string, unknown>) =>
          Effect.map(
            Effect.promise(() =>
              server.request("POST", "/v1/tickets", { key, body: { subject, body: `${subject}, in detail`, ...extra } })
            ),
            (response) => {
              expect(response.status, JSON.stringify(response.body)).toBe(202)
              return response.body.ticket_id as string
            }
          )
        const vip = yield* create("VIP and urgent", { tags: ["VIP"], priority: "p1_critical" })
        const urgent = yield* create("Urgent", { priority: "p1_critical" })
        const pro = yield* create("Pro", { priority: "p3_medium", custom_fields: { plan: "pro" } })
        const billing = yield* create("Billing later", { priority: "p3_medium" })
        const low = yield* create("Low", { priority: "p4_low" })
        const none = yield* create("No policy", { priority: "p2_high" })

        const read = (ticketId: string) => Effect.map(call(server, "GET", `/v1/admin/projects/${projectId}/tickets/${ticketId}`), (r) => r.body)
        const slaOf = (ticketId: string, what: string, done: (sla: any) => boolean) =>
          eventually(what, Effect.map(read(ticketId), (ticket) => ({ done: done(ticket.sla), value: ticket.sla })))

        const vipSla = yield* slaOf(vip, "the VIP policy", (sla) => sla !== null)
        expect(vipSla).toEqual({
          policy_id: expect.any(String),
          policy_name: "VIP",
          first_response: { due_at: expect.stringMatching(iso), met_at: null, breached_at: null },
          resolution: null
        })
        const vipTicket = yield* read(vip)
        expect(Date.parse(vipSla.first_response.due_at) - Date.parse(vipTicket.created_at)).toBe(15 * 60_000)
        expect((yield* slaOf(urgent, "the urgent policy", (sla) => sla !== null)).policy_name).toBe("Urgent")
        expect((yield* slaOf(pro, "the pro plan policy", (sla) => sla !== null)).policy_name).toBe("Pro plan")
        const lowSla = yield* slaOf(low, "the low policy", (sla) => sla !== null)
        expect(lowSla.first_response).toBeNull()
        expect(lowSla.resolution).toMatchObject({ met_at: null, breached_at: null, paused: false })

        // triage has run for every ticket once the last has its SLA; these match nothing
        yield* slaOf(billing, "triage of the billing ticket", () => true)
        expect((yield* read(none)).sla).toBeNull()

        // a change of category moves the ticket to the billing policy
        const update = yield* call(server, "PATCH", `/v1/admin/projects/${projectId}/tickets/${billing}`, { category: "billing" })
        expect(update.status).toBe(200)
        expect((yield* slaOf(billing, "the billing policy", (sla) => sla?.policy_name === "Billing")).first_response.due_at)
          .toMatch(iso)
        // the first public reply meets the target
        const reply = yield* call(server, "POST", `/v1/admin/projects/${projectId}/tickets/${urgent}/messages`, { body: "On it" })
        expect(reply.status).toBe(201)
        const met = yield* slaOf(urgent, "the reply to meet the target", (sla) => sla?.first_response?.met_at !== null)
        expect(met.first_response.met_at).toMatch(iso)

        // the list: due soonest first, met and SLA-less tickets last, two a page
        const list = (query: string) => call(server, "GET", `/v1/admin/projects/${projectId}/tickets?${query}`)
        const pages: Array<Array<string>> = []
        let cursor: string | null = null
        do {
          const page: any = yield* list(`sort=sla_due&limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
          expect(page.status, JSON.stringify(page.body)).toBe(200)
          pages.push(page.body.tickets.map((t: { subject: string }) => t.subject))
          cursor = page.body.next_cursor
        } while (cursor !== null && pages.length < 10)
        expect(pages.flat().slice(0, 4)).toEqual(["VIP and urgent", "Billing later", "Pro", "Low"])
        expect(new Set(pages.flat())).toEqual(new Set(["VIP and urgent", "Billing later", "Pro", "Low", "Urgent", "No policy"]))
        expect(pages.map((page) => page.length)).toEqual([2, 2, 2])

        const all = (yield* list("limit=100")).body.tickets as Array<any>
        const item = (subject: string) => all.find((t) => t.subject === subject)
        expect(item("VIP and urgent")).toMatchObject({ sla_due_at: vipSla.first_response.due_at, sla_breached: false })
        expect(item("Urgent")).toMatchObject({ sla_due_at: null, sla_breached: false })
        expect(item("No policy")).toMatchObject({ sla_due_at: null, sla_breached: false })

        // at risk within 20 minutes: the VIP ticket alone; within 3 hours: the billing one too
        const subjects = (body: any) => body.tickets.map((t: { subject: string }) => t.subject).sort()
        expect(subjects((yield* list("sla=at_risk&sla_within=20")).body)).toEqual(["VIP and urgent"])
        expect(subjects((yield* list("sla=at_risk&sla_within=180")).body)).toEqual(["Billing later", "VIP and urgent"])
        expect(subjects((yield* list("sla=at_risk")).body)).toEqual(["VIP and urgent"])
        expect((yield* list("sla=breached")).body.tickets).toEqual([])

        for (const [query, message] of [
          ["sla=late", "sla must be one of breached, at_risk"],
          ["sla=at_risk&sla_within=0", "sla_within must be from 1 to 525600"],
          ["sla=at_risk&sla_within=soon", "sla_within must be an integer number of minutes"],
          ["sort=sla", "sort must be one of created, updated, sla_due"]
        ] as const) {
          const refused = yield* list(query)
          expect(refused.status, query).toBe(400)
          expect(refused.body.error.message).toContain(message)
        }
        // a cursor of the sla_due order is refused in another order
        const firstPage = yield* list("sort=sla_due&limit=1")
        const wrong = yield* list(`sort=updated&cursor=${encodeURIComponent(firstPage.body.next_cursor)}`)
        expect(wrong.status).toBe(400)
      }), { timeout: 60_000 })
  })
})
