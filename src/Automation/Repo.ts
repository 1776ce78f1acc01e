import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Action, Condition, Rule, RuleRun } from "../Domain/Automation.ts"
import { isoTimestamp } from "../Domain/Fields.ts"

export interface StoredRule {
  readonly id: string
  readonly name: string
  readonly event: string
  readonly conditions: ReadonlyArray<Condition>
  readonly actions: ReadonlyArray<Action>
  readonly created_at: Date | string
}

const toRule = (row: StoredRule): Rule => ({
  rule_id: row.id,
  name: row.name,
  event: row.event,
  conditions: row.conditions,
  actions: row.actions,
  created_at: isoTimestamp(row.created_at)
})

export class AutomationRepo extends Effect.Service<AutomationRepo>()("app/Automation/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = (projectId: string, rule: Omit<StoredRule, "id" | "created_at">) =>
      sql<{ id: string }>`
        INSERT INTO automation_rules (project_id, name, event, conditions, actions)
        VALUES (${projectId}, ${rule.name}, ${rule.event}, ${JSON.stringify(rule.conditions)}::jsonb,
          ${JSON.stringify(rule.actions)}::jsonb)
        RETURNING id`.pipe(Effect.map((rows) => rows[0]!.id))

    /** In creation order, which is the order they run in. */
    const list = (projectId: string, event?: string) =>
      sql<StoredRule>`
        SELECT id, name, event, conditions, actions, created_at FROM automation_rules
        WHERE project_id = ${projectId} ${event === undefined ? sql`` : sql`AND event = ${event}`}
        ORDER BY seq`

    const exists = (projectId: string, ruleId: string) =>
      sql`SELECT 1 FROM automation_rules WHERE id = ${ruleId} AND project_id = ${projectId}`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const runs = (ruleId: string, limit: number) =>
      sql<{
        id: string
        ticket_id: string | null
        event: string
        matched: boolean
        actions: RuleRun["actions"]
        created_at: Date | string
      }>`
        SELECT id, ticket_id, event, matched, actions, created_at FROM automation_runs
        WHERE rule_id = ${ruleId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`.pipe(
        Effect.map((rows) =>
          rows.map((row): RuleRun => ({
            run_id: row.id,
            ticket_id: row.ticket_id,
            event: row.event,
            matched: row.matched,
            actions: row.actions,
            created_at: isoTimestamp(row.created_at)
          }))
        )
      )

    const hasRun = (jobId: string, ruleId: string) =>
      sql`SELECT 1 FROM automation_runs WHERE job_id = ${jobId} AND rule_id = ${ruleId}`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    const recordRun = (run: {
      readonly ruleId: string
      readonly projectId: string
      readonly ticketId: string
      readonly jobId: string
      readonly event: string
      readonly matched: boolean
      readonly actions: RuleRun["actions"]
      readonly createdAt: string
    }) =>
      sql`INSERT INTO automation_runs (rule_id, project_id, ticket_id, job_id, event, matched, actions, created_at)
          VALUES (${run.ruleId}, ${run.projectId}, ${run.ticketId}, ${run.jobId}, ${run.event}, ${run.matched},
            ${JSON.stringify(run.actions)}::jsonb, ${run.createdAt})
          ON CONFLICT (job_id, rule_id) DO NOTHING`.pipe(Effect.asVoid)

    /** What conditions read beyond the locked ticket's own columns. */
    const facts = (ticketId: string) =>
      sql<{ source: string; body: string; tags: ReadonlyArray<string> | null }>`
        SELECT t.source, t.body,
          (SELECT json_agg(g.name) FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id WHERE tt.ticket_id = t.id) AS tags
        FROM tickets t WHERE t.id = ${ticketId}`.pipe(Effect.map((rows) => rows[0]))

    return {
      insert: (projectId: string, rule: Parameters<typeof insert>[1]) => Effect.orDie(insert(projectId, rule)),
      list: (projectId: string, event?: string) =>
        Effect.orDie(Effect.map(list(projectId, event), (rows) => ({ stored: rows, rules: rows.map(toRule) }))),
      exists: (projectId: string, ruleId: string) => Effect.orDie(exists(projectId, ruleId)),
      runs: (ruleId: string, limit: number) => Effect.orDie(runs(ruleId, limit)),
      hasRun: (jobId: string, ruleId: string) => Effect.orDie(hasRun(jobId, ruleId)),
      recordRun: (run: Parameters<typeof recordRun>[0]) => Effect.orDie(recordRun(run)),
      facts: (ticketId: string) => Effect.orDie(facts(ticketId))
    } as const
  })
}) {}
