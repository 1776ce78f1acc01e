import { layer } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { ErrorTracker, type ErrorTrackerInput } from "../../src/ErrorTracker/ErrorTracker.ts"
import * as Sentry from "../../src/ErrorTracker/Sentry.ts"
import { configLayer } from "../support/Layers.ts"
import { type StubAnswer, type StubAnswerer, stubServer } from "../support/StubServer.ts"

interface Recorded {
  readonly path: string
  readonly query: URLSearchParams
  readonly authorization: string | undefined
}

const message = "Cannot read properties of undefined (reading 'id')"
const eventId = "9fac2ceed9344f2bbfdd1fdacb0ed9b1"

const issues = (base: string): Record<string, Record<string, unknown>> => ({
  "1001": {
    id: "1001",
    shortId: "BACKEND-3F",
    title: `TypeError: ${message}`,
    permalink: `${base}/organizations/acme/issues/1001/`,
    metadata: { type: "TypeError", value: message }
  },
  "1002": {
    id: "1002",
    shortId: "FRONTEND-7",
    title: "RangeError: Maximum call stack size exceeded",
    permalink: `${base}/organizations/acme/issues/1002/`,
    metadata: { type: "RangeError", value: "Maximum call stack size exceeded" }
  },
  // similar, but not the quoted error: a search must not link it
  "1003": {
    id: "1003",
    shortId: "BACKEND-40",
    title: "TypeError: Cannot read properties of null (reading 'name')",
    permalink: `${base}/organizations/acme/issues/1003/`,
    metadata: { type: "TypeError", value: "Cannot read properties of null (reading 'name')" }
  }
})

/** Sentry's web API for a couple of issues of the organization `acme`, on the stub server at `base`. */
const sentryApi = (base: string): StubAnswerer => (_n, request) => {
  const url = new URL(request.path, base)
  const json = (status: number, body: unknown): StubAnswer => ({ status, body })
  if (request.headers.authorization !== "Bearer t") return json(401, { detail: "Invalid token" })
  const known = issues(base)
  const path = url.pathname
  let match: RegExpExecArray | null
  if ((match = /^\/api\/0\/organizations\/acme\/issues\/(\d+)\/$/.exec(path)) !== null) {
    if (match[1] === "5000") return json(500, { detail: "Internal Error" })
    const issue = known[match[1]!]
    return issue === undefined ? json(404, { detail: "The requested resource does not exist" }) : json(200, issue)
  }
  if ((match = /^\/api\/0\/organizations\/acme\/eventids\/([0-9a-f]+)\/$/.exec(path)) !== null) {
    return match[1] === eventId
      ? json(200, { organizationSlug: "acme", projectSlug: "frontend", groupId: "1002", eventId, event: {} })
      : json(404, { detail: "The requested resource does not exist" })
  }
  if ((match = /^\/api\/0\/organizations\/acme\/shortids\/([^/]+)\/$/.exec(path)) !== null) {
    const issue = Object.values(known).find((candidate) => candidate.shortId === decodeURIComponent(match![1]!))
    return issue === undefined
      ? json(404, { detail: "The requested resource does not exist" })
      : json(200, { organizationSlug: "acme", projectSlug: "backend", groupId: issue.id, group: issue })
  }
  if (path === "/api/0/organizations/acme/issues/") {
    const query = url.searchParams.get("query") ?? ""
    // like Sentry's free-text search: loose, so the similar issue comes back too
    return json(200, query.includes("Cannot read properties") ? [known["1003"], known["1001"]] : [known["1003"]])
  }
  return json(404, { detail: "The requested resource does not exist" })
}

/** The fake Sentry of a suite: where it listens, and the requests since `findIssues` last cleared them. */
class FakeSentry extends Context.Service<FakeSentry, {
  readonly base: string
  readonly requests: () => Array<Recorded>
  readonly clear: () => void
}>()("test/FakeSentry") {}

const fakeSentry = Layer.effect(
  FakeSentry,
  Effect.gen(function*() {
    const stub = yield* stubServer()
    stub.answer = sentryApi(stub.url)
    return {
      base: stub.url,
      requests: () =>
        stub.requests.map((request) => {
          const url = new URL(request.path, stub.url)
          return { path: url.pathname, query: url.searchParams, authorization: request.headers.authorization }
        }),
      clear: () => void (stub.requests.length = 0)
    }
  })
)

const sentryLayer = (overrides: Record<string, string> = {}) =>
  Layer.unwrap(Effect.map(Effect.service(FakeSentry), ({ base }) =>
    Sentry.layer.pipe(Layer.provide(configLayer({
      ERROR_TRACKER: "sentry",
      SENTRY_BASE_URL: base,
      SENTRY_ORG: "acme",
      SENTRY_AUTH_TOKEN: "t",
      ...overrides
    })))))

const ticket = (fields: Partial<ErrorTrackerInput>): ErrorTrackerInput => ({
  projectId: "p",
  ticketId: "t",
  subject: "Help",
  body: "",
  metadata: null,
  ...fields
})

