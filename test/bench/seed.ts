import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { randomBytes } from "node:crypto"
import Pg from "pg"
import type { SeedArticle } from "./corpus.ts"

/** One statement per batch: a JSON array is a single parameter, so no placeholder limits apply. */
const insertBatch = `
  INSERT INTO articles (project_id, title, slug, body, category, published)
  SELECT $1::uuid, r.title, r.slug, r.body, r.category, r.published
  FROM jsonb_to_recordset($2::jsonb) AS r(title text, slug text, body text, category text, published boolean)`

const batchSize = 1000

type Query = (text: string, params?: Array<unknown>) => Promise<unknown>

/**
 * Inserts straight into the table: going through the admin API would spend minutes on 10,000
 * requests that the benchmark does not measure. ANALYZE afterwards, as autovacuum would do soon
 * after such a load in production, so the planner sees the real table size.
 */
const insertArticles = async (query: Query, projectId: string, articles: ReadonlyArray<SeedArticle>) => {
  for (let i = 0; i < articles.length; i += batchSize) {
    await query(insertBatch, [projectId, JSON.stringify(articles.slice(i, i + batchSize))])
  }
  await query("ANALYZE articles")
}

export const seedPostgres = async (url: string, projectId: string, articles: ReadonlyArray<SeedArticle>) => {
  const client = new Pg.Client({ connectionString: url })
  await client.connect()
  try {
    await insertArticles((text, params) => client.query(text, params), projectId, articles)
  } finally {
    await client.end()
  }
}

/**
 * PGlite is embedded in the server, so only one process may open the data directory at a time:
 * call this while the service is stopped.
 */
export const seedPglite = async (dataDir: string, projectId: string, articles: ReadonlyArray<SeedArticle>) => {
  const db = await PGlite.create(dataDir, { extensions: { pg_trgm } })
  try {
    await insertArticles((text, params) => db.query(text, params), projectId, articles)
  } finally {
    await db.close()
  }
}

/** A throwaway database on the server behind `serverUrl`, dropped by `drop` whatever happened. */
export const createScratchDatabase = async (serverUrl: string) => {
  const name = `bench_${randomBytes(6).toString("hex")}`
  const admin = async (statement: string) => {
    const client = new Pg.Client({ connectionString: serverUrl })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE "${name}"`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    // FORCE: the service may have left connections behind if it had to be killed
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  }
}
