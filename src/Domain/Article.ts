import { Schema, Struct } from "effect"
import { Limit, OneOf, optional, RequiredText, Uuid } from "./Fields.ts"
import { ArticleId, pathParam } from "./Ids.ts"

export const ArticleSearchQuery = {
  q: RequiredText("q", 200),
  limit: Schema.optionalKey(Limit(50))
}

export const ArticleHit = Schema.Struct({
  id: Uuid,
  title: Schema.String,
  slug: Schema.String,
  excerpt: Schema.String.annotate({ description: "HTML-escaped text; matched words are wrapped in <mark>" }),
  category: Schema.String,
  relevance: Schema.Number
}).annotate({ identifier: "ArticleSearchResult" })
export type ArticleHit = typeof ArticleHit.Type

export const ArticleSearchResults = Schema.Struct({
  articles: Schema.Array(ArticleHit),
  total: Schema.Int
}).annotate({ identifier: "ArticleSearchResults" })
export type ArticleSearchResults = typeof ArticleSearchResults.Type

const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
const slugMaxLength = 120

const Slug = RequiredText("slug", slugMaxLength).pipe(
  Schema.check(Schema.makeFilter((s: string) =>
    slugPattern.test(s) || "slug must be lower-case letters, digits and single dashes"
  ))
)
const Published = Schema.Boolean.annotate({ message: "published must be true or false" })

const bodyMustBeObject = { message: "request body must be a JSON object" }

export const CreateArticleInput = Schema.Struct({
  title: RequiredText("title", 200),
  body: RequiredText("body", 100_000),
  category: RequiredText("category", 100),
  slug: optional(Slug),
  published: optional(Published)
}).annotate({ ...bodyMustBeObject, identifier: "CreateArticleInput" })
export type CreateArticleInput = typeof CreateArticleInput.Type

export const UpdateArticleInput = Schema.Struct({
  title: optional(RequiredText("title", 200)),
  body: optional(RequiredText("body", 100_000)),
  category: optional(RequiredText("category", 100)),
  slug: optional(Slug),
  published: optional(Published)
}).annotate({ ...bodyMustBeObject, identifier: "UpdateArticleInput" })
export type UpdateArticleInput = typeof UpdateArticleInput.Type

export const Article = Schema.Struct({
  id: Uuid,
  title: Schema.String,
  slug: Schema.String,
  body: Schema.String,
  category: Schema.String,
  published: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String
}).annotate({ identifier: "Article" })
export type Article = typeof Article.Type

const isArticleId = Schema.is(ArticleId)

/**
 * An article's uuid (as search results give it) or its slug. Anything else (a NUL byte, a
 * space) names no article, so it is the same 404 before any query.
 */
export const ArticleRef = Schema.String.check(Schema.makeFilter(
  (s: string) => isArticleId(s) || (s.length <= slugMaxLength && slugPattern.test(s)) || "article not found"
)).pipe(Schema.brand("ArticleRef"))
export type ArticleRef = typeof ArticleRef.Type

export const ArticlePath = { id: pathParam(ArticleRef) }

/** An article as the public API shows it: published ones only, so without its publishing state. */
const { created_at: _created, published: _published, ...publicFields } = Article.fields
export const PublicArticle = Schema.Struct({
  ...publicFields,
  body: Schema.String.annotate({ description: "Markdown, as stored; render it as untrusted input" })
}).annotate({ identifier: "PublicArticle" })
export type PublicArticle = typeof PublicArticle.Type

export const ArticleCreated = Schema.Struct({ id: Uuid, slug: Schema.String })
export type ArticleCreated = typeof ArticleCreated.Type

/** The operator's list of articles, published or not, newest first. */
export const ArticleListQuery = {
  published: Schema.optionalKey(OneOf("published", ["true", "false"])),
  q: Schema.optionalKey(RequiredText("q", 200)),
  limit: Schema.optionalKey(Limit(100)),
  cursor: Schema.optionalKey(Schema.String)
}
const ArticleListQueryStruct = Schema.Struct(ArticleListQuery)
export type ArticleListQuery = typeof ArticleListQueryStruct.Type

export const ArticleSummary = Schema.Struct(Struct.omit(Article.fields, ["body"])).annotate({ identifier: "ArticleSummary" })
export type ArticleSummary = typeof ArticleSummary.Type

export const ArticleList = Schema.Struct({
  articles: Schema.Array(ArticleSummary),
  next_cursor: Schema.NullOr(Schema.String).annotate({ description: "pass as `cursor` for the next page; null on the last page" })
}).annotate({ identifier: "ArticleList" })
export type ArticleList = typeof ArticleList.Type