const findIssues = (input: ErrorTrackerInput) =>
  Effect.gen(function*() {
    const fake = yield* FakeSentry
    fake.clear()
    const tracker = yield* ErrorTracker
    return yield* tracker.findIssues(input)
  })

/**
 * What an exit failed with: the error of each failure, any other reason as it is. `[error]` is
 * what `Exit.fail(error)` has; a cause also records where it arose, which no test pins down.
 */
const reasons = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) ? exit.cause.reasons.map((reason) => Cause.isFailReason(reason) ? reason.error : reason) : "succeeded"

describe("Sentry error tracker", () => {
  layer(sentryLayer().pipe(Layer.provideMerge(fakeSentry)), { excludeTestServices: true })((it) => {
    it.effect("links an issue URL in the body with its title and short id", () =>
      Effect.gen(function*() {
        const { base, requests } = yield* FakeSentry
        const linked = yield* findIssues(ticket({
          body: `The page crashes, see ${base}/organizations/acme/issues/1001/?project=2&referrer=slack.`
        }))
        expect(linked).toEqual([{
          provider: "sentry",
          id: "1001",
          short_id: "BACKEND-3F",
          title: `TypeError: ${message}`,
          url: `${base}/organizations/acme/issues/1001/`,
          matched_by: "issue_url"
        }])
        expect(requests().map((request) => [request.path, request.authorization])).toEqual([
          ["/api/0/organizations/acme/issues/1001/", "Bearer t"]
        ])
      }))

    it.effect("resolves an event id in the metadata to its issue", () =>
      Effect.gen(function*() {
        const { requests } = yield* FakeSentry
        const linked = yield* findIssues(ticket({
          body: "The app froze after I pressed back twice.",
          metadata: { app: { version: "2.1.0", sentry_event_id: "9fac2cee-d934-4f2b-bfdd-1fdacb0ed9b1" } }
        }))
        expect(linked).toEqual([expect.objectContaining({ id: "1002", short_id: "FRONTEND-7", matched_by: "event_id" })])
        expect(requests().map((request) => request.path)).toEqual([
          `/api/0/organizations/acme/eventids/${eventId}/`,
          "/api/0/organizations/acme/issues/1002/"
        ])
        expect(requests().every((request) => request.authorization === "Bearer t")).toBe(true)
      }))

    it.effect("matches a quoted error message through the issue search, and only the convincing hit", () =>
      Effect.gen(function*() {
        const { requests } = yield* FakeSentry
        const linked = yield* findIssues(ticket({
          subject: "Saving a contact fails",
          body: `When I press save nothing happens. The console says:\n\n  Uncaught TypeError: ${message}\n    at save (app.js:10:5)`
        }))
        expect(linked).toEqual([expect.objectContaining({ id: "1001", matched_by: "search", title: `TypeError: ${message}` })])
        expect(requests()).toHaveLength(1)
        expect(requests()[0]!.path).toBe("/api/0/organizations/acme/issues/")
        expect(requests()[0]!.query.get("query")).toBe(`"TypeError: ${message}"`)
        expect(Number(requests()[0]!.query.get("limit"))).toBeGreaterThan(0)
      }))

    it.effect("links unrelated text to nothing and asks Sentry nothing", () =>
      Effect.gen(function*() {
        const { requests } = yield* FakeSentry
        const linked = yield* findIssues(ticket({
          subject: "Invoice for March is wrong",
          body: "Hi, I was charged twice for order 12345. Error: none on my side, the card shows two payments.\n" +
            "Our Jira ticket is BILL-42 and the request id was 3f2b9c1e-7d4a-4e8b-9c2d-1a2b3c4d5e6f.",
          metadata: { user_id: "5b7c1d2e-3f4a-4b5c-8d9e-0f1a2b3c4d5e", plan: "pro" }
        }))
        expect(linked).toEqual([])
        expect(requests()).toEqual([])
      }))

    it.effect("fails with ErrorTrackerUnavailable when Sentry answers 500", () =>
      Effect.gen(function*() {
        const { base } = yield* FakeSentry
        const exit = yield* Effect.exit(findIssues(ticket({ body: `${base}/organizations/acme/issues/5000/` })))
        expect(reasons(exit)).toEqual([expect.objectContaining({ _tag: "ErrorTrackerUnavailable" })])
      }))

    it.effect("skips an issue that Sentry does not know and keeps the others", () =>
      Effect.gen(function*() {
        const { base, requests } = yield* FakeSentry
        const linked = yield* findIssues(ticket({
          body: `Maybe ${base}/organizations/acme/issues/9999/ or ${base}/organizations/acme/issues/1002/`
        }))
        expect(linked.map((issue) => issue.id)).toEqual(["1002"])
        expect(requests().map((request) => request.path).sort()).toEqual([
          "/api/0/organizations/acme/issues/1002/",
          "/api/0/organizations/acme/issues/9999/"
        ])
      }))

    it.effect("links an issue found several ways once, as the most direct reference", () =>
      Effect.gen(function*() {
        const { base } = yield* FakeSentry
        const linked = yield* findIssues(ticket({
          body: `${base}/organizations/acme/issues/1001/\nTypeError: ${message}`,
          metadata: { sentry_issue: "BACKEND-3F" }
        }))
        expect(linked).toEqual([expect.objectContaining({ id: "1001", matched_by: "issue_url" })])
      }))

    it.effect("resolves a short id that the ticket says is Sentry's", () =>
      Effect.gen(function*() {
        const linked = yield* findIssues(ticket({ body: "Sentry issue FRONTEND-7 again, since the update." }))
        expect(linked).toEqual([expect.objectContaining({ id: "1002", short_id: "FRONTEND-7" })])
      }))
  })

  layer(sentryLayer({ SENTRY_AUTH_TOKEN: "" }).pipe(Layer.provideMerge(fakeSentry)), { excludeTestServices: true })((it) => {
    it.effect("without a token links nothing and sends nothing", () =>
      Effect.gen(function*() {
        const { base, requests } = yield* FakeSentry
        const linked = yield* findIssues(ticket({ body: `${base}/organizations/acme/issues/1001/` }))
        expect(linked).toEqual([])
        expect(requests()).toEqual([])
      }))
  })

  layer(sentryLayer({ SENTRY_BASE_URL: "http://127.0.0.1:1" }).pipe(Layer.provideMerge(fakeSentry)), {
    excludeTestServices: true
  })((it) => {
    it.effect("fails with ErrorTrackerUnavailable when Sentry cannot be reached", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(findIssues(ticket({ body: "http://127.0.0.1:1/organizations/acme/issues/1001/" })))
        expect(reasons(exit)).toEqual([expect.objectContaining({ _tag: "ErrorTrackerUnavailable" })])
      }))
  })
})

