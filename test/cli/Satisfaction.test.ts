/**
 * The CLI's satisfaction commands on the database itself: a project's settings shown and changed,
 * refusals in the CLI's terms, and the summary of its ratings.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { freshPgliteDir } from "../support/Databases.ts"
import { cli, failedWith, onDatabase, succeeded } from "./CliProcess.ts"

const unknownId = "0b7e1e0c-6a55-4c3e-9d4e-2f1c6a1d9a00"

/** Two rated tickets of the project, written as the service records them. */
const rated = (env: Record<string, string>, projectId: string) =>
  onDatabase(
    env,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      for (const [n, rating] of [[1, "5"], [2, "2"]] as const) {
        const [ticket] = yield* sql<{ id: string }>`
          INSERT INTO tickets (project_id, ticket_number, subject, body, status)
          VALUES (${projectId}, ${n}, 'Rated', 'x', 'resolved') RETURNING id`
        yield* sql`INSERT INTO satisfaction_requests (project_id, ticket_id, token_hash, scale, requested_at, rating, rated_at)
          VALUES (${projectId}, ${ticket!.id}, ${new Uint8Array([n])}, 'five', now(), ${rating}, now())`
      }
    }).pipe(Effect.orDie)
  )

describe("operator CLI: satisfaction", () => {
  it.live("shows and changes how a project asks, refuses what the API refuses, and sums its ratings", () =>
    Effect.gen(function*() {
      const env = { DATA_DIR: yield* freshPgliteDir }
      const project = /project id: (\S+)/.exec(succeeded(yield* cli(env, "projects", "create", "A")))![1]!
      expect(succeeded(yield* cli(env, "satisfaction", "settings", project))).toBe(
        "asking:  on\nscale:   five\ndelay:   0 minutes\n"
      )
      expect(succeeded(yield* cli(env, "satisfaction", "settings", project, "--off", "--scale", "good_bad", "--delay", "30")))
        .toBe("asking:  off\nscale:   good_bad\ndelay:   30 minutes\n")
      expect(succeeded(yield* cli(env, "satisfaction", "settings", project, "--on"))).toBe(
        "asking:  on\nscale:   good_bad\ndelay:   30 minutes\n"
      )
      failedWith(yield* cli(env, "satisfaction", "settings", project, "--scale", "stars"), "--scale must be one of five, good_bad")
      failedWith(
        yield* cli(env, "satisfaction", "settings", project, "--delay", "-5"),
        "--delay must be an integer from 0 to 525,600 (a year)"
      )
      failedWith(yield* cli(env, "satisfaction", "settings", project, "--on", "--off"), "--on and --off cannot go together")
      failedWith(yield* cli(env, "satisfaction", "show", unknownId), new RegExp(`^error: no project ${unknownId} \\(`))

      expect(succeeded(yield* cli(env, "satisfaction", "show", project))).toBe(
        "ratings: 0\nscore:   -\naverage: - (1-5)\ngood:    0\nbad:     0\nby rating: 1=0 2=0 3=0 4=0 5=0 good=0 bad=0\n"
      )
      yield* rated(env, project)
      expect(succeeded(yield* cli(env, "satisfaction", "show", project))).toBe(
        "ratings: 2\nscore:   50% rated 4-5 or good\naverage: 3.5 (1-5)\ngood:    0\nbad:     0\nby rating: 1=0 2=1 3=0 4=0 5=1 good=0 bad=0\n"
      )
      const json = JSON.parse(succeeded(yield* cli(env, "satisfaction", "show", project, "--json")))
      expect(json).toMatchObject({ ratings: 2, average: 3.5, score: 0.5 })
    }), 600_000)
})
