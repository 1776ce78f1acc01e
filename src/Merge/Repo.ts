import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow } from "../Domain/Fields.ts"
import { type ProjectId, type TicketId, TicketIdFromRow } from "../Domain/Ids.ts"

/** A ticket of a merge, locked, with what deciding the merge needs. */
const MergingRow = Schema.Struct({
  id: TicketIdFromRow,
  ticket_number: IntFromRow,
  subject: Schema.String,
  merged_into_id: Schema.NullOr(TicketIdFromRow)
})
export type MergingTicket = typeof MergingRow.Type

/** What a merge writes, decided by the service. */
export interface Move {
  readonly projectId: ProjectId
  readonly sourceId: TicketId
  readonly targetId: TicketId
  readonly mergedAt: string
  /** the public note on the target that says which ticket came in */
  readonly note: string
}

/** The statements of a merge: the caller runs them in its transaction, after `lock`. */
export class MergeRepo extends Context.Service<MergeRepo>()("app/Merge/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Locks the two tickets and the ones merged into the source before (which the merge points
     * at the target) in one statement, in the order of their ids: two merges that share tickets
     * take them in the same order, so neither waits for the other in a circle.
     */
    const lock = (projectId: ProjectId, sourceId: TicketId, targetId: TicketId) =>
      sql`
        SELECT t.id, t.ticket_number, t.subject, t.merged_into_id
        FROM tickets t
        WHERE t.project_id = ${projectId} AND (t.id IN (${sourceId}, ${targetId}) OR t.merged_into_id = ${sourceId})
        ORDER BY t.id
        FOR NO KEY UPDATE OF t`.pipe(Rows.all(MergingRow))

    /**
     * Moves the source's conversation to the target: its opening message (subject and body, from
     * its contact, at its own time, with its files) becomes a message there, every later message
     * (notes included) and file follows keeping its time, tags and linked issues are unioned, and
     * its mail (Message-IDs and reply addresses) points at the target, so an answer to an old mail
     * lands there. A reply address its recipient already has on the target stays with the source,
     * whose pointer a message follows. Then the public note, and the source closed with its pointer.
     */
    const move = (m: Move) =>
      Effect.gen(function*() {
        yield* sql`
          WITH opening AS (
            INSERT INTO messages (project_id, ticket_id, author_type, contact_id, agent_id, body, internal, created_at)
            SELECT s.project_id, ${m.targetId}, 'contact', s.contact_id, NULL, s.subject || E'\n\n' || s.body, false,
              s.created_at
            FROM tickets s WHERE s.id = ${m.sourceId}
            RETURNING id
          )
          UPDATE attachments SET ticket_id = ${m.targetId}, message_id = (SELECT id FROM opening)
          WHERE ticket_id = ${m.sourceId} AND message_id IS NULL`.pipe(Rows.run)
        yield* sql`UPDATE attachments SET ticket_id = ${m.targetId} WHERE ticket_id = ${m.sourceId}`.pipe(Rows.run)
        yield* sql`UPDATE messages SET ticket_id = ${m.targetId} WHERE ticket_id = ${m.sourceId}`.pipe(Rows.run)
        yield* sql`
          INSERT INTO ticket_tags (ticket_id, tag_id)
          SELECT ${m.targetId}, tag_id FROM ticket_tags WHERE ticket_id = ${m.sourceId}
          ON CONFLICT DO NOTHING`.pipe(Rows.run)
        yield* sql`UPDATE mail_messages SET ticket_id = ${m.targetId} WHERE ticket_id = ${m.sourceId}`.pipe(Rows.run)
        yield* sql`
          UPDATE mail_threads m SET ticket_id = ${m.targetId}
          WHERE m.ticket_id = ${m.sourceId} AND NOT EXISTS (
            SELECT 1 FROM mail_threads o
            WHERE o.ticket_id = ${m.targetId} AND (o.agent_id = m.agent_id OR o.contact_id = m.contact_id))`.pipe(Rows.run)
        yield* sql`
          INSERT INTO messages (project_id, ticket_id, author_type, contact_id, agent_id, body, internal, created_at)
          VALUES (${m.projectId}, ${m.targetId}, 'system', NULL, NULL, ${m.note}, false, ${m.mergedAt})`.pipe(Rows.run)
        yield* sql`
          UPDATE tickets t SET updated_at = ${m.mergedAt},
            linked_issues = t.linked_issues || coalesce((
              SELECT jsonb_agg(issue ORDER BY n) FROM tickets s, jsonb_array_elements(s.linked_issues) WITH ORDINALITY AS e(issue, n)
              WHERE s.id = ${m.sourceId} AND NOT EXISTS (
                SELECT 1 FROM jsonb_array_elements(t.linked_issues) AS known
                WHERE known->>'provider' = issue->>'provider' AND known->>'id' = issue->>'id')
            ), '[]'::jsonb)
          WHERE t.id = ${m.targetId}`.pipe(Rows.run)
        // every pointer stays one step long: what was merged into the source now points at the target
        yield* sql`UPDATE tickets SET merged_into_id = ${m.targetId} WHERE merged_into_id = ${m.sourceId}`.pipe(Rows.run)
        yield* sql`
          UPDATE tickets SET status = 'closed', merged_into_id = ${m.targetId}, merged_at = ${m.mergedAt},
            updated_at = ${m.mergedAt}
          WHERE id = ${m.sourceId}`.pipe(Rows.run)
      })

    return { lock, move, withTransaction: Rows.transaction(sql) }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
