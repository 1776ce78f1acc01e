/** The `sla` commands of the operator CLI on the database itself, both databases. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds, freshDatabase } from "../support/Databases.ts"
import { cli, failedWith, succeeded } from "../cli/CliProcess.ts"

describe.each(databaseKinds)("operator CLI service levels on %s", (kind) => {
  it.live("sets and shows business hours, creates, lists and deletes policies, and refuses bad input", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = /project id: (\S+)/.exec(succeeded(yield* cli(env, "demo")))![1]!

      failedWith(yield* cli(env, "sla", "hours", "show", projectId), "business hours are not set for this project")
      failedWith(
        yield* cli(env, "sla", "hours", "set", projectId, "--zone", "Mars/Base", "--weekly", "mon-fri=09:00-17:00"),
        "--zone must be an IANA time zone, e.g. Europe/Berlin"
      )
      const set = succeeded(yield* cli(
        env,
        "sla",
        "hours",
        "set",
        projectId,
        "--zone",
        "Europe/Berlin",
        "--weekly",
        "mon-fri=09:00-12:00,13:00-17:00;sat=10:00-14:00",
        "--holidays",
        "2026-12-25, 2026-12-26"
      ))
      expect(set).toContain("time zone: Europe/Berlin")
      expect(set).toMatch(/monday\s+09:00-12:00, 13:00-17:00/)
      expect(set).toMatch(/saturday\s+10:00-14:00/)
      expect(set).toMatch(/sunday\s+closed/)
      const shown = JSON.parse(succeeded(yield* cli(env, "sla", "hours", "show", projectId, "--json")))
      expect(shown.holidays).toEqual(["2026-12-25", "2026-12-26"])
      expect(shown.weekly.friday).toEqual([{ start: "09:00", end: "12:00" }, { start: "13:00", end: "17:00" }])

      const urgent = JSON.parse(succeeded(yield* cli(
        env,
        "sla",
        "policies",
        "create",
        projectId,
        "Urgent",
        "--first-response",
        "30",
        "--resolution",
        "240",
        "--business",
        "--conditions",
        "[{\"field\":\"priority\",\"op\":\"eq\",\"value\":\"p1_critical\"}]",
        "--json"
      )))
      expect(urgent).toMatchObject({ name: "Urgent", position: 1, hours: "business", pause_when_waiting: true })
      succeeded(yield* cli(env, "sla", "policies", "create", projectId, "Everything", "--resolution", "2880"))
      const table = succeeded(yield* cli(env, "sla", "policies", "list", projectId)).trimEnd().split("\n")
      expect(table).toEqual([
        expect.stringMatching(/^POS\s+ID\s+NAME\s+FIRST RESPONSE\s+RESOLUTION\s+HOURS\s+CONDITIONS$/),
        expect.stringMatching(/^1\s+\S+\s+Urgent\s+30 min\s+240 min\s+business\s+priority eq "p1_critical"$/),
        expect.stringMatching(/^2\s+\S+\s+Everything\s+-\s+2880 min\s+calendar\s+every ticket$/)
      ])

      failedWith(yield* cli(env, "sla", "policies", "create", projectId, "Nothing"), "--first-response or resolution_minutes is required")
      failedWith(
        yield* cli(env, "sla", "policies", "create", projectId, "Bad", "--resolution", "0"),
        "--resolution must be an integer from 1 to 525600"
      )
      failedWith(yield* cli(env, "sla", "policies", "create", projectId, "Bad", "--resolution", "5", "--conditions", "{"), /--conditions must be JSON, e\.g\. \[/)

      succeeded(yield* cli(env, "sla", "policies", "delete", projectId, urgent.policy_id))
      failedWith(yield* cli(env, "sla", "policies", "delete", projectId, urgent.policy_id), "SLA policy not found")
      const left = JSON.parse(succeeded(yield* cli(env, "sla", "policies", "list", projectId, "--json")))
      expect(left.policies.map((p: { name: string; position: number }) => [p.name, p.position])).toEqual([["Everything", 1]])
    }), { timeout: 300_000 })
})
