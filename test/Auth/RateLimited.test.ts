/**
 * The rate limiter swapped for a mock: the articles group served in memory through the contract's
 * own typed client (HttpApiTest), with the real authentication middleware over mocked projects
 * and budgets. No database, no server: what is left is the middleware's own decision.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { HttpClientRequest } from "effect/http"
import { HttpApiMiddleware, HttpApiTest } from "effect/http-api"
import { Api } from "../../src/Api.ts"
import { Articles } from "../../src/Articles/Articles.ts"
import { ArticlesHttpLive } from "../../src/Articles/Http.ts"
import { ProjectAuth } from "../../src/Auth/Api.ts"
import { ProjectAuthLive } from "../../src/Auth/Http.ts"
import { RateLimited } from "../../src/Domain/Errors.ts"
import { ApiKeyId, ProjectId } from "../../src/Domain/Ids.ts"
import { Projects } from "../../src/Projects/Projects.ts"
import { RateLimit } from "../../src/RateLimit/RateLimit.ts"
import { testSettings } from "../support/Settings.ts"
import { AppConfig } from "../../src/Config.ts"
import { defaultSettings, platform, sending, standInClient, standInMiddleware } from "../support/HandlerTest.ts"
import { makeTestLayer } from "../support/TestLayer.ts"

const key = {
  key_id: ApiKeyId.make("0e8c4bd4-7f8a-4a55-9c2a-3f1a8e0c2f10"),
  project_id: ProjectId.make("5b0c0f7e-3f26-4a0e-8d6c-2d9b7f6f6a11"),
  scope: "full",
  rate_limit_per_minute: null,
  identity_secret: null,
  require_verified_visitors: false
} as const

/** The only key these projects know. */
const projects = makeTestLayer(Projects)({
  authenticate: (apiKey) => Effect.succeed(apiKey === "tf_known" ? Option.some(key) : Option.none())
})

const articles = makeTestLayer(Articles)({
  search: (projectId, q) =>
    Effect.succeed({
      articles: [{ id: key.key_id, title: `${q} in ${projectId}`, slug: "refunds", excerpt: "", category: "billing", relevance: 1 }],
      total: 1
    })
})

/** Counts what it is asked, and refuses the keys in `over`. */
const budgets = (over: ReadonlySet<string>, asked: Array<string>) =>
  makeTestLayer(RateLimit)({
    check: (budget) =>
      Effect.suspend(() => {
        asked.push(budget)
        return over.has(budget)
          ? Effect.fail(new RateLimited({ message: "rate limit of 100 requests a minute exceeded; retry after 7 s", retryAfterSeconds: 7 }))
          : Effect.void
      })
  })

/** The articles group with the real key middleware over `rateLimit`; the builder also looks the middleware up itself. */
const served = (rateLimit: Layer.Layer<RateLimit>, settings: Layer.Layer<AppConfig> = defaultSettings) =>
  ArticlesHttpLive.pipe(
    Layer.provide(articles),
    Layer.provideMerge(ProjectAuthLive.pipe(Layer.provide([projects, rateLimit, settings]))),
    Layer.provideMerge(Layer.mergeAll(standInMiddleware.adminAuth,
      standInMiddleware.mailAuth, standInMiddleware.idempotent, platform))
  )

const bearer = (token: string) => Layer.mergeAll(sending(ProjectAuth, token), standInClient.adminAuth, standInClient.mailAuth)

describe("the rate limiter, swapped for a mock", () => {
  it.effect("lets a key within its budget through to the handler, counting it against the key", () => {
    const asked: Array<string> = []
    return Effect.gen(function*() {
      const client = yield* HttpApiTest.groups(Api, ["articles"])
      const found = yield* client.articles.search({ query: { q: "refund" } })
      expect(found.articles[0]!.title).toBe(`refund in ${key.project_id}`)
      expect(asked).toEqual([`key:${key.key_id}`])
    }).pipe(Effect.provide([served(budgets(new Set(), asked)), bearer("tf_known")]))
  })

  it.effect("refuses a key over its budget with 429 RATE_LIMITED before the handler runs", () => {
    const asked: Array<string> = []
    return Effect.gen(function*() {
      const client = yield* HttpApiTest.groups(Api, ["articles"])
      const refused = yield* Effect.flip(client.articles.search({ query: { q: "refund" } }))
      expect(refused).toBeInstanceOf(RateLimited)
      expect(refused.message).toBe("rate limit of 100 requests a minute exceeded; retry after 7 s")
      expect(asked).toEqual([`key:${key.key_id}`])
    }).pipe(Effect.provide([served(budgets(new Set([`key:${key.key_id}`]), asked)), bearer("tf_known")]))
  })

  it.effect("spends an unknown key's attempts from its caller's address, and refuses past that budget too", () => {
    const asked: Array<string> = []
    return Effect.gen(function*() {
      const client = yield* HttpApiTest.groups(Api, ["articles"])
      const refused = yield* Effect.flip(client.articles.search({ query: { q: "refund" } }))
      expect(refused).toBeInstanceOf(RateLimited)
      expect(asked).toHaveLength(1)
      expect(asked[0]).toMatch(/^addr:/)
    }).pipe(Effect.provide([served(budgets(new Set(["addr:unknown"]), asked)), bearer("tf_guessed")]))
  })

  it.effect("behind a trusted proxy, counts the address the proxy appended, not one the client wrote", () => {
    const asked: Array<string> = []
    // a client's own X-Forwarded-For, to which the proxy appends the address it saw
    const forwarded = HttpApiMiddleware.layerClient(ProjectAuth, ({ next, request }) =>
      next(HttpClientRequest.setHeader(HttpClientRequest.bearerToken(request, "tf_guessed"), "x-forwarded-for", "198.51.100.1, 203.0.113.9")))
    const behindProxy = Layer.effect(AppConfig, testSettings({ TRUST_PROXY: "true" }))
    return Effect.gen(function*() {
      const client = yield* HttpApiTest.groups(Api, ["articles"])
      yield* Effect.flip(client.articles.search({ query: { q: "refund" } }))
      expect(asked).toEqual(["addr:203.0.113.9"])
    }).pipe(Effect.provide([served(budgets(new Set(["addr:203.0.113.9"]), asked), behindProxy), forwarded, standInClient.adminAuth, standInClient.mailAuth]))
  })
})
