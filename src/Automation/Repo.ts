import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { Action, AppliedAction, Condition, type Rule, type RuleRun } from "../Domain/Automation.ts"
import { TimestampFromRow } from "../Domain/Fields.ts"
import { type ProjectId, type RuleId, RuleIdFromRow, type TicketId, TicketIdFromRow } from "../Domain/Ids.ts"

const StoredRule = Schema.Struct({
  id: RuleIdFromRow,
  name: Schema.String,
  event: Schema.String,
  conditions: Schema.Array(Condition),
  actions: Schema.Array(Action),
  created_at: TimestampFromRow
})
export type StoredRule = typeof StoredRule.Type

const RunRow = Schema.Struct({
  run_id: Schema.String,
  ticket_id: Schema.NullOr(TicketIdFromRow),
  event: Schema.String,
  matched: Schema.Boolean,
  actions: Schema.Array(AppliedAction),
  created_at: TimestampFromRow
})

const Id = Schema.Struct({ id: RuleIdFromRow })

const toRule = (row: StoredRule): Rule => ({
  rule_id: row.id,
  name: row.name,
  event: row.event,
  conditions: row.conditions,
  actions: row.actions,
  created_at: row.created_at
})

export class AutomationRepo extends Context.Service<AutomationRepo>()("app/Automation/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (projectId: ProjectId, rule: Omit<StoredRule, "id" | "created_at">) =>
      sql`
        INSERT INTO automation_rules (project_id, name, event, conditions, actions)
        VALUES (${projectId}, ${rule.name}, ${rule.event}, ${JSON.stringify(rule.conditions)}::jsonb,
          ${JSON.stringify(rule.actions)}::jsonb)
        RETURNING id`.pipe(Rows.single(Id), Effect.map((row) => row.id))

    /** In creation order, which is the order they run in. */
    const list = (projectId: ProjectId, event?: string) =>
      sql`
        SELECT id, name, event, conditions, actions, created_at FROM automation_rules
        WHERE project_id = ${projectId} ${event === undefined ? sql`` : sql`AND event = ${event}`}
        ORDER BY seq`.pipe(Rows.all(StoredRule), Effect.map((stored) => ({ stored, rules: stored.map(toRule) })))

    const exists = (projectId: ProjectId, ruleId: RuleId) =>
      sql`SELECT 1 FROM automation_rules WHERE id = ${ruleId} AND project_id = ${projectId}`.pipe(Rows.some)

    const runs = (ruleId: RuleId, limit: number) =>
      sql`
        SELECT id AS run_id, ticket_id, event, matched, actions, created_at FROM automation_runs
        WHERE rule_id = ${ruleId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(
        Rows.all(RunRow),
        Effect.map((rows): ReadonlyArray<RuleRun> => rows)
      )

    const hasRun = (jobId: string, ruleId: RuleId) =>
      sql`SELECT 1 FROM automation_runs WHERE job_id = ${jobId} AND rule_id = ${ruleId}`.pipe(Rows.some)

    const recordRun = (run: {
      readonly ruleId: RuleId
      readonly projectId: ProjectId
      readonly ticketId: TicketId
      readonly jobId: string
      readonly event: string
      readonly matched: boolean
      readonly actions: RuleRun["actions"]
      readonly createdAt: string
    }) =>
      sql`INSERT INTO automation_runs (rule_id, project_id, ticket_id, job_id, event, matched, actions, created_at)
          VALUES (${run.ruleId}, ${run.projectId}, ${run.ticketId}, ${run.jobId}, ${run.event}, ${run.matched},
            ${JSON.stringify(run.actions)}::jsonb, ${run.createdAt})
          ON CONFLICT (job_id, rule_id) DO NOTHING`.pipe(Rows.run)

    return { insert, list, exists, runs, hasRun, recordRun }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
