import { Schema } from "effect"
import { Limit, RequiredText } from "./Fields.ts"

export const SearchTypes = ["tickets", "articles", "contacts"] as const
export type SearchType = (typeof SearchTypes)[number]

const TypesList = Schema.String.pipe(
  Schema.transform(Schema.Array(Schema.String), {
    strict: true,
    decode: (s) => [...new Set(s.split(",").map((part) => part.trim()).filter((part) => part.length > 0))],
    encode: (list) => list.join(",")
  }),
  Schema.filter((list) =>
    list.every((type) => (SearchTypes as ReadonlyArray<string>).includes(type)) ||
    `types must be a comma-separated list of ${SearchTypes.join(", ")}`
  ),
  Schema.filter((list) => list.length > 0 || "types must name at least one of tickets, articles, contacts")
)

export const UnifiedSearchQuery = Schema.Struct({
  q: RequiredText("q", 200),
  types: Schema.optionalWith(TypesList, { exact: true }),
  limit: Schema.optionalWith(Limit(50), { exact: true })
})

const common = {
  id: Schema.UUID,
  title: Schema.String,
  excerpt: Schema.String,
  relevance: Schema.Number
}

export const SearchResult = Schema.Union(
  Schema.Struct({ type: Schema.Literal("ticket"), ...common, ticket_number: Schema.Int, status: Schema.String }),
  Schema.Struct({ type: Schema.Literal("article"), ...common, slug: Schema.String }),
  Schema.Struct({ type: Schema.Literal("contact"), ...common, email: Schema.String, name: Schema.NullOr(Schema.String) })
).annotations({ identifier: "SearchResult" })
export type SearchResult = typeof SearchResult.Type

export const UnifiedSearchResults = Schema.Struct({
  results: Schema.Array(SearchResult),
  total: Schema.Int
}).annotations({ identifier: "UnifiedSearchResults" })
export type UnifiedSearchResults = typeof UnifiedSearchResults.Type
