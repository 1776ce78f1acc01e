import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { Condition } from "../Domain/Automation.ts"
import { BusinessHours } from "../Domain/BusinessHours.ts"
import { Category, IntFromRow, Priority, Source, Status, TimestampFromRow } from "../Domain/Fields.ts"
import { type ProjectId, type SlaPolicyId, SlaPolicyIdFromRow, type TicketId } from "../Domain/Ids.ts"
import { type NewJob } from "../Domain/Jobs.ts"
import { SlaHours } from "../Domain/Sla.ts"
import { enqueue, traced } from "../Jobs/Outbox.ts"

const StoredPolicy = Schema.Struct({
  id: SlaPolicyIdFromRow,
  name: Schema.String,
  position: IntFromRow,
  conditions: Schema.Array(Condition),
  first_response_minutes: Schema.NullOr(IntFromRow),
  resolution_minutes: Schema.NullOr(IntFromRow),
  hours: Schema.Literals(SlaHours),
  pause_when_waiting: Schema.Boolean,
  created_at: TimestampFromRow
})
export type StoredPolicy = typeof StoredPolicy.Type

export type PolicyFields = Omit<StoredPolicy, "id" | "created_at" | "position">

const HoursRow = Schema.Struct({ schedule: BusinessHours })

/** A timestamptz as epoch milliseconds, which the business-hours maths works in. */
const epochOf = (value: Date | string | null) => value === null ? null : new Date(value).getTime()
const Instant = Schema.NullOr(Schema.Union([Schema.Date, Schema.String]))

const FactsRow = Schema.Struct({
  id: Schema.String,
  project_id: Schema.String,
  status: Status,
  priority: Priority,
  category: Schema.NullOr(Category),
  source: Source,
  sender_email: Schema.NullOr(Schema.String),
  tags: Schema.NullOr(Schema.Array(Schema.String)),
  custom_fields: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  created_at: Schema.Union([Schema.Date, Schema.String]),
  updated_at: Schema.Union([Schema.Date, Schema.String]),
  first_reply_at: Instant
})

const StateRow = Schema.Struct({
  policy_id: Schema.NullOr(Schema.String),
  policy_name: Schema.String,
  first_response_due_at: Instant,
  first_response_met_at: Instant,
  first_response_breached_at: Instant,
  resolution_due_at: Instant,
  resolution_met_at: Instant,
  resolution_breached_at: Instant,
  resolution_paused_at: Instant,
  resolution_credit_ms: IntFromRow
})

/** A ticket as its service level is decided from, times in epoch milliseconds. */
export interface TicketFacts {
  readonly id: TicketId
  readonly projectId: ProjectId
  readonly status: typeof Status.Type
  readonly priority: typeof Priority.Type
  readonly category: typeof Category.Type | null
  readonly source: typeof Source.Type
  readonly senderEmail: string | null
  readonly tags: ReadonlyArray<string>
  readonly customFields: Record<string, unknown> | null
  readonly createdAt: number
  /** the last change to the ticket: when it went waiting, resolved or back */
  readonly updatedAt: number
  /** the first public message of an agent, if any */
  readonly firstReplyAt: number | null
}

/** A ticket's service level as stored, times in epoch milliseconds. */
export interface SlaState {
  readonly policyId: string | null
  readonly policyName: string
  readonly firstResponse: { readonly dueAt: number; readonly metAt: number | null; readonly breachedAt: number | null } | null
  readonly resolution: {
    readonly dueAt: number
    readonly metAt: number | null
    readonly breachedAt: number | null
    readonly pausedAt: number | null
    /** time spent paused, in the policy's measure, added to the target */
    readonly creditMillis: number
  } | null
}

const stateOf = (row: typeof StateRow.Type): SlaState => ({
  policyId: row.policy_id,
  policyName: row.policy_name,
  firstResponse: row.first_response_due_at === null ? null : {
    dueAt: epochOf(row.first_response_due_at)!,
    metAt: epochOf(row.first_response_met_at),
    breachedAt: epochOf(row.first_response_breached_at)
  },
  resolution: row.resolution_due_at === null ? null : {
    dueAt: epochOf(row.resolution_due_at)!,
    metAt: epochOf(row.resolution_met_at),
    breachedAt: epochOf(row.resolution_breached_at),
    pausedAt: epochOf(row.resolution_paused_at),
    creditMillis: row.resolution_credit_ms
  }
})

