import { Context, DateTime, Effect, Layer, Option } from "effect"
import { AgentsRepo } from "../Admin/Repo.ts"
import type { CreateRuleInput, RuleRun } from "../Domain/Automation.ts"
import { CustomFields } from "../Fields/CustomFields.ts"
import { NotFound, ValidationError } from "../Domain/Errors.ts"
import { changeEvents, type ServiceEvent } from "../Domain/Events.ts"
import { Priorities, type Priority, type Status, Statuses } from "../Domain/Fields.ts"
import type { ProjectId, RuleId } from "../Domain/Ids.ts"
import { eventJobs, type JobHandler } from "../Domain/Jobs.ts"
import { slaUpdateJob } from "../Domain/Sla.ts"
import { Projects } from "../Projects/Projects.ts"
import { type LockedTicket, TicketsRepo } from "../Tickets/TicketsRepo.ts"
import { matches } from "./Conditions.ts"
import { AutomationRepo } from "./Repo.ts"

/** The runs log shows the newest ones. */
const runsShown = 100

export class Automation extends Context.Service<Automation>()("app/Automation", {
  make: Effect.gen(function*() {
    const repo = yield* AutomationRepo
    const tickets = yield* TicketsRepo
    const agents = yield* AgentsRepo
    const projects = yield* Projects
    const fields = yield* CustomFields

    const invalid = (message: string) => new ValidationError({ message })

    /** Action values are checked when the rule is made, so a run never meets a value it cannot apply. */
    const checkActions = (projectId: ProjectId, actions: CreateRuleInput["actions"]) =>
      Effect.forEach(actions, (action) =>
        Effect.gen(function*() {
          const value = action.value.trim()
          switch (action.type) {
            case "set_status":
              if (!(Statuses as ReadonlyArray<string>).includes(value)) {
                return yield* invalid(`set_status value must be one of ${Statuses.join(", ")}`)
              }
              break
            case "set_priority":
              if (!(Priorities as ReadonlyArray<string>).includes(value)) {
                return yield* invalid(`set_priority value must be one of ${Priorities.join(", ")}`)
              }
              break
            case "add_tag":
              if (value.length === 0 || value.length > 50) return yield* invalid("add_tag value must be 1 to 50 characters")
              break
            case "assign":
              if (Option.isNone(yield* agents.findByEmail(projectId, value.toLowerCase()))) {
                return yield* invalid("assign value must be the email of an agent of this project")
              }
              return { type: action.type, value: value.toLowerCase() }
          }
          return { type: action.type, value }
        }))

    const create = Effect.fn("Automation.create")(function*(projectId: ProjectId, input: CreateRuleInput) {
      yield* projects.requireProject(projectId)
      const conditions = yield* fields.checkConditions(projectId, input.conditions)
      const actions = yield* checkActions(projectId, input.actions)
      const id = yield* repo.insert(projectId, { name: input.name, event: input.event, conditions, actions })
      return { rule_id: id }
    })

    const list = Effect.fn("Automation.list")(function*(projectId: ProjectId) {
      yield* projects.requireProject(projectId)
      return { rules: (yield* repo.list(projectId)).rules }
    })

    const runs = Effect.fn("Automation.runs")(function*(projectId: ProjectId, ruleId: RuleId) {
      yield* projects.requireProject(projectId)
      if (!(yield* repo.exists(projectId, ruleId))) {
        return yield* new NotFound({ message: "automation rule not found" })
      }
      return { runs: yield* repo.runs(ruleId, runsShown) }
    })

    /**
     * The `automation` job: the project's rules for the event, in creation order, each in its
     * own transaction with the ticket locked, each seeing what the rules before it changed. A
     * rule already recorded for this job is skipped, so a re-run after a crash applies nothing
     * twice. Changes fire their events to webhooks, never to rules (no loops).
     */
    const run: JobHandler<"automation"> = (job) =>
      Effect.gen(function*() {
        const { event } = job.payload
        const ticketId = job.ticketId
        if (ticketId === null) return
        const { stored } = yield* repo.list(job.projectId, event.event)
        for (const rule of stored) {
          yield* tickets.withTransaction(Effect.gen(function*() {
            if (yield* repo.hasRun(job.id, rule.id)) return
            const locked = yield* tickets.lockTicket(job.projectId, ticketId)
            if (Option.isNone(locked)) return
            const now = DateTime.formatIso(yield* DateTime.now)
            const matched = matches(rule.conditions, {
              status: locked.value.status,
              priority: locked.value.priority,
              category: locked.value.category,
              source: locked.value.source,
              tags: locked.value.tags ?? [],
              sender_email: locked.value.sender_email,
              message_body: event.event === "ticket_replied"
                ? String(event.data.body)
                : event.event === "ticket_created"
                ? locked.value.body
                : null,
              custom_fields: locked.value.custom_fields ?? {}
            })
            const applied: Array<RuleRun["actions"][number]> = []
            const events: Array<ServiceEvent> = []
            let current: LockedTicket = locked.value
            const tags = new Set((locked.value.tags ?? []).map((tag) => tag.toLowerCase()))
            for (const action of matched ? rule.actions : []) {
              switch (action.type) {
                case "set_status": {
                  const status = action.value as Status
                  const changes = status !== current.status
                  if (changes) {
                    yield* tickets.updateTicket(ticketId, { status, updatedAt: now })
                    events.push(...changeEvents(job.projectId, current, { status }, now))
                    current = { ...current, status }
                  }
                  applied.push({ ...action, applied: changes })
                  break
                }
                case "set_priority": {
                  const priority = action.value as Priority
                  const changes = priority !== current.priority
                  if (changes) {
                    yield* tickets.updateTicket(ticketId, { priority, updatedAt: now })
                    current = { ...current, priority }
                  }
                  applied.push({ ...action, applied: changes })
                  break
                }
                case "add_tag": {
                  const changes = !tags.has(action.value.toLowerCase())
                  if (changes) {
                    yield* tickets.tagTicket(job.projectId, ticketId, [action.value])
                    tags.add(action.value.toLowerCase())
                  }
                  applied.push({ ...action, applied: changes })
                  break
                }
                case "assign": {
                  const agent = Option.getOrUndefined(yield* agents.findByEmail(job.projectId, action.value))
                  const changes = agent !== undefined && agent.id !== current.assignee?.id
                  if (changes) {
                    yield* tickets.updateTicket(ticketId, { assigneeId: agent.id, updatedAt: now })
                    events.push(...changeEvents(job.projectId, current, { assignee: agent }, now))
                    current = { ...current, assignee: agent }
                  }
                  applied.push({ ...action, applied: changes })
                  break
                }
              }
            }
            yield* tickets.enqueue([
              ...events.flatMap((change) => eventJobs(change, { automation: false })),
              // a status, priority or tag a rule set can change the ticket's SLA policy or clock
              ...(applied.some((action) => action.applied && action.type !== "assign")
                ? [slaUpdateJob(job.projectId, ticketId, now)]
                : [])
            ])
            yield* repo.recordRun({
              ruleId: rule.id,
              projectId: job.projectId,
              ticketId,
              jobId: job.id,
              event: event.event,
              matched,
              actions: applied,
              createdAt: now
            })
          }))
        }
      })

    return { create, list, runs, run }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([AutomationRepo.layer, TicketsRepo.layer, AgentsRepo.layer, Projects.layer, CustomFields.layer])
  )
}
