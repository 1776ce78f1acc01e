import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow } from "../Domain/Fields.ts"
import {
  type AgentId,
  AgentIdFromRow,
  type ContactId,
  ContactIdFromRow,
  type MessageId,
  type ProjectId,
  ProjectIdFromRow,
  type TicketId,
  TicketIdFromRow
} from "../Domain/Ids.ts"

/** Who a reply address was given to, and about which ticket. */
const ThreadRow = Schema.Struct({
  ticket_id: TicketIdFromRow,
  agent_id: Schema.NullOr(AgentIdFromRow),
  contact_id: Schema.NullOr(ContactIdFromRow),
  ticket_number: IntFromRow
})
export type Thread = typeof ThreadRow.Type

const ProjectRow = Schema.Struct({ id: ProjectIdFromRow, inbound_address: Schema.String })
const AddressRow = Schema.Struct({ inbound_address: Schema.NullOr(Schema.String) })
const TokenRow = Schema.Struct({ token: Schema.String })
const TicketRow = Schema.Struct({ ticket_id: TicketIdFromRow, direction: Schema.Literals(["in", "out"]) })
const CountRow = Schema.Struct({ n: IntFromRow })
const IdsRow = Schema.Struct({ rfc_message_id: Schema.String })

/** Who a mail about a ticket goes to: an agent or the ticket's contact. */
export type MailRecipient = { readonly agentId: AgentId } | { readonly contactId: ContactId }

const base32 = "abcdefghijklmnopqrstuvwxyz234567"

/** 130 random bits in 26 characters a mail system will not change: lower-case letters and digits. */
export const newReplyToken = () => {
  // five bits of each byte: 256 is a multiple of 32, so every character is equally likely
  const bytes = crypto.getRandomValues(new Uint8Array(26))
  return Array.from(bytes, (byte) => base32[byte & 31]).join("")
}

/** Projects' inbound addresses, reply addresses and the Message-IDs of the mail of tickets. */
export class MailRepo extends Context.Service<MailRepo>()("app/Mail/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const projectByAddress = (address: string) =>
      sql`SELECT id, inbound_address FROM projects WHERE inbound_address = ${address.toLowerCase()}`.pipe(
        Rows.first(ProjectRow)
      )

    const addressOf = (projectId: ProjectId) =>
      sql`SELECT inbound_address FROM projects WHERE id = ${projectId}`.pipe(
        Rows.first(AddressRow),
        Effect.map(Option.map((row) => row.inbound_address))
      )

    /** Sets or clears the address; false when another project has it. */
    const setAddress = (projectId: ProjectId, address: string | null) =>
      sql`
        UPDATE projects SET inbound_address = ${address}
        WHERE id = ${projectId}
          AND NOT EXISTS (SELECT 1 FROM projects o WHERE o.inbound_address = ${address} AND o.id <> ${projectId})
        RETURNING id`.pipe(Rows.some)

    const threadByToken = (projectId: ProjectId, token: string) =>
      sql`
        SELECT m.ticket_id, m.agent_id, m.contact_id, t.ticket_number
        FROM mail_threads m JOIN tickets t ON t.id = m.ticket_id
        WHERE m.token = ${token.toLowerCase()} AND m.project_id = ${projectId}`.pipe(Rows.first(ThreadRow))

    /** The reply token of a ticket's recipient, made on first need. */
    const threadToken = (projectId: ProjectId, ticketId: TicketId, recipient: MailRecipient) =>
      Effect.gen(function*() {
        const agentId = "agentId" in recipient ? recipient.agentId : null
        const contactId = "contactId" in recipient ? recipient.contactId : null
        const made = yield* sql`
          INSERT INTO mail_threads (token, project_id, ticket_id, agent_id, contact_id)
          VALUES (${newReplyToken()}, ${projectId}, ${ticketId}, ${agentId}, ${contactId})
          ON CONFLICT DO NOTHING
          RETURNING token`.pipe(Rows.first(TokenRow))
        if (Option.isSome(made)) return made.value.token
        const found = yield* sql`
          SELECT token FROM mail_threads
          WHERE ticket_id = ${ticketId} AND agent_id IS NOT DISTINCT FROM ${agentId}::uuid
            AND contact_id IS NOT DISTINCT FROM ${contactId}::uuid`.pipe(Rows.single(TokenRow))
        return found.token
      })

    /** The ticket a mail with one of these Message-IDs belongs to, and whether that mail was ours. */
    const ticketOfMessageIds = (projectId: ProjectId, ids: ReadonlyArray<string>) =>
      ids.length === 0 ? Effect.succeedNone : sql`
        SELECT ticket_id, direction FROM mail_messages
        WHERE project_id = ${projectId}
          AND rfc_message_id = ANY(ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)))
        ORDER BY created_at DESC LIMIT 1`.pipe(Rows.first(TicketRow))

    /** Records a mail of a ticket once; false when its Message-ID is already the project's. */
    const recordMessage = (
      projectId: ProjectId,
      rfcMessageId: string,
      ticketId: TicketId,
      messageId: MessageId | null,
      direction: "in" | "out"
    ) =>
      sql`
        INSERT INTO mail_messages (project_id, rfc_message_id, ticket_id, message_id, direction)
        VALUES (${projectId}, ${rfcMessageId}, ${ticketId}, ${messageId}, ${direction})
        ON CONFLICT DO NOTHING
        RETURNING rfc_message_id`.pipe(Rows.some)

    /** The Message-IDs of a ticket's mail, oldest first: a reply's References. */
    const messageIdsOf = (ticketId: TicketId) =>
      sql`
        SELECT rfc_message_id FROM mail_messages WHERE ticket_id = ${ticketId}
        ORDER BY created_at, rfc_message_id LIMIT 20`.pipe(Rows.all(IdsRow), Effect.map((rows) => rows.map((r) => r.rfc_message_id)))

    /** How many tickets `email` filed by mail in the project since `since`. */
    const ticketsFiledSince = (projectId: ProjectId, email: string, since: Date) =>
      sql`
        SELECT count(*) AS n FROM tickets
        WHERE project_id = ${projectId} AND sender_email = ${email} AND source = 'email' AND created_at >= ${since}`.pipe(
        Rows.single(CountRow),
        Effect.map((row) => row.n)
      )

    return {
      projectByAddress,
      addressOf,
      setAddress,
      threadByToken,
      threadToken,
      ticketOfMessageIds,
      recordMessage,
      messageIdsOf,
      ticketsFiledSince
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
