/**
 * Service levels over the real pipeline and database with the clock in the test's hands
 * (TestClock): due times across a weekend and a holiday in Europe/Berlin, one breach event per
 * breach with no request touching the ticket, the first reply stopping the first-response clock,
 * waiting pausing the resolution clock and moving its due time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Context, Effect, Layer, Metric } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { ServicesLive } from "../../src/App.ts"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import type { BusinessHours } from "../../src/Domain/BusinessHours.ts"
import type { ProjectId, TicketId } from "../../src/Domain/Ids.ts"
import { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { pipelineLayer } from "../../src/Jobs/Pipeline.ts"
import { Notifier } from "../../src/Notifier/Notifier.ts"
import { slaBreachSeries } from "../../src/Observability/Metrics.ts"
import { Projects } from "../../src/Projects/Projects.ts"
import { Sla } from "../../src/Sla/Sla.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { Webhooks } from "../../src/Webhooks/Webhooks.ts"
import { databaseKinds, freshDatabase, testSettings } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { type Stub, stubServer } from "../support/StubServer.ts"
import { triageMock } from "../support/TriageMock.ts"

const pause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

const nineToFive = [{ start: "09:00", end: "17:00" }]
/** Monday 30 November 2026 is a holiday. */
const berlinHours: BusinessHours = {
  time_zone: "Europe/Berlin",
  weekly: { monday: nineToFive, tuesday: nineToFive, wednesday: nineToFive, thursday: nineToFive, friday: nineToFive },
  holidays: ["2026-11-30"]
}
/** Friday 27 November 2026, 15:00 in Berlin (CET, UTC+1). */
const fridayAfternoon = Date.parse("2026-11-27T14:00:00Z")

const edge = Layer.mergeAll(
  triageMock().layer,
  ErrorTracker.none,
  Layer.succeed(Notifier, Notifier.of({ notify: () => Effect.void }))
)

/** The whole service with its pipeline, built inside the test so every fiber sleeps on its TestClock. */
const service = (kind: (typeof databaseKinds)[number]) =>
  Effect.gen(function*() {
    const env = yield* freshDatabase(kind)
    const config = yield* testSettings({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      JOB_POLL_INTERVAL: "24h",
      JOB_LEASE: "1h",
      ...env
    })
    // the database's own timers (a server pool's idle connections) keep real time: on the test's
    // clock every step of it would close and reopen them
    const db = Database.layer.pipe(
      Layer.provideMerge(Layer.succeed(AppConfig, config)),
      Layer.provide(Layer.succeed(Clock.Clock, Clock.Clock.defaultValue()))
    )
    const context = yield* Layer.build(pipelineLayer(edge).pipe(Layer.provideMerge(ServicesLive), Layer.provideMerge(db)))
    return {
      projects: Context.get(context, Projects),
      tickets: Context.get(context, Tickets),
      sla: Context.get(context, Sla),
      webhooks: Context.get(context, Webhooks),
      sql: Context.get(context, SqlClient.SqlClient)
    }
  })

type Service = Effect.Success<ReturnType<typeof service>>

/** The breach events the receiver got, in order. */
const breachesAt = (hook: Stub) =>
  hook.requests
    .map((request) => JSON.parse(request.body))
    .filter((body) => body.event === "ticket_sla_breached")
    .map((body) => body.data as { id: string; target: string; due_at: string; breached_at: string })

/**
 * A step of a millisecond before each look: a fiber of the runner that went to sleep on the clock
 * while `adjust` was moving it may have set its wake-up inside the step just taken, and it wakes
 * only when the clock moves again.
 */
const nudged = <A, E, R>(probe: Effect.Effect<A, E, R>) => Effect.andThen(TestClock.adjust("1 millis"), probe)

const received = (hook: Stub, n: number) =>
  eventually(`${n} breach events`, nudged(Effect.sync(() => ({ done: breachesAt(hook).length >= n, value: breachesAt(hook) }))))

/** Done once no job that is due by the test's clock waits or runs: whatever the clock made due has run. */
const settled = (svc: Service) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    eventually(
      "the due jobs to run",
      nudged(Effect.map(
        svc.sql<{ kind: string; status: string; run_at: unknown }>`SELECT kind, status, run_at FROM jobs
          WHERE status IN ('pending', 'running') AND run_at <= ${new Date(now).toISOString()}`,
        (rows) => ({ done: rows.length === 0, value: rows })
      ))
    ))

const slaOf = (svc: Service, projectId: ProjectId, ticketId: TicketId) =>
  Effect.map(svc.tickets.adminGet(projectId, ticketId), (ticket) => ticket.sla)

/** Waits for the ticket's SLA to satisfy `done`; returns it. */
const slaWhen = (
  svc: Service,
  projectId: ProjectId,
  ticketId: TicketId,
  what: string,
  done: (sla: Effect.Success<ReturnType<typeof slaOf>>) => boolean
) => eventually(what, Effect.map(slaOf(svc, projectId, ticketId), (sla) => ({ done: done(sla), value: sla })))

