import { Data, type Duration, type Effect, type Option, Schema, SchemaGetter } from "effect"
import { EventKinds, type ServiceEvent, SlaTargets } from "./Events.ts"
import type { ProjectId, TicketId } from "./Ids.ts"

/**
 * An event as a job carries it: its kind, and the JSON text that will be sent. Text, not a jsonb
 * object, which would come back with its keys reordered: receivers should see `event`,
 * `timestamp`, `data` in that order.
 */
export const EventPayload = Schema.Struct({ kind: Schema.Literals(EventKinds), body: Schema.String })
export type EventPayload = typeof EventPayload.Type

/** The fields of an event that rules read; the rest of its data rides along unchecked. */
const EventFields = Schema.Struct({
  event: Schema.Literals(EventKinds),
  timestamp: Schema.String,
  data: Schema.StructWithRest(
    Schema.Struct({ id: Schema.String, project_id: Schema.String }),
    [Schema.Record(Schema.String, Schema.Unknown)]
  )
})

/**
 * An automation job's event: stored as its text, parsed once when the job is claimed, since
 * rules read its fields; encoded, it is that text again.
 */
export const AutomationPayload = EventPayload.pipe(Schema.decodeTo(
  Schema.Struct({ ...EventPayload.fields, event: Schema.fromJsonString(EventFields) }),
  {
    decode: SchemaGetter.transform((payload) => ({ ...payload, event: payload.body })),
    encode: SchemaGetter.transform(({ body, kind }) => ({ kind, body }))
  }
))

/** The payload of a job whose ticket says it all. */
export const NoPayload = Schema.Struct({})

/** A webhook delivery's attempt; `once` when a person asked for it (redeliver), so it is not retried. */
export const DeliveryPayload = Schema.Struct({ delivery_id: Schema.String, once: Schema.optionalKey(Schema.Boolean) })

/** An agent to tell about a reply on the ticket assigned to them. */
export const NotifyPayload = Schema.Struct({
  agent_id: Schema.String,
  message_id: Schema.NullOr(Schema.String),
  reason: Schema.Literal("ticket_replied")
})

/** A ticket's contact to mail an agent's public reply to. */
export const ContactNotifyPayload = Schema.Struct({
  contact_id: Schema.String,
  message_id: Schema.String,
  reason: Schema.Literal("agent_replied")
})

/** A service-level target to check when it falls due: breached unless met, moved or checked before. */
export const SlaCheckPayload = Schema.Struct({
  target: Schema.Literals(SlaTargets),
  due_at: Schema.String
})

/** A replay of a range of an endpoint's deliveries, sent in order by one job at a time. */
export const ReplayPayload = Schema.Struct({ replay_id: Schema.String })

/** An endpoint that was disabled, for its project's operators to hear of. */
export const EndpointPayload = Schema.Struct({ webhook_id: Schema.String })

const jobOf = <const Kind extends string, Payload extends Schema.Top>(kind: Kind, payload: Payload) =>
  Schema.Struct({ kind: Schema.Literal(kind), payload })

/**
 * What the background pipeline does, one row in `jobs` per piece of follow-up work, told apart by
 * its kind: a claim decodes the row's payload with this, and the outbox writes its encoded form.
 */
export const Job = Schema.Union([
  jobOf("triage", EventPayload),
  jobOf("duplicate_check", NoPayload),
  jobOf("error_link", NoPayload),
  jobOf("webhook_delivery", DeliveryPayload),
  jobOf("automation", AutomationPayload),
  jobOf("notify", NotifyPayload),
  jobOf("contact_notify", ContactNotifyPayload),
  jobOf("sla_update", NoPayload),
  jobOf("sla_check", SlaCheckPayload),
  jobOf("satisfaction_request", NoPayload),
  jobOf("webhook_replay", ReplayPayload),
  jobOf("endpoint_disabled_mail", EndpointPayload)
])
export type Job = typeof Job.Type
export type JobKind = Job["kind"]
export const JobKinds: ReadonlyArray<JobKind> = Job.members.map((member) => member.fields.kind.literal)

/**
 * A piece of follow-up work as the API writes it: a job as its row stores it (an automation job's
 * event as its text), so writing it costs no parse. A `webhook` entry is an event to send: it
 * becomes a delivery (and its job) per subscribed endpoint in the same statement. An
 * `automation` entry becomes a job only when the project has a rule for its event.
 */
export const NewJobEntry = Schema.Union([Schema.toEncoded(Job), jobOf("webhook", EventPayload)])

