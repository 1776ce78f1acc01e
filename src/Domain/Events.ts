import type { Attachment } from "./Attachment.ts"
import type { Priority, Status } from "./Fields.ts"
import type { AgentId } from "./Ids.ts"

/** The events of a ticket: `data.id` is the ticket's id, and automation rules can act on them. */
export const TicketEventKinds = [
  "ticket_created",
  "ticket_replied",
  "ticket_resolved",
  "ticket_status_changed",
  "ticket_assigned",
  "ticket_sla_breached",
  "ticket_rated",
  "ticket_merged"
] as const
export type TicketEventKind = (typeof TicketEventKinds)[number]

/** Every event an endpoint or a stream can receive: a ticket's, and the project's own. */
export const EventKinds = [...TicketEventKinds, "endpoint_disabled", "contact_erased"] as const
export type EventKind = (typeof EventKinds)[number]

/** The body of a webhook delivery, exactly as CONTRACT lists it per event. */
export interface ServiceEvent {
  readonly event: EventKind
  readonly timestamp: string
  readonly data: { readonly id: string; readonly project_id: string } & Record<string, unknown>
}

export interface AgentRef {
  readonly id: AgentId
  readonly email: string
  readonly name: string
}

export const ticketCreated = (ticket: {
  readonly id: string
  readonly project_id: string
  readonly subject: string
  readonly status: Status
  readonly priority: Priority
  readonly sender_email: string | null
  readonly created_at: string
  /** the ticket's custom field values; null or absent when it has none */
  readonly custom_fields?: Readonly<Record<string, string | number | boolean>> | null | undefined
}): ServiceEvent => ({
  event: "ticket_created",
  timestamp: ticket.created_at,
  data: {
    id: ticket.id,
    subject: ticket.subject,
    status: ticket.status,
    priority: ticket.priority,
    sender_email: ticket.sender_email,
    project_id: ticket.project_id,
    created_at: ticket.created_at,
    // only with values, so a project that never uses custom fields gets exactly the spec's fields
    ...(ticket.custom_fields == null ? {} : { custom_fields: ticket.custom_fields })
  }
})

export const ticketReplied = (message: {
  readonly ticket_id: string
  readonly project_id: string
  readonly message_id: string
  readonly author_type: "contact" | "agent" | "system"
  /** an agent's display name, as the ticket read shows it */
  readonly author_name: string | null
  readonly body: string
  readonly contact_email: string | null
  /** the message's files, as reads list them */
  readonly attachments: ReadonlyArray<Attachment>
  readonly created_at: string
}): ServiceEvent => ({
  event: "ticket_replied",
  timestamp: message.created_at,
  data: {
    id: message.ticket_id,
    project_id: message.project_id,
    message_id: message.message_id,
    author_type: message.author_type,
    author_name: message.author_name,
    body: message.body,
    contact_email: message.contact_email,
    attachments: message.attachments,
    created_at: message.created_at
  }
})

/** `ticket_status_changed`, and `ticket_resolved` beside it when the new status is resolved. */
export const statusChanged = (change: {
  readonly ticket_id: string
  readonly project_id: string
  readonly status: Status
  readonly previous_status: Status
  readonly updated_at: string
}): ReadonlyArray<ServiceEvent> => {
  const data = {
    id: change.ticket_id,
    project_id: change.project_id,
    status: change.status,
    previous_status: change.previous_status,
    updated_at: change.updated_at
  }
  const changed: ServiceEvent = { event: "ticket_status_changed", timestamp: change.updated_at, data }
  return change.status === "resolved"
    ? [changed, { event: "ticket_resolved", timestamp: change.updated_at, data }]
    : [changed]
}

export const ticketAssigned = (change: {
  readonly ticket_id: string
  readonly project_id: string
  readonly assignee: AgentRef
  readonly previous_assignee: AgentRef | null
  readonly updated_at: string
}): ServiceEvent => ({
  event: "ticket_assigned",
  timestamp: change.updated_at,
  data: {
    id: change.ticket_id,
    project_id: change.project_id,
    assignee: change.assignee,
    previous_assignee: change.previous_assignee,
    updated_at: change.updated_at
  }
})

