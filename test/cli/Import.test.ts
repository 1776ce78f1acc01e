import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { Articles } from "../../src/Articles/Articles.ts"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { databaseKinds, freshDatabase, testSettings } from "../support/Databases.ts"
import { article, cli, createProject, markdownFolder, onDatabase, writeFiles } from "./CliProcess.ts"

interface StoredArticle {
  readonly id: string
  readonly slug: string
  readonly title: string
  readonly body: string
  readonly category: string
  readonly published: boolean
}

const storedArticles = (env: Record<string, string>, projectId: string) =>
  onDatabase(
    env,
    Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      sql<StoredArticle>`
        SELECT id, slug, title, body, category, published FROM articles WHERE project_id = ${projectId} ORDER BY slug`)
  )

const bySlug = (articles: ReadonlyArray<StoredArticle>) => Object.fromEntries(articles.map((a) => [a.slug, a]))

/**
 * The planner's row estimate for the articles table beside its real row count: they agree only
 * when ANALYZE ran after the last rows went in (nothing else updates the estimate of a table that
 * is never vacuumed).
 */
const articleStatistics = (env: Record<string, string>) =>
  onDatabase(
    env,
    Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      sql<{ estimated: number; actual: number; columns: number }>`
        SELECT c.reltuples::int AS estimated, (SELECT count(*)::int FROM articles) AS actual,
          (SELECT count(*)::int FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = 'articles') AS columns
        FROM pg_class c WHERE c.oid = 'articles'::regclass`)
  ).pipe(Effect.map((rows) => rows[0]!))