export type NewJob = typeof NewJobEntry.Type & {
  readonly projectId: string
  /** the ticket it is about; null for an event of the project itself (`endpoint_disabled`) */
  readonly ticketId: string | null
  /** when it falls due: the time of the change that caused it, from the Clock like every time */
  readonly runAt: string
  /** the W3C traceparent of the work that caused it, when tracing is on */
  readonly trace?: string | null | undefined
}

/**
 * A job this instance holds, whatever its payload: it runs it, and only it can finish it, while
 * `lease` is current.
 */
export interface HeldJob {
  readonly id: string
  readonly kind: JobKind
  readonly projectId: ProjectId
  readonly ticketId: TicketId | null
  /** attempts so far, this one included */
  readonly attempts: number
  readonly lease: string
  /** the traceparent stored with it: its run joins that trace */
  readonly trace?: string | null | undefined
}

/** A held job of kind `K` with its decoded payload. */
export type ClaimedJob<K extends JobKind = JobKind> = HeldJob & Extract<Job, { readonly kind: K }>

/**
 * A job's attempt went wrong in an expected way; it is retried on its kind's schedule unless the
 * attempt decided otherwise (`retryDelay`), or it did not happen at all (`postponeFor`).
 */
export class JobFailed extends Data.TaggedError("JobFailed")<{
  readonly message: string
  readonly cause?: unknown
  /** the attempt's own choice of the next one: later than the schedule's, or none to give up */
  readonly retryDelay?: Option.Option<Duration.Duration> | undefined
  /** the attempt was not made (a throttle said wait): due again after this, not counted */
  readonly postponeFor?: Duration.Duration | undefined
}> {}

export interface Attempt {
  /** the wait before the next attempt if this one fails; none when this is the last one */
  readonly retryDelay: Option.Option<Duration.Duration>
}

export type JobHandler<K extends JobKind = JobKind> = (job: ClaimedJob<K>, attempt: Attempt) => Effect.Effect<void, JobFailed>

/**
 * Runs many jobs of one kind together: a statement for all of them, not one each, which is what
 * lets the pipeline keep up with a flood of tickets. The batch succeeds or fails as a whole; a
 * failed batch is retried job by job on each job's own schedule.
 */
export interface BatchJobHandler<K extends JobKind = JobKind> {
  readonly batch: (jobs: ReadonlyArray<ClaimedJob<K>>) => Effect.Effect<void, JobFailed>
  /** the most jobs one batch takes */
  readonly size: number
}

const eventPayload = (event: ServiceEvent): EventPayload => ({ kind: event.event, body: JSON.stringify(event) })

/**
 * Every event goes out as webhooks and runs the project's automation rules, except an event
 * caused by a rule's own action: it goes out as webhooks only, so rules cannot trigger each
 * other in a loop.
 */
/** The jobs of an event of the project itself, of no ticket: its deliveries and its place in the streams. */
export const projectEventJobs = (event: ServiceEvent): ReadonlyArray<NewJob> => [
  { kind: "webhook", projectId: event.data.project_id, ticketId: null, payload: eventPayload(event), runAt: event.timestamp }
]

export const eventJobs = (
  event: ServiceEvent,
  options: { readonly automation: boolean } = { automation: true }
): ReadonlyArray<NewJob> => {
  const job = { projectId: event.data.project_id, ticketId: event.data.id, payload: eventPayload(event), runAt: event.timestamp }
  // every way to resolve makes this event, so each asks the contact for a rating (the outbox
  // delays it by the project's setting; the job asks at most once per ticket)
  const asked: ReadonlyArray<NewJob> = event.event === "ticket_resolved"
    ? [{ kind: "satisfaction_request", projectId: job.projectId, ticketId: job.ticketId, payload: {}, runAt: job.runAt }]
    : []
  return options.automation
    ? [{ kind: "webhook", ...job }, { kind: "automation", ...job }, ...asked]
    : [{ kind: "webhook", ...job }, ...asked]
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
export const notificationOf = (job: ClaimedJob<"notify">): AgentNotification => ({
  projectId: job.projectId,
  ticketId: job.ticketId ?? "",
  agentId: job.payload.agent_id,
  messageId: job.payload.message_id,
  reason: job.payload.reason
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
export const contactNotificationOf = (job: ClaimedJob<"contact_notify">): ContactNotification => ({
  projectId: job.projectId,
  ticketId: job.ticketId ?? "",
  contactId: job.payload.contact_id,
  messageId: job.payload.message_id,
  reason: job.payload.reason
})