/** What an event reads of a ticket as it was before a change. */
export interface TicketState {
  readonly id: string
  readonly status: Status
  readonly assignee: AgentRef | null
}

/** The events a change of a ticket fires: only what really changed fires anything. */
export const changeEvents = (
  projectId: string,
  ticket: TicketState,
  change: { readonly status?: Status | undefined; readonly assignee?: AgentRef | undefined },
  updatedAt: string
): ReadonlyArray<ServiceEvent> => [
  ...(change.status !== undefined && change.status !== ticket.status
    ? statusChanged({
      ticket_id: ticket.id,
      project_id: projectId,
      status: change.status,
      previous_status: ticket.status,
      updated_at: updatedAt
    })
    : []),
  ...(change.assignee !== undefined && change.assignee.id !== ticket.assignee?.id
    ? [ticketAssigned({
      ticket_id: ticket.id,
      project_id: projectId,
      assignee: change.assignee,
      previous_assignee: ticket.assignee,
      updated_at: updatedAt
    })]
    : [])
]

export const SlaTargets = ["first_response", "resolution"] as const
export type SlaTarget = (typeof SlaTargets)[number]

/** A service-level target of a ticket passed its due time unmet; fires once per breach. */
export const ticketSlaBreached = (breach: {
  readonly ticket_id: string
  readonly project_id: string
  readonly target: SlaTarget
  readonly due_at: string
  readonly breached_at: string
}): ServiceEvent => ({
  event: "ticket_sla_breached",
  timestamp: breach.breached_at,
  data: {
    id: breach.ticket_id,
    project_id: breach.project_id,
    target: breach.target,
    due_at: breach.due_at,
    breached_at: breach.breached_at
  }
})

/** The ticket's contact rated it: a number 1-5, or `good`/`bad`, as the project asks. */
export const ticketRated = (rating: {
  readonly ticket_id: string
  readonly project_id: string
  readonly rating: number | "good" | "bad"
  readonly comment: string | null
  readonly rated_at: string
}): ServiceEvent => ({
  event: "ticket_rated",
  timestamp: rating.rated_at,
  data: {
    id: rating.ticket_id,
    project_id: rating.project_id,
    rating: rating.rating,
    comment: rating.comment,
    rated_at: rating.rated_at
  }
})

/** The ticket was merged into `into_id`: its conversation lives there now. */
export const ticketMerged = (merge: {
  readonly ticket_id: string
  readonly project_id: string
  readonly into_id: string
  readonly merged_at: string
}): ServiceEvent => ({
  event: "ticket_merged",
  timestamp: merge.merged_at,
  data: {
    id: merge.ticket_id,
    project_id: merge.project_id,
    into_id: merge.into_id,
    merged_at: merge.merged_at
  }
})

/** An endpoint stopped receiving: told to the project's other endpoints and its streams. */
export const endpointDisabled = (endpoint: {
  readonly webhook_id: string
  readonly project_id: string
  readonly reason: string
  readonly disabled_at: string
}): ServiceEvent => ({
  event: "endpoint_disabled",
  timestamp: endpoint.disabled_at,
  data: {
    id: endpoint.webhook_id,
    project_id: endpoint.project_id,
    webhook_id: endpoint.webhook_id,
    reason: endpoint.reason,
    disabled_at: endpoint.disabled_at
  }
})

/**
 * A contact's data was erased: `id` is the contact's id, and the address survives only as its
 * SHA-256 (hex, of the address lower-cased), for a receiver to find and erase its own copy.
 */
export const contactErased = (erasure: {
  readonly contact_id: string
  readonly project_id: string
  readonly contact_email_hash: string
  readonly erased_at: string
}): ServiceEvent => ({
  event: "contact_erased",
  timestamp: erasure.erased_at,
  data: {
    id: erasure.contact_id,
    project_id: erasure.project_id,
    contact_email_hash: erasure.contact_email_hash,
    erased_at: erasure.erased_at
  }
})