/** Every run's output must be free of stack frames and object dumps. */
const noStackTrace = /\n\s+at |\{\s*$/m

describe.each(databaseKinds)("articles import on %s", (kind) => {
  it.live("reads the .md files of every subfolder in path order, nothing else, and analyzes the table after", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const folder = yield* markdownFolder({
        "b.md": article({ title: "Second", category: "general" }, "B body."),
        "a.md": article({ title: "First", category: "general" }, "A body."),
        "guides/setup.md": article({ title: "Setup", category: "guides" }, "Setup body."),
        "guides/deep/advanced.md": article({ title: "Advanced", category: "guides" }, "Advanced body."),
        "guides/notes.txt": article({ title: "Not Markdown", category: "guides" }, "Text file."),
        ".drafts/hidden.md": article({ title: "Hidden", category: "drafts" }, "In a hidden folder.")
      })

      const run = yield* cli(env, "articles", "import", "--project", projectId, folder)

      expect(run.stderr).toBe("")
      expect(run.code).toBe(0)
      const files = run.stdout.trim().split("\n").slice(0, -1).map((line) => /^created +(\S+) → /.exec(line)?.[1])
      expect(files).toEqual(["a.md", "b.md", "guides/deep/advanced.md", "guides/setup.md"])
      expect(run.stdout).toMatch(/\ncreated 4, updated 0, unchanged 0\n$/)
      expect((yield* storedArticles(env, projectId)).map((a) => a.slug)).toEqual(["advanced", "first", "second", "setup"])
      const statistics = yield* articleStatistics(env)
      expect(statistics.actual).toBe(4)
      expect(statistics.estimated).toBe(4)
      expect(statistics.columns).toBeGreaterThan(0)
    }), 300_000)

  it.live("run again, updates the same articles by slug instead of adding copies", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const folder = yield* markdownFolder({
        "reset.md": article({ title: "How do I reset my password?", category: "account" }, "First version."),
        "billing.md": article({ title: "Billing questions", category: "billing", slug: "billing-faq" }, "Invoices.")
      })
      const first = yield* cli(env, "articles", "import", "--project", projectId, folder)
      expect(first.stdout).toMatch(/\ncreated 2, updated 0, unchanged 0\n$/)
      const before = bySlug(yield* storedArticles(env, projectId))

      yield* Effect.promise(() =>
        writeFiles(folder, {
          "reset.md": article({ title: "How do I reset my password?", category: "account" }, "Second version."),
          "billing.md": article({ title: "Billing questions", category: "payments", slug: "billing-faq" }, "Invoices."),
          "new.md": article({ title: "A new one", category: "general" }, "New.")
        })
      )
      const second = yield* cli(env, "articles", "import", "--project", projectId, folder)
      expect(second.stderr).toBe("")
      expect(second.code).toBe(0)
      expect(second.stdout).toMatch(/\ncreated 1, updated 2, unchanged 0\n$/)
      const third = yield* cli(env, "articles", "import", "--project", projectId, folder)
      expect(third.code).toBe(0)
      expect(third.stdout).toMatch(/\ncreated 0, updated 0, unchanged 3\n$/)

      const after = bySlug(yield* storedArticles(env, projectId))
      expect(Object.keys(after)).toEqual(["a-new-one", "billing-faq", "how-do-i-reset-my-password"])
      expect(after["how-do-i-reset-my-password"]).toMatchObject({
        id: before["how-do-i-reset-my-password"]!.id,
        body: "Second version."
      })
      expect(after["billing-faq"]).toMatchObject({ id: before["billing-faq"]!.id, category: "payments" })
    }), 300_000)

  it.live("publishes as each file's published: says, unless --publish or --no-publish decides for every file", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const folder = yield* markdownFolder({
        "open.md": article({ title: "Open", category: "general", published: "true" }, "Open."),
        "draft.md": article({ title: "Draft", category: "general", published: "false" }, "Draft."),
        "unsaid.md": article({ title: "Unsaid", category: "general" }, "Says nothing.")
      })
      const published = Effect.map(
        storedArticles(env, projectId),
        (articles) => Object.fromEntries(articles.map((a) => [a.slug, a.published]))
      )
      const importing = (...flags: Array<string>) =>
        Effect.map(cli(env, "articles", "import", "--project", projectId, ...flags, folder), (run) => {
          expect(run.stderr).toBe("")
          expect(run.code).toBe(0)
        })

      yield* importing()
      // a file that does not say is created unpublished, as the admin API creates articles
      expect(yield* published).toEqual({ open: true, draft: false, unsaid: false })
      yield* importing("--publish")
      expect(yield* published).toEqual({ open: true, draft: true, unsaid: true })
      yield* importing()
      // and keeps what it has when updated
      expect(yield* published).toEqual({ open: true, draft: false, unsaid: true })
      yield* importing("--no-publish")
      expect(yield* published).toEqual({ open: false, draft: false, unsaid: false })
    }), 300_000)

  it.live("with bad files writes nothing and names every bad file with its reason, one line each", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const folder = yield* markdownFolder({
        "a-good.md": article({ title: "Good", category: "general" }, "Fine."),
        "b-no-front-matter.md": "# Just a heading\n\nNo front matter here.\n",
        "c-missing.md": article({ slug: "c-missing" }, "No title, no category."),
        "d-same-title.md": article({ title: "Good", category: "general" }, "Another article titled Good."),
        "e-binary.md": article({ title: "Binary", category: "general" }, "\u0000\u0001"),
        "nested/f-published.md": article({ title: "Maybe", category: "general", published: "maybe" }, "Hm."),
        "z-good.md": article({ title: "Also good", category: "general" }, "Fine too.")
      })

      const run = yield* cli(env, "articles", "import", "--project", projectId, "--publish", folder)

      expect(run.code).toBe(1)
      expect(run.stdout).toBe("")
      expect(run.stderr).not.toMatch(noStackTrace)
      expect(run.stderr.split("\n")).toEqual([
        "b-no-front-matter.md: no front matter (a block between two --- lines at the top, with title: and category:)",
        "c-missing.md: title is required; category is required",
        "d-same-title.md: its slug good is also the slug of a-good.md: give one of them another slug: in its front matter",
        "e-binary.md: holds NUL characters: is it a text file?",
        "nested/f-published.md: published must be true or false",
        "error: 5 of 7 files are not valid articles; nothing was imported",
        ""
      ])
      expect(yield* storedArticles(env, projectId)).toEqual([])
    }), 300_000)

  it.live("writes all of an import in one transaction: a failure at the database keeps none of it", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const projectId = yield* createProject(env)
      const config = yield* testSettings(env)
      const fields = { category: "general", published: true }
      const exit = yield* Effect.flatMap(Effect.service(Articles), (articles) =>
        articles.importBySlug(projectId, [
          { ...fields, title: "Stored first", slug: "stored-first", body: "Fine." },
          // text the database refuses, after the first article went in
          { ...fields, title: "Refused", slug: "refused", body: "NUL \u0000 byte" }
        ])).pipe(
          Effect.provide(Articles.layer.pipe(Layer.provide(Database.layer), Layer.provide(Layer.succeed(AppConfig, config)))),
          Effect.exit
        )
      // the database's refusal, not some failure before the writes
      expect(Exit.isFailure(exit) && SqlError.isSqlError(Cause.squash(exit.cause))).toBe(true)
      expect(yield* storedArticles(env, projectId)).toEqual([])
    }), 120_000)

  it.live("demo seeding analyzes the articles table after inserting its articles", () =>
    Effect.gen(function*() {
      const env = yield* freshDatabase(kind)
      const run = yield* cli(env, "demo")
      expect(run.stderr).toBe("")
      expect(run.code).toBe(0)
      expect(run.stdout).toContain("24 articles published")
      expect(yield* articleStatistics(env)).toEqual({ estimated: 24, actual: 24, columns: expect.any(Number) })
      expect((yield* articleStatistics(env)).columns).toBeGreaterThan(0)
    }), 300_000)
})
