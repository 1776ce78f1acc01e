import { Clock, Context, DateTime, Effect, Layer, Option } from "effect"
import { matches } from "../Automation/Conditions.ts"
import { type BusinessHours, normalize } from "../Domain/BusinessHours.ts"
import { NotFound, ValidationError } from "../Domain/Errors.ts"
import { ticketSlaBreached } from "../Domain/Events.ts"
import type { ProjectId, SlaPolicyId, TicketId } from "../Domain/Ids.ts"
import { eventJobs, type JobHandler, type NewJob } from "../Domain/Jobs.ts"
import type { CreatePolicyInput, Policy, PolicyOrderInput, UpdatePolicyInput } from "../Domain/Sla.ts"
import { recordSlaBreach } from "../Observability/Metrics.ts"
import { CustomFields } from "../Fields/CustomFields.ts"
import { Projects } from "../Projects/Projects.ts"
import { type PolicyFields, SlaRepo, type StoredPolicy } from "./Repo.ts"
import { type Breach, businessTime, calendarTime, nextState } from "./Targets.ts"

const policyNotFound = new NotFound({ message: "SLA policy not found" })
const hoursNotSet = new NotFound({ message: "business hours are not set for this project" })
const needsHours = new ValidationError({
  message: "hours business needs the project's business hours: set them first (PUT /v1/admin/projects/{pid}/business-hours)"
})

const nowIso = Effect.map(DateTime.now, DateTime.formatIso)
const iso = (millis: number) => new Date(millis).toISOString()

const toPolicy = (row: StoredPolicy): Policy => ({
  policy_id: row.id,
  name: row.name,
  position: row.position,
  conditions: row.conditions,
  first_response_minutes: row.first_response_minutes,
  resolution_minutes: row.resolution_minutes,
  hours: row.hours,
  pause_when_waiting: row.pause_when_waiting,
  created_at: row.created_at
})

/** `ids` with `id` moved to `position` (from 1; past the end is the end). */
const placed = (ids: ReadonlyArray<string>, id: string, position: number) => {
  const others = ids.filter((other) => other !== id)
  return [...others.slice(0, position - 1), id, ...others.slice(position - 1)]
}

/**
 * SLA policies and business hours per project, and the jobs that keep each ticket's due times:
 * `sla_update` after a change that can move them, `sla_check` when one falls due.
 */