const iso = (millis: number | null | undefined) => millis == null ? null : new Date(millis).toISOString()

export class SlaRepo extends Context.Service<SlaRepo>()("app/Sla/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findHours = (projectId: ProjectId) =>
      sql`SELECT schedule FROM business_hours WHERE project_id = ${projectId}`.pipe(
        Rows.first(HoursRow),
        Effect.map(Option.map((row) => row.schedule))
      )

    const putHours = (projectId: ProjectId, hours: BusinessHours, now: string) =>
      sql`
        INSERT INTO business_hours (project_id, schedule, updated_at)
        VALUES (${projectId}, ${JSON.stringify(hours)}::jsonb, ${now})
        ON CONFLICT (project_id) DO UPDATE SET schedule = excluded.schedule, updated_at = excluded.updated_at`.pipe(Rows.run)

    const columns = sql.literal(
      "id, name, position, conditions, first_response_minutes, resolution_minutes, hours, pause_when_waiting, created_at"
    )

    /** In the order they are tried. */
    const listPolicies = (projectId: ProjectId) =>
      sql`SELECT ${columns} FROM sla_policies WHERE project_id = ${projectId} ORDER BY position, created_at, id`.pipe(
        Rows.all(StoredPolicy)
      )

    const findPolicy = (projectId: ProjectId, policyId: SlaPolicyId) =>
      sql`SELECT ${columns} FROM sla_policies WHERE id = ${policyId} AND project_id = ${projectId}`.pipe(
        Rows.first(StoredPolicy)
      )

    /** Positions 1..n again, in the order given (ids of the project only). */
    const renumber = (projectId: ProjectId, ids: ReadonlyArray<string>) =>
      ids.length === 0 ? Effect.void : sql`
        UPDATE sla_policies p SET position = o.position
        FROM (SELECT value::uuid AS id, ordinality AS position
              FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) WITH ORDINALITY) o
        WHERE p.id = o.id AND p.project_id = ${projectId}`.pipe(Rows.run)

    const insertPolicy = (projectId: ProjectId, policy: PolicyFields, position: number, now: string) =>
      sql`
        INSERT INTO sla_policies (project_id, name, position, conditions, first_response_minutes, resolution_minutes,
          hours, pause_when_waiting, created_at)
        VALUES (${projectId}, ${policy.name}, ${position}, ${JSON.stringify(policy.conditions)}::jsonb,
          ${policy.first_response_minutes}, ${policy.resolution_minutes}, ${policy.hours}, ${policy.pause_when_waiting}, ${now})
        RETURNING ${columns}`.pipe(Rows.single(StoredPolicy))

    const updatePolicy = (policyId: SlaPolicyId, policy: PolicyFields) =>
      sql`
        UPDATE sla_policies SET name = ${policy.name}, conditions = ${JSON.stringify(policy.conditions)}::jsonb,
          first_response_minutes = ${policy.first_response_minutes}, resolution_minutes = ${policy.resolution_minutes},
          hours = ${policy.hours}, pause_when_waiting = ${policy.pause_when_waiting}
        WHERE id = ${policyId}`.pipe(Rows.run)

    const deletePolicy = (projectId: ProjectId, policyId: SlaPolicyId) =>
      sql`DELETE FROM sla_policies WHERE id = ${policyId} AND project_id = ${projectId} RETURNING id`.pipe(Rows.some)

    /** Serializes the changes to a project's policies, whose positions depend on each other. */
    const lockPolicies = (projectId: ProjectId) =>
      sql`SELECT id FROM projects WHERE id = ${projectId} FOR NO KEY UPDATE`.pipe(Rows.run)

    /**
     * The ticket locked for the transaction, with what its policy is matched on and measured
     * from: the first public agent reply (not an internal note, not a system message).
     */
    const lockFacts = (ticketId: TicketId) =>
      sql`
        SELECT t.id, t.project_id, t.status, t.priority, t.category, t.source, t.sender_email, t.custom_fields,
          t.created_at, t.updated_at,
          (SELECT json_agg(g.name) FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags,
          (SELECT min(m.created_at) FROM messages m
           WHERE m.ticket_id = t.id AND m.author_type = 'agent' AND NOT m.internal) AS first_reply_at
        FROM tickets t WHERE t.id = ${ticketId}
        FOR NO KEY UPDATE OF t`.pipe(
        Rows.first(FactsRow),
        Effect.map(Option.map((row): TicketFacts => ({
          id: row.id as TicketId,
          projectId: row.project_id as ProjectId,
          status: row.status,
          priority: row.priority,
          category: row.category,
          source: row.source,
          senderEmail: row.sender_email,
          tags: row.tags ?? [],
          customFields: row.custom_fields,
          createdAt: epochOf(row.created_at)!,
          updatedAt: epochOf(row.updated_at)!,
          firstReplyAt: epochOf(row.first_reply_at)
        })))
      )

    const findState = (ticketId: TicketId) =>
      sql`
        SELECT policy_id, policy_name, first_response_due_at, first_response_met_at, first_response_breached_at,
          resolution_due_at, resolution_met_at, resolution_breached_at, resolution_paused_at, resolution_credit_ms
        FROM ticket_slas WHERE ticket_id = ${ticketId}`.pipe(Rows.first(StateRow), Effect.map(Option.map(stateOf)))

    const deleteState = (ticketId: TicketId) =>
      sql`WITH gone AS (DELETE FROM ticket_slas WHERE ticket_id = ${ticketId})
          UPDATE tickets SET sla_state = NULL WHERE id = ${ticketId} AND sla_state IS NOT NULL`.pipe(Rows.run)

    const saveState = (ticketId: TicketId, projectId: ProjectId, state: SlaState) => {
      const first = state.firstResponse
      const resolution = state.resolution
      const unmet = [
        first !== null && first.metAt === null ? first.dueAt : null,
        resolution !== null && resolution.metAt === null && resolution.pausedAt === null ? resolution.dueAt : null
      ].filter((due): due is number => due !== null)
      const nextDue = unmet.length === 0 ? null : Math.min(...unmet)
      const breached = (first?.breachedAt ?? null) !== null || (resolution?.breachedAt ?? null) !== null
      // the list's copy on the ticket, as migration 0027 writes it
      const listState = `${breached ? "!" : ""}${iso(nextDue) ?? ""}`
      return sql`
        WITH listed AS (
          UPDATE tickets SET sla_state = ${listState}
          WHERE id = ${ticketId} AND sla_state IS DISTINCT FROM ${listState}
        )
        INSERT INTO ticket_slas (ticket_id, project_id, policy_id, policy_name, first_response_due_at, first_response_met_at,
          first_response_breached_at, resolution_due_at, resolution_met_at, resolution_breached_at, resolution_paused_at,
          resolution_credit_ms, next_due_at, breached)
        VALUES (${ticketId}, ${projectId}, ${state.policyId}, ${state.policyName}, ${iso(first?.dueAt)}, ${iso(first?.metAt)},
          ${iso(first?.breachedAt)}, ${iso(resolution?.dueAt)}, ${iso(resolution?.metAt)}, ${iso(resolution?.breachedAt)},
          ${iso(resolution?.pausedAt)}, ${resolution?.creditMillis ?? 0}, ${iso(nextDue)}, ${breached})
        ON CONFLICT (ticket_id) DO UPDATE SET policy_id = excluded.policy_id, policy_name = excluded.policy_name,
          first_response_due_at = excluded.first_response_due_at, first_response_met_at = excluded.first_response_met_at,
          first_response_breached_at = excluded.first_response_breached_at, resolution_due_at = excluded.resolution_due_at,
          resolution_met_at = excluded.resolution_met_at, resolution_breached_at = excluded.resolution_breached_at,
          resolution_paused_at = excluded.resolution_paused_at, resolution_credit_ms = excluded.resolution_credit_ms,
          next_due_at = excluded.next_due_at, breached = excluded.breached`.pipe(Rows.run)
    }

    return {
      findHours,
      putHours,
      listPolicies,
      findPolicy,
      insertPolicy,
      updatePolicy,
      deletePolicy,
      renumber,
      lockPolicies,
      lockFacts,
      findState,
      deleteState,
      saveState,
      enqueue: (jobs: ReadonlyArray<NewJob>) => Effect.flatMap(traced(jobs), (withTraces) => enqueue(sql, withTraces)),
      withTransaction: Rows.transaction(sql)
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
