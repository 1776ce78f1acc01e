import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow, TimestampFromRow } from "../Domain/Fields.ts"
import { type AttachmentId, AttachmentIdFromRow, type MessageId, type ProjectId, type TicketId } from "../Domain/Ids.ts"

/** An attachment as it is written: its bytes in the row. */
export interface NewAttachment {
  readonly id: AttachmentId
  readonly projectId: ProjectId
  readonly ticketId: TicketId | null
  readonly messageId: MessageId | null
  readonly filename: string
  readonly contentType: string
  readonly size: number
  readonly sha256: string
  /** the bytes, or null when the object store holds them under `storageKey` */
  readonly content: Uint8Array | null
  readonly storageKey: string | null
}

const Meta = Schema.Struct({
  id: AttachmentIdFromRow,
  filename: Schema.String,
  content_type: Schema.String,
  size: IntFromRow,
  sha256: Schema.String
})

const Claimed = Meta

const Stored = Schema.Struct({
  ...Meta.fields,
  ticket_id: Schema.NullOr(Schema.String),
  sender_email: Schema.NullOr(Schema.String),
  visitor_sub: Schema.NullOr(Schema.String),
  /** the owners of the tickets merged into its ticket, who may reach that ticket too */
  merged: Schema.NullOr(Schema.Array(Schema.Struct({
    id: Schema.String,
    sender_email: Schema.NullOr(Schema.String),
    visitor_sub: Schema.NullOr(Schema.String)
  }))),
  internal: Schema.Boolean,
  created_at: TimestampFromRow,
  content: Schema.NullOr(Schema.Uint8Array),
  storage_key: Schema.NullOr(Schema.String)
})
export type StoredAttachment = typeof Stored.Type

const WithContent = Schema.Struct({
  ...Meta.fields,
  content: Schema.NullOr(Schema.Uint8Array),
  storage_key: Schema.NullOr(Schema.String)
})
export type AttachmentWithContent = typeof WithContent.Type

const Total = Schema.Struct({ total: IntFromRow })

/** Bytes as the driver hands them back: a Buffer on node-postgres, a Uint8Array on PGlite; null in the object store. */
const bytesOf = (value: unknown) => value instanceof Uint8Array ? value : null

export class AttachmentsRepo extends Context.Service<AttachmentsRepo>()("app/Attachments/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (file: NewAttachment) =>
      sql`
        INSERT INTO attachments (id, project_id, ticket_id, message_id, filename, content_type, size, sha256, content,
          storage_key)
        VALUES (${file.id}, ${file.projectId}, ${file.ticketId}, ${file.messageId}, ${file.filename},
          ${file.contentType}, ${file.size}, ${file.sha256}, ${file.content}, ${file.storageKey})`.pipe(Rows.run)

    /**
     * Gives the uploads named to a ticket's message; ids of another project, already given, or
     * uploaded before `since` (expired, waiting to be pruned) are left out.
     */
    const claimUploads = (
      projectId: ProjectId,
      ids: ReadonlyArray<string>,
      ticketId: TicketId,
      messageId: MessageId | null,
      since: Date
    ) =>
      sql`
        UPDATE attachments SET ticket_id = ${ticketId}, message_id = ${messageId}
        WHERE project_id = ${projectId} AND ticket_id IS NULL AND created_at >= ${since}
          AND id = ANY(ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid))
        RETURNING id, filename, content_type, size, sha256`.pipe(Rows.all(Claimed))

    const ticketTotal = (ticketId: TicketId) =>
      sql`SELECT coalesce(sum(size), 0) AS total FROM attachments WHERE ticket_id = ${ticketId}`.pipe(
        Rows.single(Total),
        Effect.map((row) => row.total)
      )

    /** An attachment of the project with what deciding who may have it needs: its ticket's owner. */
    const find = (projectId: ProjectId, id: AttachmentId) =>
      sql`
        SELECT a.id, a.filename, a.content_type, a.size, a.sha256, a.ticket_id, a.created_at, a.content, a.storage_key,
          t.sender_email, t.visitor_sub, coalesce(m.internal, false) AS internal,
          (SELECT json_agg(json_build_object('id', s.id, 'sender_email', s.sender_email, 'visitor_sub', s.visitor_sub))
           FROM tickets s WHERE s.merged_into_id = a.ticket_id) AS merged
        FROM attachments a LEFT JOIN tickets t ON t.id = a.ticket_id LEFT JOIN messages m ON m.id = a.message_id
        WHERE a.id = ${id} AND a.project_id = ${projectId}`.pipe(
        Effect.map((rows) => rows.map((row) => ({ ...row, content: bytesOf((row as { content: unknown }).content) }))),
        Rows.first(Stored)
      )

    /** A message's files with their bytes, for the mail that carries it; `null` is the opening message. */
    const ofMessage = (ticketId: TicketId, messageId: MessageId | null) =>
      sql`
        SELECT id, filename, content_type, size, sha256, content, storage_key FROM attachments
        WHERE ticket_id = ${ticketId} AND message_id IS NOT DISTINCT FROM ${messageId}::uuid
        ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map((row) => ({ ...row, content: bytesOf((row as { content: unknown }).content) }))),
        Rows.all(WithContent)
      )

    /** Deletes uploads no ticket named before `before`; the object store's keys of those it held. */
    const pruneWaiting = (before: Date) =>
      sql`DELETE FROM attachments WHERE ticket_id IS NULL AND created_at < ${before} RETURNING storage_key`.pipe(
        Rows.all(Schema.Struct({ storage_key: Schema.NullOr(Schema.String) })),
        Effect.map((rows) => rows.map((row) => row.storage_key))
      )

    return { insert, claimUploads, ticketTotal, find, ofMessage, pruneWaiting }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