const breachCount = (target: string) =>
  Metric.value(slaBreachSeries(target)).pipe(Effect.map((state) => Number(state.count)))

const setup = (svc: Service, hook: Stub) =>
  Effect.gen(function*() {
    const project = yield* svc.projects.create("Service levels")
    const projectId = project.project_id as ProjectId
    yield* svc.webhooks.register(projectId, { url: `${hook.url}/hooks`, events: ["ticket_sla_breached"] })
    yield* svc.sla.putHours(projectId, berlinHours)
    yield* svc.sla.create(projectId, {
      name: "Urgent",
      conditions: [{ field: "priority", op: "eq", value: "p1_critical" }],
      first_response_minutes: 60,
      resolution_minutes: 240,
      hours: "business"
    })
    yield* svc.sla.create(projectId, { name: "Everything else", first_response_minutes: 24 * 60, hours: "calendar" })
    return projectId
  })

describe.each(databaseKinds)("service levels on the clock, on %s", (kind) => {
  it.effect("due times cross the weekend and the holiday; a breach fires once with nothing touching the ticket", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(fridayAfternoon)
      const hook = yield* stubServer()
      const svc = yield* service(kind)
      const projectId = yield* setup(svc, hook)
      const firstBefore = yield* breachCount("first_response")
      const created = yield* svc.tickets.create(projectId, { subject: "Down", body: "Nothing works", priority: "p1_critical" })
      const ticketId = created.ticket_id as TicketId

      // first response: one business hour, Friday 16:00 CET; resolution: four, two on Friday,
      // none on the holiday Monday, two on Tuesday from 09:00 CET, so 11:00 CET
      const sla = yield* slaWhen(svc, projectId, ticketId, "the ticket's SLA", (sla) => sla !== null)
      expect(sla).toEqual({
        policy_id: expect.any(String),
        policy_name: "Urgent",
        first_response: { due_at: "2026-11-27T15:00:00.000Z", met_at: null, breached_at: null },
        resolution: { due_at: "2026-12-01T10:00:00.000Z", met_at: null, breached_at: null, paused: false }
      })

      yield* TestClock.adjust("59 minutes")
      yield* pause(300)
      expect(breachesAt(hook), "nothing is breached a minute before it is due").toEqual([])
      yield* TestClock.adjust("2 minutes")
      const [first] = yield* received(hook, 1)
      expect(first).toEqual({
        id: ticketId,
        project_id: projectId,
        target: "first_response",
        due_at: "2026-11-27T15:00:00.000Z",
        breached_at: "2026-11-27T15:00:00.000Z"
      })
      yield* slaWhen(svc, projectId, ticketId, "the breach in the read", (sla) => sla?.first_response?.breached_at !== null)
      const breached = yield* svc.tickets.list(projectId, { sla: "breached" })
      expect(breached.tickets.map((ticket) => [ticket.ticket_id, ticket.sla_breached, ticket.sla_due_at])).toEqual([
        [ticketId, true, "2026-11-27T15:00:00.000Z"]
      ])
      // the plain list, which reads the SLA row by row, says the same
      const plain = yield* svc.tickets.list(projectId, {})
      expect(plain.tickets.map((ticket) => [ticket.ticket_id, ticket.sla_breached, ticket.sla_due_at])).toEqual([
        [ticketId, true, "2026-11-27T15:00:00.000Z"]
      ])
      expect((yield* svc.tickets.list(projectId, { sla: "at_risk", sla_within: 60 * 24 * 7 })).tickets).toEqual([])

      // later, and a change that looks at the ticket again: the breach does not fire twice
      yield* TestClock.adjust("1 hour")
      yield* svc.tickets.adminUpdate(projectId, ticketId, { category: "bug" })
      yield* pause(500)
      yield* settled(svc)
      expect(breachesAt(hook)).toHaveLength(1)
      expect(yield* breachCount("first_response")).toBe(firstBefore + 1)
      expect((yield* slaOf(svc, projectId, ticketId))?.first_response?.breached_at).toBe("2026-11-27T15:00:00.000Z")
    }), { timeout: 120_000 })

  it.effect("the resolution breach waits over the weekend and the holiday, and fires once", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(fridayAfternoon)
      const hook = yield* stubServer()
      const svc = yield* service(kind)
      const projectId = yield* setup(svc, hook)
      const resolutionBefore = yield* breachCount("resolution")
      const created = yield* svc.tickets.create(projectId, { subject: "Down", body: "Nothing works", priority: "p1_critical" })
      const ticketId = created.ticket_id as TicketId
      yield* slaWhen(svc, projectId, ticketId, "the ticket's SLA", (sla) => sla !== null)
      yield* svc.tickets.addAgentMessage(projectId, ticketId, { body: "On it" })
      yield* slaWhen(svc, projectId, ticketId, "the reply", (sla) => sla?.first_response?.met_at != null)

      // Saturday to Tuesday 10:59 CET: not yet due
      yield* TestClock.adjust("3 days")
      yield* TestClock.adjust("19 hours")
      yield* TestClock.adjust("59 minutes")
      yield* pause(300)
      expect(breachesAt(hook)).toEqual([])
      yield* TestClock.adjust("2 minutes")
      const [breach] = yield* received(hook, 1)
      expect(breach).toMatchObject({ target: "resolution", due_at: "2026-12-01T10:00:00.000Z", breached_at: "2026-12-01T10:00:00.000Z" })
      yield* TestClock.adjust("1 day")
      yield* svc.tickets.adminUpdate(projectId, ticketId, { priority: "p1_critical", category: "bug" })
      yield* pause(500)
      yield* settled(svc)
      expect(breachesAt(hook)).toHaveLength(1)
      expect(yield* breachCount("resolution")).toBe(resolutionBefore + 1)
    }), { timeout: 120_000 })

  it.effect("the first public agent reply meets the first-response target; an internal note does not", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(fridayAfternoon)
      const hook = yield* stubServer()
      const svc = yield* service(kind)
      const projectId = yield* setup(svc, hook)
      const created = yield* svc.tickets.create(projectId, { subject: "Slow", body: "Pages load slowly", priority: "p1_critical" })
      const ticketId = created.ticket_id as TicketId
      yield* slaWhen(svc, projectId, ticketId, "the ticket's SLA", (sla) => sla !== null)

      yield* TestClock.adjust("10 minutes")
      yield* svc.tickets.addAgentMessage(projectId, ticketId, { body: "Looking into it (note)", internal: true })
      yield* pause(300)
      expect((yield* slaOf(svc, projectId, ticketId))?.first_response?.met_at).toBeNull()
      yield* TestClock.adjust("20 minutes")
      yield* svc.tickets.addAgentMessage(projectId, ticketId, { body: "We are on it" })
      const met = yield* slaWhen(svc, projectId, ticketId, "the reply to meet the target", (sla) => sla?.first_response?.met_at != null)
      expect(met?.first_response).toEqual({ due_at: "2026-11-27T15:00:00.000Z", met_at: "2026-11-27T14:30:00.000Z", breached_at: null })

      // past the due time: no first-response breach; the check ran and found the target met
      yield* TestClock.adjust("2 hours")
      yield* pause(500)
      // a claimer that went to sleep while the clock moved wakes on the next step of it
      yield* TestClock.adjust("1 minute")
      yield* settled(svc)
      expect(breachesAt(hook)).toEqual([])
    }), { timeout: 120_000 })

  it.effect("waiting on the customer pauses the resolution clock and moves its due time by the business time it stood", () =>
    Effect.gen(function*() {
      // Tuesday 1 December 09:00 CET: resolution due after four business hours, 13:00 CET
      yield* TestClock.setTime(Date.parse("2026-12-01T08:00:00Z"))
      const hook = yield* stubServer()
      const svc = yield* service(kind)
      const projectId = yield* setup(svc, hook)
      const created = yield* svc.tickets.create(projectId, { subject: "Refund", body: "Please refund", priority: "p1_critical" })
      const ticketId = created.ticket_id as TicketId
      const sla = yield* slaWhen(svc, projectId, ticketId, "the ticket's SLA", (sla) => sla !== null)
      expect(sla?.resolution?.due_at).toBe("2026-12-01T12:00:00.000Z")
      yield* svc.tickets.addAgentMessage(projectId, ticketId, { body: "Which order?" })

      // waiting from 09:30 to 11:30: the due time moves two hours on, to 15:00 CET
      yield* TestClock.adjust("30 minutes")
      yield* svc.tickets.adminUpdate(projectId, ticketId, { status: "waiting" })
      yield* slaWhen(svc, projectId, ticketId, "the pause", (sla) => sla?.resolution?.paused === true)
      const listed = yield* svc.tickets.list(projectId, { sort: "sla_due" })
      expect(listed.tickets[0]).toMatchObject({ ticket_id: ticketId, sla_due_at: null })
      yield* TestClock.adjust("2 hours")
      yield* svc.tickets.adminUpdate(projectId, ticketId, { status: "open" })
      const resumed = yield* slaWhen(svc, projectId, ticketId, "the clock to run again", (sla) => sla?.resolution?.paused === false)
      expect(resumed?.resolution).toEqual({ due_at: "2026-12-01T14:00:00.000Z", met_at: null, breached_at: null, paused: false })

      // past the old due time (13:00 CET) nothing breaches; resolved at 13:30, before the new one: met
      yield* TestClock.adjust("2 hours")
      yield* pause(500)
      yield* settled(svc)
      expect(breachesAt(hook), "the old due time is no due time").toEqual([])
      yield* svc.tickets.adminUpdate(projectId, ticketId, { status: "resolved" })
      const resolved = yield* slaWhen(svc, projectId, ticketId, "the resolution", (sla) => sla?.resolution?.met_at != null)
      // the looks at the queue above moved the clock by a few milliseconds
      expect(resolved?.resolution?.met_at).toMatch(/^2026-12-01T12:30:00\.\d{3}Z$/)
      yield* TestClock.adjust("2 hours")
      yield* pause(500)
      yield* settled(svc)
      expect(breachesAt(hook)).toEqual([])
    }), { timeout: 120_000 })
})
