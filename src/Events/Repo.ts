import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import type { ProjectId, TicketId } from "../Domain/Ids.ts"

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

const Horizon = Schema.Struct({
  horizon: Schema.NumberFromString,
  newest: Schema.NullOr(Schema.NumberFromString)
})
/**
 * Every event below `horizon` is final; `newest` is the highest position written, which is at or
 * above the horizon while a transaction that began before a committed event's is still running.
 */
export type Horizon = typeof Horizon.Type

const Bounds = Schema.Struct({
  pruned_through: Schema.NumberFromString,
  newest: Schema.NullOr(Schema.NumberFromString)
})

/** Which events a stream wants: one project's, or one ticket's (of that project) of some kinds. */
export type EventFilter =
  | { readonly projectId: ProjectId; readonly ticketId?: undefined }
  | { readonly projectId: ProjectId; readonly ticketId: TicketId; readonly kinds: ReadonlyArray<string> }

/** The most a read takes at once. */
export const eventBatch = 1000

export class EventsRepo extends Context.Service<EventsRepo>()("app/Events/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const horizon = sql`SELECT event_horizon()::text AS horizon, (SELECT max(position) FROM events)::text AS newest`.pipe(
      Rows.single(Horizon)
    )

    /** Every project's events in (after, before), in order, up to `eventBatch`. */
    const between = (after: number, before: number) =>
      sql`
        SELECT e.position::text AS position, e.project_id, e.ticket_id, e.kind, e.body FROM events e
        WHERE e.position > ${after} AND e.position < ${before} ORDER BY e.position LIMIT ${eventBatch}`.pipe(
        Rows.all(EventRow)
      )

    /** The events `filter` wants in (after, through], in order, up to `eventBatch`. */
    const matching = (filter: EventFilter, after: number, through: number) =>
      filter.ticketId === undefined
        ? sql`
          SELECT e.position::text AS position, e.project_id, e.ticket_id, e.kind, e.body FROM events e
          WHERE e.project_id = ${filter.projectId} AND e.position > ${after} AND e.position <= ${through}
          ORDER BY e.position LIMIT ${eventBatch}`.pipe(Rows.all(EventRow))
        : sql`
          SELECT e.position::text AS position, e.project_id, e.ticket_id, e.kind, e.body FROM events e
          WHERE e.ticket_id = ${filter.ticketId} AND e.project_id = ${filter.projectId}
            AND e.kind = ANY(${`{${filter.kinds.join(",")}}`}::text[])
            AND e.position > ${after} AND e.position <= ${through}
          ORDER BY e.position LIMIT ${eventBatch}`.pipe(Rows.all(EventRow))

    /** What a resumed stream is checked against: what retention removed, and the newest position. */
    const bounds = sql`
      SELECT pruned_through::text, (SELECT max(position) FROM events)::text AS newest FROM event_clock`.pipe(
      Rows.single(Bounds)
    )

    /**
     * After a restore into another cluster, whose transaction ids start lower than the ones the
     * positions came from, moves the ids forward so later positions are higher; nothing otherwise.
     */
    const keepPositionsIncreasing = sql`
      UPDATE event_clock c SET base = newest.slot - pg_current_xact_id()::text::bigint + 1
      FROM (SELECT max(position) / 1000000 AS slot FROM events) newest
      WHERE newest.slot >= pg_current_xact_id()::text::bigint + c.base`.pipe(Rows.run)

    /**
     * Removes the events older than `before` (ISO time) a page at a time, oldest positions first
     * so what is left is a suffix of the log; returns how many went.
     */
    const prune = (before: string) =>
      sql`
        WITH gone AS (
          DELETE FROM events WHERE position IN (
            SELECT position FROM events WHERE position < coalesce(
              (SELECT min(position) FROM events WHERE created_at >= ${before}),
              (SELECT max(position) + 1 FROM events))
            ORDER BY position LIMIT ${eventBatch * 10})
          RETURNING position
        ), noted AS (
          UPDATE event_clock SET pruned_through = greatest(pruned_through, (SELECT max(position) FROM gone))
          WHERE EXISTS (SELECT 1 FROM gone)
        )
        SELECT count(*)::int AS pruned FROM gone`.pipe(Rows.single(Schema.Struct({ pruned: Schema.Number })))

    return { horizon, between, matching, bounds, keepPositionsIncreasing, prune }
  })
}) {
  static readonly layer = Layer.effect(EventsRepo, EventsRepo.make)
}
