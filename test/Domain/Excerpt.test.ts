import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { excerpt, lexemeOf, queryLexemes } from "../../src/Domain/Excerpt.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

/** Words whose Porter2 stems take the algorithm's less common turns, words with digits, and letters beyond ASCII. */
const words = [
  "password", "passwords", "resetting", "reset", "retries", "retrying", "invoices", "invoicing", "refunds", "refunded",
  "cancelled", "canceling", "subscriptions", "authentication", "authenticated", "notifications", "integration",
  "synchronizing", "exported", "importing", "configuration", "configuring", "verification", "verified", "addresses",
  "deleted", "accounts", "satisfaction", "breached", "connectors", "calendars", "idempotency", "pagination",
  "paginated", "operators", "kubernetes", "quantum", "capacitor", "generously", "dying", "lying", "tying", "skies",
  "news", "communism", "succeeded", "proceeding", "exceed", "happy", "happiness", "happily", "agreed", "feed",
  "abilities", "arguing", "argued", "relational", "conditional", "hopefully", "electrical", "sensitivity",
  "formality", "fluently", "crying", "cried", "says", "analyses", "organizational", "early", "idly", "gently",
  "ugly", "singly", "inning", "outing", "canning", "herring", "earring", "atlases", "cosmos", "bias", "andes",
  "skis", "sky", "naysayers", "communal", "commune", "arsenal", "generate", "general", "universal", "emails",
  "Unlocked", "SAML", "OAuth", "GitHub", "2fa", "v2", "abc123", "2026", "cafés", "résumés", "naïve", "jalapeños", "façades",
  "ÉCOLE", "Zürich"
]

const options = `StartSel=<mark>, StopSel=</mark>, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`
const marked = (html: string) => [...html.matchAll(/<mark>(.*?)<\/mark>/g)].map((m) => m[1]).sort()

describe.each(databaseKinds)("search excerpts against %s", (kind) => {
  layer(databaseLayer(kind), { excludeTestServices: true })((it) => {
    it.effect("a word's lexeme is the one the english configuration indexes", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ word: string; lexemes: Array<string> }>`
          SELECT w AS word, tsvector_to_array(to_tsvector('english', w)) AS lexemes
          FROM unnest(string_to_array(${words.join(" ")}, ' ')) AS w`
        const indexed = rows.filter((row) => row.lexemes.length > 0)
        expect(indexed.length).toBe(words.length)
        expect(indexed.map((row) => [row.word, lexemeOf(row.word)])).toEqual(indexed.map((row) => [row.word, row.lexemes[0]]))
      }))

    it.effect("marks the words ts_headline marks, reading the lexemes from the query as PostgreSQL parsed it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const cases = [
          ["Locked out? Use Reset password from the help menu; passwords reset within minutes.", "reset password"],
          ["Two-factor authentication: turn it on in Settings & Security <when> signed in.", "two-factor authentication"],
          ["Cancelled subscriptions are refunded within 5 days; cancel yours and get a refund anytime.", "cancel subscription refund"],
          ["Webhooks retry three times; retries back off. A retried delivery keeps its signature.", "\"webhook retries\" OR signature"],
          ["Exporting data: the export runs nightly and exports every table as CSV.", "how do I export my data"],
          ["Nothing here is about the query at all.", "kubernetes operator"]
        ] as const
        for (const [text, q] of cases) {
          const [row] = yield* sql<{ query: string; headline: string }>`
            SELECT websearch_to_tsquery('english', ${q})::text AS query,
              ts_headline('english', html_escape(${text}), websearch_to_tsquery('english', ${q}), ${options}) AS headline`
          const ours = excerpt(text, queryLexemes(row!.query))
          expect(marked(ours), `${q} in ${text}: ${ours}`).toEqual(marked(row!.headline))
        }
      }))
  })
})

describe("the excerpt of a search hit", () => {
  it("reads every lexeme of a query but the excluded ones", () => {
    expect([...queryLexemes("'reset' <-> 'password' & !'invoic'")]).toEqual(["reset", "password"])
    expect([...queryLexemes("'refund' & !( 'polici' <-> 'chang' ) & 'card'")]).toEqual(["refund", "card"])
    expect([...queryLexemes("'o''brien' & 'back\\\\slash'")]).toEqual(["o'brien", "back\\slash"])
    expect([...queryLexemes("")]).toEqual([])
  })

  it("shows a short text whole, escaped, from its first word to its last", () => {
    expect(excerpt("## Locked out.  Use Reset password <b>now</b> & again.", new Set(["password"])))
      .toBe("Locked out.  Use Reset <mark>password</mark> &lt;b&gt;now&lt;/b&gt; &amp; again")
    expect(excerpt("", new Set(["password"]))).toBe("")
    expect(excerpt("--- ***", new Set(["password"]))).toBe("")
  })

  const numbered = (count: number, at: Record<number, string>) =>
    Array.from({ length: count }, (_, i) => at[i] ?? `w${i}`).join(" ")

  it("opens a long text without a match in it with its first 12 words", () => {
    expect(excerpt(numbered(50, {}), new Set(["password"]))).toBe(numbered(12, {}))
  })

  it("shows two fragments of 30 words around the matches, the one with more of the query's words first in weight", () => {
    const text = numbered(200, { 20: "password", 100: "reset", 103: "password", 180: "password" })
    const shown = excerpt(text, new Set(["password", "reset"]))
    const fragments = shown.split(" … ")
    expect(fragments).toHaveLength(2)
    // the passage with both words, 5 words of context before its first match
    expect(fragments[1]).toBe(text.split(" ").slice(95, 125).join(" ").replace(/reset|password/g, "<mark>$&</mark>"))
    // then the earliest passage with a match left, in the order of the text
    expect(fragments[0]).toBe(text.split(" ").slice(15, 45).join(" ").replace("password", "<mark>password</mark>"))
  })

  it("shows one passage when asked for one, the one with most of the query's words (a ticket's)", () => {
    const text = numbered(200, { 20: "password", 100: "reset", 103: "password", 180: "password" })
    expect(excerpt(text, new Set(["password", "reset"]), 1))
      .toBe(text.split(" ").slice(95, 125).join(" ").replace(/reset|password/g, "<mark>$&</mark>"))
  })

  it("cuts its passages from a body of the largest size made of matches", () => {
    const text = Array.from({ length: 12_000 }, (_, i) => (i % 2 ? "password" : "resetting")).join(" ").slice(0, 100_000)
    // the first passage opens the text (both words, the earliest); the second, right after it, touches it
    expect(excerpt(text, new Set(["password", "reset"])))
      .toBe(text.split(" ").slice(0, 60).join(" ").replace(/password|resetting/g, "<mark>$&</mark>"))
  })

  it("keeps a fragment inside the text and joins fragments that touch", () => {
    const text = numbered(40, { 2: "password", 38: "password" })
    const shown = excerpt(text, new Set(["password"]))
    // the last match's window ends at the text's end and reaches back 30 words, then the first
    // match's window fills what is left before it: one passage, no delimiter
    expect(shown).toBe(text.replace(/password/g, "<mark>$&</mark>"))
  })
})
