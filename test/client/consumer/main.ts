// Compiled by test/client/Package.test.ts as a user's project would: through the package
// export, with no Node types, so the shipped .d.ts must stand on their own.
import {
  ApiError,
  createClient,
  type StreamEvent,
  type SupportClient,
  type Ticket,
  verifyWebhook,
  type WebhookEvent
} from "support-ticketing-service/client"

const support: SupportClient = createClient({ apiKey: "tf_key", baseUrl: "https://support.example.com" })

export const read = async (id: string): Promise<string> => {
  try {
    const ticket: Ticket = await support.getTicket(id, { contactEmail: "ada@example.com" })
    return `${ticket.ticket_number} ${ticket.status} ${ticket.messages.map((m) => m.author_type).join()}`
  } catch (error) {
    if (error instanceof ApiError && error.code === "NOT_FOUND") return "gone"
    throw error
  }
}

export const subjectOf = async (body: string, signature: string | null): Promise<string | undefined> => {
  const event: WebhookEvent = await verifyWebhook({ secret: "whsec_x", body, signature })
  return event.event === "ticket_created" ? event.data.subject : undefined
}

/** A widget's loop: the agents' replies of one ticket, as they come, until the page leaves. */
export const follow = async (id: string, ticketToken: string, signal: AbortSignal): Promise<Array<string>> => {
  const replies: Array<string> = []
  for await (const event of support.streamTicketEvents(id, { ticketToken, signal })) {
    const seen: StreamEvent = event
    if (seen.event === "reset") replies.length = 0
    else if (seen.event === "ticket_replied") replies.push((seen.data as WebhookEvent).event)
    if (seen.id !== undefined && replies.length > 10) break
  }
  return replies
}
