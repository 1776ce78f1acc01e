import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { readFileSync } from "node:fs"
import { describe, expect } from "vitest"
import { statementsOf } from "../../src/Database/Migrator.ts"
import { projectPath } from "../../src/Paths.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

const step = readFileSync(projectPath("migrations", "0003_article_text.sql"), "utf8")

const markdown = "## Billing\n\nSee **[your invoices](https://example.com/invoices)** and `Settings`."
const plain = "Billing. See your invoices and Settings."

/** The plain texts kept for the articles of `project`, by title. */
const textsOf = (sql: SqlClient.SqlClient, project: string) =>
  sql<{ title: string; body_text: string }>`
    SELECT a.title, t.body_text FROM articles a JOIN article_texts t ON t.article_id = a.id
    WHERE a.project_id = ${project} ORDER BY a.title`

describe.each(databaseKinds)("article plain texts on %s", (kind) => {
  layer(databaseLayer(kind), { excludeTestServices: true })((it) => {
    it.effect("the migration fills them for articles written before it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // back to the schema before the step, with an article written then
        yield* sql`DROP TABLE article_texts`
        yield* sql`DROP TRIGGER article_texts_insert ON articles`
        yield* sql`DROP TRIGGER article_texts_update ON articles`
        yield* sql`DROP FUNCTION markdown_to_text, article_texts_insert, article_texts_update`
        const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('Before') RETURNING id`
        yield* sql`INSERT INTO articles (project_id, title, slug, body, category)
          VALUES (${project!.id}, 'Old', 'old', ${markdown}, 'Billing')`

        yield* Effect.forEach(statementsOf(step), (statement) => sql.unsafe(statement), { discard: true })
        expect(yield* textsOf(sql, project!.id)).toEqual([{ title: "Old", body_text: plain }])
      }))
  })

  // a database of its own: the test above takes the schema apart
  layer(databaseLayer(kind), { excludeTestServices: true })((it) => {

    it.effect("are written with every insert, a bulk one too, follow each edit of the body and go with the article", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('Now') RETURNING id`
        const id = project!.id
        yield* sql`INSERT INTO articles (project_id, title, slug, body, category)
          SELECT ${id}, 'Bulk ' || n, 'bulk-' || n, '**Bulk** article ' || n, 'Other' FROM generate_series(1, 3) AS n`
        const [single] = yield* sql<{ id: string }>`INSERT INTO articles (project_id, title, slug, body, category)
          VALUES (${id}, 'One', 'one', ${markdown}, 'Billing') RETURNING id`
        expect(yield* textsOf(sql, id)).toEqual([
          { title: "Bulk 1", body_text: "Bulk article 1" },
          { title: "Bulk 2", body_text: "Bulk article 2" },
          { title: "Bulk 3", body_text: "Bulk article 3" },
          { title: "One", body_text: plain }
        ])

        yield* sql`UPDATE articles SET body = '# Moved\n_Now_ under *Account*.' WHERE id = ${single!.id}`
        yield* sql`UPDATE articles SET title = 'One, renamed' WHERE id = ${single!.id}`
        const [edited] = yield* sql<{ body_text: string }>`SELECT body_text FROM article_texts WHERE article_id = ${single!.id}`
        expect(edited!.body_text).toBe("Moved. Now under Account.")

        yield* sql`DELETE FROM articles WHERE project_id = ${id}`
        const [orphans] = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM article_texts t WHERE NOT EXISTS (SELECT 1 FROM articles a WHERE a.id = t.article_id)`
        expect(orphans!.n).toBe(0)
      }))
  })
})
