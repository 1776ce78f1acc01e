import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { readFileSync } from "node:fs"
import { describe, expect } from "vitest"
import { statementsOf } from "../../src/Database/Migrator.ts"
import { projectPath } from "../../src/Paths.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

const step = readFileSync(projectPath("migrations", "0005_article_search_without_pending_list.sql"), "utf8")

/** Merges what waits in the index's pending list and says how many pages that took: 0 when nothing did. */
const pendingPagesMerged = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ pages: number }>`SELECT gin_clean_pending_list('articles_search')::int AS pages`, (rows) => rows[0]!.pages)

const insertArticles = (sql: SqlClient.SqlClient, project: string, prefix: string) =>
  sql`INSERT INTO articles (project_id, title, slug, body, category, published)
      SELECT ${project}, 'How to reset a password ' || g, ${prefix} || g, 'Open Settings and choose Reset. Step ' || g, 'Account', true
      FROM generate_series(1, 300) g`

describe.each(databaseKinds)("the article search index on %s", (kind) => {
  layer(databaseLayer(kind), { excludeTestServices: true })((it) => {
    it.effect("takes each article in as it is written, and the migration merges what waited before it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('Search') RETURNING id`
        yield* insertArticles(sql, project!.id, "after-")
        expect(yield* pendingPagesMerged(sql)).toBe(0)

        // the index as it was before the step: new entries wait in the list every search reads whole
        yield* sql`ALTER INDEX articles_search SET (fastupdate = on)`
        yield* insertArticles(sql, project!.id, "before-")
        yield* Effect.forEach(statementsOf(step), (statement) => sql.unsafe(statement), { discard: true })
        expect(yield* pendingPagesMerged(sql)).toBe(0)
        yield* insertArticles(sql, project!.id, "later-")
        expect(yield* pendingPagesMerged(sql)).toBe(0)

        const [found] = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM articles WHERE search @@ websearch_to_tsquery('english', 'reset password')`
        expect(found!.n).toBe(900)
      }))
  })
})