export class Sla extends Context.Service<Sla>()("app/Sla", {
  make: Effect.gen(function*() {
    const repo = yield* SlaRepo
    const projects = yield* Projects
    const customFields = yield* CustomFields

    const getHours = Effect.fn("Sla.getHours")(function*(projectId: ProjectId) {
      yield* projects.requireProject(projectId)
      const found = yield* repo.findHours(projectId)
      if (Option.isNone(found)) return yield* hoursNotSet
      return found.value
    })

    const putHours = Effect.fn("Sla.putHours")(function*(projectId: ProjectId, input: BusinessHours) {
      yield* projects.requireProject(projectId)
      const hours = normalize(input)
      yield* repo.putHours(projectId, hours, yield* nowIso)
      return hours
    })

    const checkHours = (projectId: ProjectId, fields: PolicyFields) =>
      fields.hours === "business"
        ? Effect.flatMap(repo.findHours(projectId), (hours) => Option.isNone(hours) ? Effect.fail(needsHours) : Effect.void)
        : Effect.void

    const create = Effect.fn("Sla.create")(function*(projectId: ProjectId, input: CreatePolicyInput) {
      yield* projects.requireProject(projectId)
      const fields: PolicyFields = {
        name: input.name,
        conditions: yield* customFields.checkConditions(projectId, input.conditions ?? []),
        first_response_minutes: input.first_response_minutes ?? null,
        resolution_minutes: input.resolution_minutes ?? null,
        hours: input.hours ?? "calendar",
        pause_when_waiting: input.pause_when_waiting ?? true
      }
      yield* checkHours(projectId, fields)
      return yield* repo.withTransaction(Effect.gen(function*() {
        yield* repo.lockPolicies(projectId)
        const existing = yield* repo.listPolicies(projectId)
        const created = yield* repo.insertPolicy(projectId, fields, existing.length + 1, yield* nowIso)
        if (input.position != null && input.position <= existing.length) {
          yield* repo.renumber(projectId, placed([...existing.map((p) => p.id), created.id], created.id, input.position))
          return toPolicy({ ...created, position: input.position })
        }
        return toPolicy(created)
      }))
    })

    const list = Effect.fn("Sla.list")(function*(projectId: ProjectId) {
      yield* projects.requireProject(projectId)
      return { policies: (yield* repo.listPolicies(projectId)).map(toPolicy) }
    })

    const get = Effect.fn("Sla.get")(function*(projectId: ProjectId, policyId: SlaPolicyId) {
      yield* projects.requireProject(projectId)
      const found = yield* repo.findPolicy(projectId, policyId)
      if (Option.isNone(found)) return yield* policyNotFound
      return toPolicy(found.value)
    })

    const update = Effect.fn("Sla.update")(function*(projectId: ProjectId, policyId: SlaPolicyId, input: UpdatePolicyInput) {
      yield* projects.requireProject(projectId)
      yield* repo.withTransaction(Effect.gen(function*() {
        yield* repo.lockPolicies(projectId)
        const found = yield* repo.findPolicy(projectId, policyId)
        if (Option.isNone(found)) return yield* policyNotFound
        const current = found.value
        const fields: PolicyFields = {
          name: input.name ?? current.name,
          conditions: input.conditions == null
            ? current.conditions
            : yield* customFields.checkConditions(projectId, input.conditions),
          first_response_minutes: input.first_response_minutes === undefined
            ? current.first_response_minutes
            : input.first_response_minutes,
          resolution_minutes: input.resolution_minutes === undefined ? current.resolution_minutes : input.resolution_minutes,
          hours: input.hours ?? current.hours,
          pause_when_waiting: input.pause_when_waiting ?? current.pause_when_waiting
        }
        if (fields.first_response_minutes === null && fields.resolution_minutes === null) {
          return yield* new ValidationError({ message: "first_response_minutes or resolution_minutes is required" })
        }
        yield* checkHours(projectId, fields)
        yield* repo.updatePolicy(policyId, fields)
        if (input.position != null) {
          const ids = (yield* repo.listPolicies(projectId)).map((policy) => policy.id)
          yield* repo.renumber(projectId, placed(ids, policyId, input.position))
        }
      }))
      return yield* get(projectId, policyId)
    })

    const remove = Effect.fn("Sla.remove")(function*(projectId: ProjectId, policyId: SlaPolicyId) {
      yield* projects.requireProject(projectId)
      yield* repo.withTransaction(Effect.gen(function*() {
        yield* repo.lockPolicies(projectId)
        if (!(yield* repo.deletePolicy(projectId, policyId))) return yield* policyNotFound
        yield* repo.renumber(projectId, (yield* repo.listPolicies(projectId)).map((policy) => policy.id))
      }))
    })

    const order = Effect.fn("Sla.order")(function*(projectId: ProjectId, input: PolicyOrderInput) {
      yield* projects.requireProject(projectId)
      return yield* repo.withTransaction(Effect.gen(function*() {
        yield* repo.lockPolicies(projectId)
        const known = (yield* repo.listPolicies(projectId)).map((policy) => policy.id as string)
        const given = input.policy_ids.map((id) => id.toLowerCase())
        if (given.length !== known.length || new Set(given).size !== given.length || !given.every((id) => known.includes(id))) {
          return yield* new ValidationError({ message: "policy_ids must list every policy of the project once" })
        }
        yield* repo.renumber(projectId, given)
        return { policies: (yield* repo.listPolicies(projectId)).map(toPolicy) }
      }))
    })

    /**
     * Works out a ticket's service level again, with the ticket locked: the first policy that
     * matches it, its due times, and the breaches that are due. A breach is written and its event
     * queued in one transaction, and only when the stored state had none, so a job that runs twice
     * (or a check and an update at once) fires it once.
     */
    const refresh = (projectId: ProjectId, ticketId: TicketId) =>
      repo.withTransaction(Effect.gen(function*() {
        const locked = yield* repo.lockFacts(ticketId)
        if (Option.isNone(locked) || locked.value.projectId !== projectId) return []
        const facts = locked.value
        const previous = Option.getOrUndefined(yield* repo.findState(ticketId))
        const conditionFacts = {
          status: facts.status,
          priority: facts.priority,
          category: facts.category,
          source: facts.source,
          tags: facts.tags,
          sender_email: facts.senderEmail,
          message_body: null,
          custom_fields: facts.customFields ?? {}
        }
        const policy = (yield* repo.listPolicies(projectId)).find((candidate) => matches(candidate.conditions, conditionFacts))
        if (policy === undefined) {
          if (previous !== undefined) yield* repo.deleteState(ticketId)
          return []
        }
        const hours = policy.hours === "business" ? Option.getOrUndefined(yield* repo.findHours(projectId)) : undefined
        const now = yield* Clock.currentTimeMillis
        const next = nextState(policy, hours === undefined ? calendarTime : businessTime(hours), facts, previous, now)
        yield* repo.saveState(ticketId, projectId, next.state)
        const jobs: Array<NewJob> = [
          ...next.breaches.flatMap((breach) =>
            eventJobs(ticketSlaBreached({
              ticket_id: ticketId,
              project_id: projectId,
              target: breach.target,
              due_at: iso(breach.dueAt),
              breached_at: iso(breach.breachedAt)
            }))
          ),
          ...next.checks.map((check): NewJob => ({
            kind: "sla_check",
            projectId,
            ticketId,
            payload: { target: check.target, due_at: iso(check.dueAt) },
            runAt: iso(check.dueAt)
          }))
        ]
        yield* repo.enqueue(jobs)
        return next.breaches
      })).pipe(
        // counted once the breaches are committed
        Effect.tap((breaches: ReadonlyArray<Breach>) =>
          Effect.withFiber((fiber) => {
            for (const breach of breaches) recordSlaBreach(fiber.context, breach.target)
            return Effect.void
          })
        )
      )

    /** `sla_update`: a change to the ticket may have moved its policy, due times or pause. */
    const update_: JobHandler<"sla_update"> = (job) => job.ticketId === null ? Effect.void : Effect.asVoid(refresh(job.projectId, job.ticketId))

    /**
     * `sla_check`: a due time has come. The same work as an update, which marks the breach if the
     * target is still unmet, unpaused and due; a check for a due time that has moved since finds
     * nothing due and does nothing.
     */
    const check: JobHandler<"sla_check"> = (job) => job.ticketId === null ? Effect.void : Effect.asVoid(refresh(job.projectId, job.ticketId))

    return { getHours, putHours, create, list, get, update, remove, order, refresh, runUpdate: update_, runCheck: check }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([SlaRepo.layer, Projects.layer, CustomFields.layer])
  )
}
