import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import type { ProjectId } from "../Domain/Ids.ts"

/** The advisory lock a sequencer holds while it numbers: one at a time, across every instance. */
const sequencerLock = 4_230_917

// read as text: a bigint's driver type differs between PostgreSQL and PGlite; ordered by the
// column itself (e.position), since ORDER BY position would sort the text alias
const EventRow = Schema.Struct({
  position: Schema.NumberFromString,
  project_id: Schema.String,
  ticket_id: Schema.NullOr(Schema.String),
  kind: Schema.String,
  body: Schema.String
})
/** An event as the log holds it: its position, whose it is, and its webhook body as sent. */
export type StoredEvent = typeof EventRow.Type

const Numbered = Schema.Struct({ numbered: Schema.Number })
const Top = Schema.Struct({ top: Schema.NumberFromString })

/** The most a read or a sequencer's run takes at once. */
export const eventBatch = 1000

export class EventsRepo extends Context.Service<EventsRepo>()("app/Events/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * Numbers up to `eventBatch` events written since the last run, in the order they were
     * written, and tells every instance (NOTIFY events, at commit). The lock is taken in a
     * statement of its own, so the numbering statement's snapshot sees what the last holder did.
     */
    const number = Rows.transaction(sql)(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${sequencerLock})`.pipe(Rows.run)
      const { numbered } = yield* sql`
        WITH base AS (SELECT coalesce(max(position), 0) AS top FROM events),
        next AS (
          SELECT id, row_number() OVER (ORDER BY id) AS n FROM events
          WHERE position IS NULL ORDER BY id LIMIT ${eventBatch}
        ),
        numbered AS (
          UPDATE events e SET position = base.top + next.n FROM next, base WHERE e.id = next.id RETURNING e.position
        ),
        told AS (SELECT pg_notify('events', 'numbered') FROM (SELECT 1 FROM numbered LIMIT 1) any_numbered)
        SELECT (SELECT count(*) FROM numbered)::int AS numbered, (SELECT count(*) FROM told)::int AS told`.pipe(
        Rows.single(Numbered)
      )
      return numbered
    }))

    /** The highest position numbered so far; 0 before the first event. */
    const top = sql`SELECT coalesce(max(position), 0)::text AS top FROM events`.pipe(
      Rows.single(Top),
      Effect.map((row) => row.top)
    )

    /** Every project's events after `position`, in order, up to `eventBatch`. */
    const after = (position: number) =>
      sql`
        SELECT e.position::text AS position, e.project_id, e.ticket_id, e.kind, e.body FROM events e
        WHERE e.position > ${position} ORDER BY e.position LIMIT ${eventBatch}`.pipe(Rows.all(EventRow))

    /** One project's events after `position` up to `through`, in order, up to `eventBatch`. */
    const ofProject = (projectId: ProjectId, position: number, through: number) =>
      sql`
        SELECT e.position::text AS position, e.project_id, e.ticket_id, e.kind, e.body FROM events e
        WHERE e.project_id = ${projectId} AND e.position > ${position} AND e.position <= ${through}
        ORDER BY e.position LIMIT ${eventBatch}`.pipe(Rows.all(EventRow))

    return { number, top, after, ofProject }
  })
}) {
  static readonly layer = Layer.effect(EventsRepo, EventsRepo.make)
}