describe("Sentry references in a ticket", () => {
  const saas = { baseUrl: "https://sentry.io", org: "acme" }
  const refs = (body: string, metadata: unknown = null, target = saas) =>
    Sentry.extractReferences(ticket({ body, metadata }), target)

  it("reads the issue URL forms of sentry.io and of a self-hosted installation", () => {
    expect(refs([
      "https://acme.sentry.io/issues/4509876543/?project=1",
      "https://sentry.io/organizations/acme/issues/12/events/latest/",
      "https://sentry.io/acme/backend/issues/13/",
      "https://other.sentry.io/issues/14/",
      "https://sentry.io/organizations/other/issues/15/",
      "https://sentry.example.com/organizations/acme/issues/16/"
    ].join("\n")).issueIds).toEqual(["4509876543", "12", "13"])
    const selfHosted = { baseUrl: "https://errors.example.com/sentry/", org: "acme" }
    expect(refs(
      "https://errors.example.com/sentry/organizations/acme/issues/21/ https://acme.sentry.io/issues/22/",
      null,
      selfHosted
    ).issueIds).toEqual(["21"])
  })

  it("takes event ids bare, or dashed where the text or key says event", () => {
    expect(refs(
      "event 9fac2ceed9344f2bbfdd1fdacb0ed9b1; Event ID: 0123abcd-0123-abcd-0123-abcd0123abcd; user 11111111-2222-3333-4444-555555555555",
      { event_id: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", request: "22222222-3333-4444-5555-666666666666" }
    ).eventIds).toEqual([
      "9fac2ceed9344f2bbfdd1fdacb0ed9b1",
      "0123abcd0123abcd0123abcd0123abcd",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    ])
  })

  it("takes short ids only next to the word Sentry or under a Sentry key", () => {
    expect(refs("See JIRA-123 and PROJ-9.").shortIds).toEqual([])
    expect(refs("sentry: BACKEND-3F", { sentry_issue: "PUMP-STATION-1" }).shortIds).toEqual(["BACKEND-3F", "PUMP-STATION-1"])
  })

  it("finds error messages at a line start or quoted, not an Error: in prose", () => {
    expect(refs([
      "java.lang.IllegalStateException: Connection pool shut down",
      "I keep getting \"ValueError: invalid literal for int() with base 10: 'abc'\" on upload",
      "The result was an Error: try again later"
    ].join("\n")).messages).toEqual([
      { type: "java.lang.IllegalStateException", value: "Connection pool shut down" },
      { type: "ValueError", value: "invalid literal for int() with base 10: 'abc'" }
    ])
  })

  it("judges a search hit convincing only when it is the quoted error", () => {
    const quoted = { type: "TypeError", value: message }
    expect(Sentry.isConvincing(quoted, { title: `TypeError: ${message}` })).toBe(true)
    expect(Sentry.isConvincing(quoted, { title: "TypeError: Cannot read properties of null (reading 'id')" })).toBe(false)
    expect(Sentry.isConvincing(quoted, { title: "save(app.js)", metadata: { type: "TypeError", value: message } })).toBe(true)
  })
})
