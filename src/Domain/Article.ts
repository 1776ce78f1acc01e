import { Schema } from "effect"
import { Limit, optional, RequiredText } from "./Fields.ts"

export const ArticleSearchQuery = Schema.Struct({
  q: RequiredText("q", 200),
  limit: Schema.optionalWith(Limit(50), { exact: true })
})

export const ArticleHit = Schema.Struct({
  id: Schema.UUID,
  title: Schema.String,
  slug: Schema.String,
  excerpt: Schema.String.annotations({ description: "HTML-escaped text; matched words are wrapped in <mark>" }),
  category: Schema.String,
  relevance: Schema.Number
}).annotations({ identifier: "ArticleSearchResult" })

export const ArticleSearchResults = Schema.Struct({
  articles: Schema.Array(ArticleHit),
  total: Schema.Int
}).annotations({ identifier: "ArticleSearchResults" })
export type ArticleSearchResults = typeof ArticleSearchResults.Type

const Slug = RequiredText("slug", 120).pipe(
  Schema.filter((s) => /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(s) || "slug must be lower-case letters, digits and single dashes")
)
const Published = Schema.Boolean.annotations({
  message: () => ({ message: "published must be true or false", override: true })
})

export const CreateArticleInput = Schema.Struct({
  title: RequiredText("title", 200),
  body: RequiredText("body", 100_000),
  category: RequiredText("category", 100),
  slug: optional(Slug),
  published: optional(Published)
}).annotations({ identifier: "CreateArticleInput" })
export type CreateArticleInput = typeof CreateArticleInput.Type

export const UpdateArticleInput = Schema.Struct({
  title: optional(RequiredText("title", 200)),
  body: optional(RequiredText("body", 100_000)),
  category: optional(RequiredText("category", 100)),
  slug: optional(Slug),
  published: optional(Published)
}).annotations({ identifier: "UpdateArticleInput" })
export type UpdateArticleInput = typeof UpdateArticleInput.Type

export const Article = Schema.Struct({
  id: Schema.UUID,
  title: Schema.String,
  slug: Schema.String,
  body: Schema.String,
  category: Schema.String,
  published: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({ identifier: "Article" })
export type Article = typeof Article.Type

export const ArticleCreated = Schema.Struct({ id: Schema.UUID, slug: Schema.String })
