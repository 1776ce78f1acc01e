import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow, TimestampFromRow } from "../Domain/Fields.ts"
import { AuditActors, type AuditActor } from "../Domain/Audit.ts"

/** An action to record. */
export interface NewAuditEntry {
  readonly at: number
  readonly projectId: string | null
  readonly actor: AuditActor
  readonly agentEmail: string | null
  readonly action: string
  readonly target: Readonly<Record<string, string>>
  readonly status: number | null
  readonly sourceIp: string | null
  readonly userAgent: string | null
}

export interface AuditFilter {
  readonly projectId?: string | undefined
  readonly action?: string | undefined
  readonly actor?: AuditActor | undefined
  readonly agentEmail?: string | undefined
  readonly since?: number | undefined
  readonly until?: number | undefined
}

const EntryRow = Schema.Struct({
  audit_id: Schema.String,
  at: TimestampFromRow,
  project_id: Schema.NullOr(Schema.String),
  actor: Schema.Literals(AuditActors),
  agent_email: Schema.NullOr(Schema.String),
  action: Schema.String,
  target: Schema.Record(Schema.String, Schema.String),
  status: Schema.NullOr(IntFromRow),
  source_ip: Schema.NullOr(Schema.String),
  user_agent: Schema.NullOr(Schema.String)
})
export type AuditRow = typeof EntryRow.Type

const iso = (millis: number) => new Date(millis).toISOString()

export class AuditRepo extends Context.Service<AuditRepo>()("app/Audit/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const append = (entry: NewAuditEntry) =>
      sql`INSERT INTO audit_log (at, project_id, actor, agent_email, action, target, status, source_ip, user_agent)
          VALUES (${iso(entry.at)}, ${entry.projectId}, ${entry.actor}, ${entry.agentEmail}, ${entry.action},
            ${JSON.stringify(entry.target)}::jsonb, ${entry.status}, ${entry.sourceIp}, ${entry.userAgent})`.pipe(Rows.run)

    /** Newest first, after the entry `before` (an id) when paging on. */
    const list = (filter: AuditFilter, before: string | undefined, rows: number) =>
      sql`
        SELECT id::text AS audit_id, at, project_id, actor, agent_email, action, target, status, source_ip, user_agent
        FROM audit_log
        WHERE true
          ${filter.projectId === undefined ? sql`` : sql`AND project_id = ${filter.projectId}`}
          ${filter.action === undefined ? sql`` : sql`AND action = ${filter.action}`}
          ${filter.actor === undefined ? sql`` : sql`AND actor = ${filter.actor}`}
          ${filter.agentEmail === undefined ? sql`` : sql`AND agent_email = ${filter.agentEmail}`}
          ${filter.since === undefined ? sql`` : sql`AND at >= ${iso(filter.since)}`}
          ${filter.until === undefined ? sql`` : sql`AND at < ${iso(filter.until)}`}
          ${before === undefined ? sql`` : sql`AND id < ${before}::bigint`}
        ORDER BY id DESC LIMIT ${rows}`.pipe(Rows.all(EntryRow))

    return { append, list }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
