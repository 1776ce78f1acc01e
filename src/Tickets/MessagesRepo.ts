import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { type AgentId, type ContactId, type MessageId, MessageIdFromRow, type ProjectId, type TicketId } from "../Domain/Ids.ts"
import type { AuthorType } from "../Domain/Ticket.ts"

/** A message of a ticket's conversation, as it is written. */
export interface NewMessage {
  readonly projectId: ProjectId
  readonly ticketId: TicketId
  readonly authorType: AuthorType
  readonly contactId: ContactId | null
  readonly agentId: AgentId | null
  readonly body: string
  /** an agent's note that the contact never sees */
  readonly internal: boolean
  readonly createdAt: string
}

/** The messages of tickets; a ticket's reads show its conversation (TicketsRepo). */
export interface MessagesRepoShape {
  readonly insertMessage: (message: NewMessage) => Effect.Effect<MessageId>
}

const Id = Schema.Struct({ id: MessageIdFromRow })

export class MessagesRepo extends Context.Service<MessagesRepo, MessagesRepoShape>()("app/Tickets/MessagesRepo") {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insertMessage = (message: NewMessage) =>
      sql`
        INSERT INTO messages (project_id, ticket_id, author_type, contact_id, agent_id, body, internal, created_at)
        VALUES (${message.projectId}, ${message.ticketId}, ${message.authorType}, ${message.contactId},
          ${message.agentId}, ${message.body}, ${message.internal}, ${message.createdAt})
        RETURNING id`.pipe(Rows.single(Id), Effect.map((row) => row.id))

    return { insertMessage }
  })

  static readonly layer = Layer.effect(this, this.make)
}
