import { Schema, SchemaTransformation } from "effect"
import { Limit, RequiredText, Uuid } from "./Fields.ts"

export const SearchTypes = ["tickets", "articles", "contacts"] as const
export type SearchType = (typeof SearchTypes)[number]

const isSearchType = (type: string): type is SearchType => (SearchTypes as ReadonlyArray<string>).includes(type)

const TypesList = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Array(Schema.String),
    SchemaTransformation.transform<ReadonlyArray<string>, string>({
      decode: (s) => [...new Set(s.split(",").map((part) => part.trim()).filter((part) => part.length > 0))],
      encode: (list) => list.join(",")
    })
  ),
  Schema.check(
    Schema.makeFilter((list) =>
      list.every(isSearchType) || `types must be a comma-separated list of ${SearchTypes.join(", ")}`
    ),
    Schema.makeFilter((list) => list.length > 0 || "types must name at least one of tickets, articles, contacts")
  )
)

export const UnifiedSearchQuery = {
  q: RequiredText("q", 200),
  types: Schema.optionalKey(TypesList),
  limit: Schema.optionalKey(Limit(50))
}

/** The `types` parameter after validation. */
export const searchTypesOf = (types: ReadonlyArray<string> | undefined): ReadonlyArray<SearchType> =>
  types === undefined ? SearchTypes : types.filter(isSearchType)

const common = {
  id: Uuid,
  title: Schema.String,
  excerpt: Schema.String,
  relevance: Schema.Number
}

export const TicketResult = Schema.Struct({
  type: Schema.Literal("ticket"),
  ...common,
  ticket_number: Schema.Int,
  status: Schema.String
})
export const ArticleResult = Schema.Struct({ type: Schema.Literal("article"), ...common, slug: Schema.String })
export const ContactResult = Schema.Struct({
  type: Schema.Literal("contact"),
  ...common,
  email: Schema.String,
  name: Schema.NullOr(Schema.String)
})

export const SearchResult = Schema.Union([TicketResult, ArticleResult, ContactResult]).annotate({
  identifier: "SearchResult"
})
export type SearchResult = typeof SearchResult.Type

export const UnifiedSearchResults = Schema.Struct({
  results: Schema.Array(SearchResult),
  total: Schema.Int
}).annotate({ identifier: "UnifiedSearchResults" })
export type UnifiedSearchResults = typeof UnifiedSearchResults.Type
