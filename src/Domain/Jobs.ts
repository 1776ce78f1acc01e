import { Data, type Duration, type Effect, type Option } from "effect"
import type { ServiceEvent } from "./Events.ts"

/** What the background pipeline does; one row in `jobs` per piece of follow-up work. */
export const JobKinds = [
  "triage",
  "duplicate_check",
  "error_link",
  "webhook_delivery",
  "automation",
  "notify",
  "contact_notify"
] as const
export type JobKind = (typeof JobKinds)[number]

/**
 * A piece of follow-up work as the API writes it. A `webhook` entry is an event to send: it
 * becomes a delivery (and its job) per subscribed endpoint in the same statement. An
 * `automation` entry becomes a job only when the project has a rule for its event.
 */
export interface NewJob {
  readonly kind: JobKind | "webhook"
  readonly projectId: string
  readonly ticketId: string
  readonly payload: Record<string, unknown>
  /** when it falls due: the time of the change that caused it, from the Clock like every time */
  readonly runAt: string
  /** the W3C traceparent of the work that caused it, when tracing is on */
  readonly trace?: string | null | undefined
}

/** A job this instance holds: it runs it, and only it can finish it, while `lease` is current. */
export interface ClaimedJob {
  readonly id: string
  readonly kind: JobKind
  readonly projectId: string
  readonly ticketId: string | null
  readonly payload: Record<string, unknown>
  /** attempts so far, this one included */
  readonly attempts: number
  readonly lease: string
  /** the traceparent stored with it: its run joins that trace */
  readonly trace?: string | null | undefined
}

/** A job's attempt went wrong in an expected way; it is retried on its kind's schedule. */
export class JobFailed extends Data.TaggedError("JobFailed")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface Attempt {
  /** the wait before the next attempt if this one fails; none when this is the last one */
  readonly retryDelay: Option.Option<Duration.Duration>
}

export type JobHandler = (job: ClaimedJob, attempt: Attempt) => Effect.Effect<void, JobFailed>

/**
 * Runs many jobs of one kind together: a statement for all of them, not one each, which is what
 * lets the pipeline keep up with a flood of tickets. The batch succeeds or fails as a whole; a
 * failed batch is retried job by job on each job's own schedule.
 */
export interface BatchJobHandler {
  readonly batch: (jobs: ReadonlyArray<ClaimedJob>) => Effect.Effect<void, JobFailed>
  /** the most jobs one batch takes */
  readonly size: number
}

/**
 * An event rides in its job as the JSON text that will be sent: a jsonb object would come back
 * with its keys reordered, and receivers should see `event`, `timestamp`, `data` in that order.
 */
const eventPayload = (event: ServiceEvent) => ({ kind: event.event, body: JSON.stringify(event) })

export const eventOf = (payload: Record<string, unknown>) => ({
  event: JSON.parse(String(payload.body)) as ServiceEvent,
  body: String(payload.body)
})

/**
 * Every event goes out as webhooks and runs the project's automation rules, except an event
 * caused by a rule's own action: it goes out as webhooks only, so rules cannot trigger each
 * other in a loop.
 */
export const eventJobs = (
  event: ServiceEvent,
  options: { readonly automation: boolean } = { automation: true }
): ReadonlyArray<NewJob> => {
  const job = { projectId: event.data.project_id, ticketId: event.data.id, payload: eventPayload(event), runAt: event.timestamp }
  return options.automation
    ? [{ kind: "webhook", ...job }, { kind: "automation", ...job }]
    : [{ kind: "webhook", ...job }]
}

/** The work that follows a new ticket, written in the ticket's own transaction. */
export const ticketCreatedJobs = (
  event: ServiceEvent,
  options: { readonly errorTracker: boolean }
): ReadonlyArray<NewJob> => {
  const ticket = { projectId: event.data.project_id, ticketId: event.data.id, payload: {}, runAt: event.timestamp }
  return [
    // triage queues the event's automation job when it is done, so rules on category or
    // priority see the triaged ticket rather than race triage to it
    { kind: "triage", ...ticket, payload: eventPayload(event) },
    { kind: "duplicate_check", ...ticket },
    ...(options.errorTracker ? [{ kind: "error_link" as const, ...ticket }] : []),
    ...eventJobs(event, { automation: false })
  ]
}

/** The job that tells an agent about a reply on the ticket assigned to them. */
export const notifyJob = (notification: AgentNotification, runAt: string): NewJob => ({
  kind: "notify",
  projectId: notification.projectId,
  ticketId: notification.ticketId,
  payload: { agent_id: notification.agentId, message_id: notification.messageId, reason: notification.reason },
  runAt
})

/** An agent to tell about something that happened on a ticket. */
export interface AgentNotification {
  readonly projectId: string
  readonly ticketId: string
  readonly agentId: string
  /** the message that caused it, when one did */
  readonly messageId: string | null
  /** `ticket_replied` for a reply on an assigned ticket */
  readonly reason: "ticket_replied"
}

/** The notification a `notify` job carries. */
export const notificationOf = (job: ClaimedJob): AgentNotification => ({
  projectId: job.projectId,
  ticketId: job.ticketId ?? "",
  agentId: String(job.payload.agent_id),
  messageId: typeof job.payload.message_id === "string" ? job.payload.message_id : null,
  reason: "ticket_replied"
})

/** A ticket's contact to send an agent's public reply to. */
export interface ContactNotification {
  readonly projectId: string
  readonly ticketId: string
  readonly contactId: string
  /** the agent's reply */
  readonly messageId: string
  readonly reason: "agent_replied"
}

/** The job that mails an agent's public reply to the ticket's contact. */
export const contactNotifyJob = (notification: ContactNotification, runAt: string): NewJob => ({
  kind: "contact_notify",
  projectId: notification.projectId,
  ticketId: notification.ticketId,
  payload: { contact_id: notification.contactId, message_id: notification.messageId, reason: notification.reason },
  runAt
})

/** The notification a `contact_notify` job carries. */
export const contactNotificationOf = (job: ClaimedJob): ContactNotification => ({
  projectId: job.projectId,
  ticketId: job.ticketId ?? "",
  contactId: String(job.payload.contact_id),
  messageId: String(job.payload.message_id),
  reason: "agent_replied"
})
