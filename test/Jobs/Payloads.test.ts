/**
 * Job payloads over the real database: each kind's payload, written by the call sites that queue it,
 * is stored as it always was and comes back from a claim decoded as that kind's; a row whose payload
 * does not decode fails once, for good, with the reason, while the jobs beside it run.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Logger, References } from "effect"
import { SqlClient } from "effect/sql"
import * as Events from "../../src/Domain/Events.ts"
import { DeliveryId, ProjectId } from "../../src/Domain/Ids.ts"
import { contactNotifyJob, eventJobs, JobKinds, notifyJob, ticketCreatedJobs } from "../../src/Domain/Jobs.ts"
import { enqueue } from "../../src/Jobs/Outbox.ts"
import { JobsRepo } from "../../src/Jobs/Repo.ts"
import { JobHandlers, RunnerLive } from "../../src/Jobs/Runner.ts"
import { WebhooksRepo } from "../../src/Webhooks/Repo.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"

const pause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** A project with a ticket, a webhook for new tickets and a rule on replies, and a reply's event. */
const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('payloads') RETURNING id`
  const projectId = ProjectId.make(project!.id)
  const now = new Date().toISOString()
  const [ticket] = yield* sql<{ id: string }>`
    INSERT INTO tickets (project_id, ticket_number, subject, body, sender_email, created_at)
    VALUES (${projectId}, 1, 'Every kind', 'One job of each', 'ann@example.com', ${now}) RETURNING id`
  const ticketId = ticket!.id
  yield* sql`INSERT INTO automation_rules (project_id, name, event, conditions, actions)
             VALUES (${projectId}, 'on replies', 'ticket_replied', '[]'::jsonb, '[]'::jsonb)`
  const created = Events.ticketCreated({
    id: ticketId,
    project_id: projectId,
    subject: "Every kind",
    status: "open",
    priority: "p3_medium",
    sender_email: "ann@example.com",
    created_at: now
  })
  const replied = Events.ticketReplied({
    ticket_id: ticketId,
    project_id: projectId,
    message_id: crypto.randomUUID(),
    author_type: "contact",
    author_name: null,
    body: "Any news?",
    contact_email: "ann@example.com",
    attachments: [],
    created_at: now
  })
  return { sql, projectId, ticketId, now, created, replied }
})

describe.each(databaseKinds)("job payloads on %s", (kind) => {
  const repos = Layer.mergeAll(JobsRepo.layer, WebhooksRepo.layer).pipe(Layer.provideMerge(databaseLayer(kind)))

  layer(repos, { excludeTestServices: true })((it) => {
    it.effect("come back from a claim as their kind's payload, stored in the jobs table as before", () =>
      Effect.gen(function*() {
        const { created, now, projectId, replied, sql, ticketId } = yield* seed
        const webhooks = yield* WebhooksRepo
        const repo = yield* JobsRepo
        const hook = yield* webhooks.insert(projectId, {
          url: "https://example.com/hooks",
          events: ["ticket_created"],
          secret: "s".repeat(32),
          retrySchedule: "default",
          maxPerSecond: null
        }, Date.parse("2026-11-28T10:00:00.000Z"))
        const agentId = crypto.randomUUID()
        const contactId = crypto.randomUUID()
        const messageId = crypto.randomUUID()
        yield* enqueue(sql, [
          ...ticketCreatedJobs(created, { errorTracker: true }),
          ...eventJobs(replied),
          notifyJob({ projectId, ticketId, agentId, messageId: null, reason: "ticket_replied" }, now),
          contactNotifyJob({ projectId, ticketId, contactId, messageId, reason: "agent_replied" }, now)
        ])
        const [delivery] = yield* sql<{ id: string }>`SELECT id FROM webhook_deliveries`
        const deliveryId = DeliveryId.make(delivery!.id)
        // a person's redelivery queues its job in SQL of its own: it must decode all the same
        yield* webhooks.redeliver(projectId, hook.webhook_id, deliveryId, Date.parse(now))

        const createdText = JSON.stringify(created)
        const repliedText = JSON.stringify(replied)
        const stored = yield* sql<{ kind: string; payload: unknown }>`SELECT kind, payload FROM jobs ORDER BY kind, payload::text`
        expect(stored).toEqual([
          { kind: "automation", payload: { kind: "ticket_replied", body: repliedText } },
          { kind: "contact_notify", payload: { contact_id: contactId, message_id: messageId, reason: "agent_replied" } },
          { kind: "duplicate_check", payload: {} },
          { kind: "error_link", payload: {} },
          { kind: "notify", payload: { agent_id: agentId, message_id: null, reason: "ticket_replied" } },
          { kind: "triage", payload: { kind: "ticket_created", body: createdText } },
          { kind: "webhook_delivery", payload: { delivery_id: deliveryId } },
          { kind: "webhook_delivery", payload: { delivery_id: deliveryId, once: true } }
        ])

        const claimed = yield* repo.claim({
          now: Date.parse(now) + 1_000,
          leaseUntil: Date.parse(now) + 60_000,
          owner: "payload test",
          limits: JobKinds.map((kind) => ({ kind, limit: 10 }))
        })
        expect(claimed.undecodable).toEqual([])
        const payloads = claimed.jobs.map(({ kind, payload }) => ({ kind, payload }))
        expect(payloads).toHaveLength(stored.length)
        expect(payloads).toEqual(expect.arrayContaining([
          // the event's text as written: receivers see its keys in the order they were made
          { kind: "triage", payload: { kind: "ticket_created", body: createdText } },
          { kind: "duplicate_check", payload: {} },
          { kind: "error_link", payload: {} },
          { kind: "webhook_delivery", payload: { delivery_id: deliveryId } },
          { kind: "webhook_delivery", payload: { delivery_id: deliveryId, once: true } },
          { kind: "automation", payload: { kind: "ticket_replied", body: repliedText, event: replied } },
          { kind: "notify", payload: { agent_id: agentId, message_id: null, reason: "ticket_replied" } },
          { kind: "contact_notify", payload: { contact_id: contactId, message_id: messageId, reason: "agent_replied" } }
        ]))
        const triage = claimed.jobs.find((job) => job.kind === "triage")
        expect(triage).toMatchObject({ projectId, ticketId, attempts: 1 })
      }))
  })

  it.live("fails a job whose payload does not decode once, for good, and runs the others", () =>
    Effect.gen(function*() {
      const shared = yield* Layer.build(databaseLayer(kind, { JOB_POLL_INTERVAL: "100ms" }))
      const { now, projectId, replied, sql, ticketId } = yield* seed.pipe(Effect.provideContext(shared))
      const ran: Array<string> = []
      const warnings: Array<{ readonly message: string; readonly jobId: unknown }> = []
      const captureWarnings = Logger.layer([
        Logger.make(({ fiber, logLevel, message }) => {
          if (logLevel !== "Warn") return
          warnings.push({
            message: String(Array.isArray(message) ? message.join(" ") : message),
            jobId: fiber.getRef(References.CurrentLogAnnotations).job_id
          })
        })
      ])
      yield* Layer.build(RunnerLive.pipe(
        Layer.provide(Layer.succeed(JobHandlers, {
          notify: (job) => Effect.sync(() => void ran.push(`notify ${job.payload.agent_id}`)),
          automation: (job) => Effect.sync(() => void ran.push(`automation ${job.payload.event.event}`))
        })),
        Layer.provide(JobsRepo.layer),
        Layer.provide(Layer.succeedContext(shared)),
        Layer.provide(captureWarnings)
      ))
      // rows no call site writes: by hand, or by a later version with another shape
      const undecodable = yield* sql<{ id: string }>`
        INSERT INTO jobs (kind, project_id, ticket_id, payload, run_at) VALUES
          ('notify', ${projectId}, ${ticketId}, '{"agent": "ann", "reason": "ticket_replied"}'::jsonb, ${now}),
          ('automation', ${projectId}, ${ticketId}, '{"kind": "ticket_replied", "body": "not json"}'::jsonb, ${now})
        RETURNING id`
      const agents = [crypto.randomUUID(), crypto.randomUUID()]
      yield* enqueue(sql, [
        ...agents.map((agentId) => notifyJob({ projectId, ticketId, agentId, messageId: null, reason: "ticket_replied" }, now)),
        ...eventJobs(replied)
      ])

      const unfinished = sql<{ n: number }>`SELECT count(*)::int AS n FROM jobs WHERE status IN ('pending', 'running')`
      yield* eventually("every job to finish", Effect.map(unfinished, ([row]) => ({ done: row!.n === 0, value: row!.n })))
      // several polls later, the failed ones have not been claimed again
      yield* pause(500)
      const rows = yield* sql<{ id: string; kind: string; status: string; attempts: number; last_error: string | null }>`
        SELECT id, kind, status, attempts, last_error FROM jobs ORDER BY kind, status`
      const failed = rows.filter((row) => row.status === "failed")
      expect(failed.map((row) => row.id).sort()).toEqual(undecodable.map((row) => row.id).sort())
      expect(failed.map(({ attempts, kind }) => ({ kind, attempts }))).toEqual([
        { kind: "automation", attempts: 1 },
        { kind: "notify", attempts: 1 }
      ])
      expect(failed[0]!.last_error).toMatch(/^its payload does not decode: Expected a valid JSON string\s+at \["payload"\]\["event"\]/)
      expect(failed[1]!.last_error).toMatch(/^its payload does not decode: Missing key\s+at \["payload"\]\["agent_id"\]/)
      expect(rows.filter((row) => row.status === "done")).toHaveLength(3)
      expect(ran.sort()).toEqual(["automation ticket_replied", ...agents.map((agentId) => `notify ${agentId}`).sort()])
      for (const { id } of undecodable) {
        const logged = warnings.filter((warning) => warning.jobId === id)
        expect(logged, "one warning for each undecodable job").toHaveLength(1)
        expect(logged[0]!.message).toMatch(/^job failed for good after 1 attempts: its payload does not decode/)
      }
    }), { timeout: 30_000 })
})
