import { Duration, Effect, Layer, Option, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { AppConfig } from "../Config.ts"
import { ErrorTracker, type ErrorTrackerInput, ErrorTrackerUnavailable, type LinkedIssue } from "./ErrorTracker.ts"

/** Where the tracker lives and whose issues count as ours. */
export interface SentryTarget {
  readonly baseUrl: string
  readonly org: string
}

/** A message such as `TypeError: Cannot read properties of undefined (reading 'id')`. */
export interface ErrorMessage {
  readonly type: string
  readonly value: string
}

/** What a ticket names, before anything is asked of the tracker. */
export interface References {
  /** numeric issue ids from issue URLs (or a `sentry_issue` metadata value) */
  readonly issueIds: ReadonlyArray<string>
  /** short ids such as `BACKEND-3F`, only where the text says it is about Sentry */
  readonly shortIds: ReadonlyArray<string>
  /** event ids as 32 lowercase hex digits */
  readonly eventIds: ReadonlyArray<string>
  readonly messages: ReadonlyArray<ErrorMessage>
}

// A ticket is user input: bound the number of calls one ticket can cause.
const maxIssueIds = 5
const maxShortIds = 3
const maxEventIds = 5
const maxMessages = 2
const maxSearchLinks = 2
const searchLimit = 5
const requestTimeout = Duration.seconds(10)
const totalTimeout = Duration.seconds(45)

const normalizeKey = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, "")
const eventKeys = new Set(["sentryeventid", "eventid", "sentryevent", "lasteventid", "sentryid"])
const issueKeys = new Set(["sentryissue", "sentryissueid", "sentryissueurl", "sentryurl", "sentryshortid", "sentrylink"])

interface Text {
  readonly text: string
  /** the normalised metadata key the string sits under, if any */
  readonly key: string | null
}

const collectTexts = (value: unknown, key: string | null, out: Array<Text>, depth: number): void => {
  if (depth > 8) return
  if (typeof value === "string") {
    out.push({ text: value, key })
  } else if (typeof value === "number" && key !== null && issueKeys.has(key)) {
    out.push({ text: String(value), key })
  } else if (Array.isArray(value)) {
    for (const item of value) collectTexts(item, key, out, depth + 1)
  } else if (typeof value === "object" && value !== null) {
    for (const [name, item] of Object.entries(value)) collectTexts(item, normalizeKey(name), out, depth + 1)
  }
}

const parseUrl = (text: string): URL | undefined => {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

const isSaas = (host: string) => host === "sentry.io" || host.endsWith(".sentry.io")

/**
 * The issue id of a Sentry issue URL of our organization, or undefined. Ids are only unique
 * within one Sentry installation, so a URL counts only on the configured installation's host
 * (any `*.sentry.io` host when that is sentry.io) and only for the configured organization.
 */
export const issueIdOfUrl = (url: URL, target: SentryTarget): string | undefined => {
  const base = parseUrl(target.baseUrl)
  if (base === undefined) return undefined
  const org = target.org.toLowerCase()
  const host = url.hostname.toLowerCase()
  const saas = isSaas(base.hostname.toLowerCase())
  const path = url.pathname.replace(/\/+$/, "")
  const onBaseHost = url.host.toLowerCase() === base.host.toLowerCase()
  if (saas ? isSaas(host) : onBaseHost) {
    const basePath = saas || !onBaseHost ? "" : base.pathname.replace(/\/+$/, "")
    if (!path.startsWith(`${basePath}/`)) return undefined
    const rest = path.slice(basePath.length)
    const organizations = /^\/organizations\/([^/]+)\/issues\/(\d+)(?:\/.*)?$/.exec(rest)
    if (organizations !== null) return organizations[1]!.toLowerCase() === org ? organizations[2] : undefined
    if (saas && host === `${org}.sentry.io`) {
      const customerDomain = /^\/issues\/(\d+)(?:\/.*)?$/.exec(rest)
      if (customerDomain !== null) return customerDomain[1]
    }
    // the older permalink form: /<org>/<project>/issues/<id>/
    const legacy = /^\/([^/]+)\/[^/]+\/issues\/(\d+)(?:\/.*)?$/.exec(rest)
    if (legacy !== null) return legacy[1]!.toLowerCase() === org ? legacy[2] : undefined
  }
  return undefined
}

const urlPattern = /https?:\/\/[^\s<>"'`()[\]{}]+/gi
const hexId = /(?<![0-9a-f-])[0-9a-f]{32}(?![0-9a-f-])/gi
const dashedId = /(?<![0-9a-f-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f-])/gi
const uuidExact = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const shortIdPattern = /^[A-Z][A-Z0-9_]*(?:-[A-Z0-9_]+)*-[0-9A-Z]{1,12}$/
const shortIdInText = /(?<![\w-])[A-Z][A-Z0-9_]*(?:-[A-Z0-9_]+)*-[0-9A-Z]{1,12}(?![\w-])/g
// A dashed uuid is any id at all; it is taken for an event id only when the words before it say so.
const eventContext = /(?:event|sentry)[\s\w-]{0,20}[:=#]?\s*["'`]?$/i

/**
 * `TypeError: ...`, `java.lang.IllegalStateException: ...`, `Error: ...`: at the start of a line
 * or of a quotation. A named error type may also stand mid-sentence; a bare `Error:` may not,
 * since "Error: try again" in prose is not worth a search.
 */
const messagePattern =
  /(^|["'`]|\s)(?:Uncaught |Unhandled (?:promise )?rejection:? )?((?:[A-Za-z_$][\w$]*\.)*(?:[A-Z][\w$]*(?:Error|Exception)|Error))(?:\s*\[[^\]]*\])?: +(\S[^\n]*)$/gm

const closingQuote: Record<string, string> = { "\"": "\"", "'": "'", "`": "`" }

const messagesOf = (text: string): Array<ErrorMessage> => {
  const found: Array<ErrorMessage> = []
  for (const match of text.matchAll(messagePattern)) {
    const [, lead, type, rawValue] = match as unknown as [string, string, string, string]
    const start = match.index ?? 0
    const atLineStart = lead === "" || text.slice(0, start).split("\n").pop()!.trim() === ""
    if (type === "Error" && !(atLineStart || lead in closingQuote)) continue
    let value = rawValue
    const close = closingQuote[lead]
    if (close !== undefined) {
      const end = value.lastIndexOf(close)
      if (end > 0) value = value.slice(0, end)
    }
    value = value.trim().replace(/\s+/g, " ").slice(0, 200)
    if (value.length >= 2) found.push({ type, value })
  }
  return found
}

const pushUnique = <A>(list: Array<A>, value: A, max: number, key: (a: A) => string = String) => {
  if (list.length < max && !list.some((item) => key(item) === key(value))) list.push(value)
}

/** Everything in the ticket that may name a Sentry issue; pure, so it can be tested alone. */
export const extractReferences = (input: ErrorTrackerInput, target: SentryTarget): References => {
  const texts: Array<Text> = [{ text: input.subject, key: null }, { text: input.body, key: null }]
  collectTexts(input.metadata, null, texts, 0)
  const issueIds: Array<string> = []
  const shortIds: Array<string> = []
  const eventIds: Array<string> = []
  const messages: Array<ErrorMessage> = []
  for (const { key, text: raw } of texts) {
    const value = raw.trim()
    if (key !== null && issueKeys.has(key)) {
      if (/^\d+$/.test(value)) pushUnique(issueIds, value, maxIssueIds)
      else if (shortIdPattern.test(value)) pushUnique(shortIds, value, maxShortIds)
    }
    if (key !== null && eventKeys.has(key) && (/^[0-9a-f]{32}$/i.test(value) || uuidExact.test(value))) {
      pushUnique(eventIds, value.replaceAll("-", "").toLowerCase(), maxEventIds)
    }
    // issue URLs are taken out first, so an event id inside one is not looked up again
    const text = raw.replace(urlPattern, (url) => {
      const parsed = parseUrl(url.replace(/[.,;:!?]+$/, ""))
      const id = parsed === undefined ? undefined : issueIdOfUrl(parsed, target)
      if (id === undefined) return url
      pushUnique(issueIds, id, maxIssueIds)
      return " "
    })
    for (const match of text.matchAll(hexId)) pushUnique(eventIds, match[0].toLowerCase(), maxEventIds)
    for (const match of text.matchAll(dashedId)) {
      const before = text.slice(Math.max(0, (match.index ?? 0) - 40), match.index)
      if (eventContext.test(before)) pushUnique(eventIds, match[0].replaceAll("-", "").toLowerCase(), maxEventIds)
    }
    for (const sentry of text.matchAll(/sentry/gi)) {
      const window = text.slice(sentry.index ?? 0).split("\n")[0]!.slice(0, 60)
      for (const match of window.matchAll(shortIdInText)) pushUnique(shortIds, match[0], maxShortIds)
    }
    for (const message of messagesOf(text)) {
      pushUnique(messages, message, maxMessages, (m) => `${m.type}: ${m.value}`.toLowerCase())
    }
  }
  return { issueIds, shortIds, eventIds, messages }
}

const normalizeText = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim()

/**
 * Whether a search hit is the error the ticket quotes, not merely a similar one: its title
 * holds the whole message, or its recorded type and value are the message's.
 */
export const isConvincing = (message: ErrorMessage, issue: { readonly title: string | null; readonly metadata?: { readonly type?: string | undefined; readonly value?: string | undefined } | undefined }) => {
  const shortType = message.type.split(".").pop()!
  const title = normalizeText(issue.title ?? "")
  const value = normalizeText(message.value)
  if (title.includes(normalizeText(`${message.type}: ${message.value}`))) return true
  if (title.includes(normalizeText(`${shortType}: ${message.value}`))) return true
  // Sentry shortens long titles and ends them with an ellipsis
  const cut = /(?:\u2026|\.\.\.)$/.exec(title)
  if (cut !== null) {
    const head = title.slice(0, cut.index).trim()
    if (head.length >= 30 && normalizeText(`${shortType}: ${message.value}`).startsWith(head)) return true
  }
  const metadata = issue.metadata
  return metadata?.type !== undefined && metadata.value !== undefined &&
    metadata.type.split(".").pop() === shortType && normalizeText(metadata.value) === value
}

const Issue = Schema.Struct({
  id: Schema.Union([Schema.String, Schema.Number]),
  shortId: Schema.optional(Schema.NullOr(Schema.String)),
  title: Schema.optional(Schema.NullOr(Schema.String)),
  permalink: Schema.optional(Schema.NullOr(Schema.String)),
  metadata: Schema.optional(Schema.NullOr(Schema.Struct({
    type: Schema.optional(Schema.String),
    value: Schema.optional(Schema.String)
  })))
})
type Issue = typeof Issue.Type

const EventLookup = Schema.Struct({ groupId: Schema.Union([Schema.String, Schema.Number]) })
const ShortIdLookup = Schema.Struct({ group: Issue })
const SearchResults = Schema.Array(Issue)

/** The `sentry` layer: Sentry's web API over fetch, which Node and Deno both have. */
export const layer: Layer.Layer<ErrorTracker, never, AppConfig> = Layer.effect(
  ErrorTracker,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const client = yield* HttpClient.HttpClient
    const org = config.sentryOrg.trim()
    const token = config.sentryAuthToken
    if (org === "" || Option.isNone(token)) {
      yield* Effect.logWarning("ERROR_TRACKER=sentry needs SENTRY_ORG and SENTRY_AUTH_TOKEN; no Sentry issues will be linked")
      return ErrorTracker.of({ name: "sentry", findIssues: () => Effect.succeed([]) })
    }
    const target: SentryTarget = { baseUrl: config.sentryBaseUrl, org }
    const apiBase = `${config.sentryBaseUrl.replace(/\/+$/, "")}/api/0/organizations/${encodeURIComponent(org)}`

    const unavailable = (message: string, cause?: unknown) => new ErrorTrackerUnavailable({ message, cause })

    /** None for an answer that means "no such thing"; a failure for anything worth retrying. */
    const get = <S extends Schema.Top & { readonly DecodingServices: never }>(
      schema: S,
      path: string,
      urlParams: Record<string, string> = {}
    ) =>
      client.execute(
        HttpClientRequest.get(`${apiBase}${path}`, { urlParams, acceptJson: true }).pipe(
          HttpClientRequest.bearerToken(token.value)
        )
      ).pipe(
        Effect.flatMap((response) => {
          const status = response.status
          if (status >= 200 && status < 300) {
            return response.json.pipe(
              Effect.flatMap(Schema.decodeUnknownEffect(schema)),
              Effect.map(Option.some),
              Effect.mapError((cause) => unavailable(`Sentry answered ${path} with an unexpected body`, cause))
            )
          }
          // a bad token or a rate limit is fixed by waiting or by the operator, so retry later
          if (status === 401 || status === 408 || status === 429 || status >= 500) {
            return Effect.fail(unavailable(`Sentry answered ${status} to ${path}`))
          }
          return (status === 404
            ? Effect.void
            : Effect.logWarning("Sentry refused a lookup").pipe(Effect.annotateLogs({ status, path }))).pipe(
              Effect.as(Option.none<S["Type"]>())
            )
        }),
        Effect.timeoutOrElse({
          duration: requestTimeout,
          orElse: () => Effect.fail(unavailable(`Sentry did not answer ${path} within ${Duration.format(requestTimeout)}`))
        }),
        Effect.catchTag("HttpClientError", (cause) => Effect.fail(unavailable(`Sentry is unreachable: ${cause.message}`, cause)))
      )

    const link = (issue: Issue, matched_by: LinkedIssue["matched_by"]): LinkedIssue => {
      const id = String(issue.id)
      return {
        provider: "sentry",
        id,
        short_id: issue.shortId ?? null,
        title: issue.title ?? null,
        url: issue.permalink ?? `${config.sentryBaseUrl.replace(/\/+$/, "")}/organizations/${org}/issues/${id}/`,
        matched_by
      }
    }

    const issueById = (id: string) => get(Issue, `/issues/${encodeURIComponent(id)}/`)

    const byIssueId = (id: string) =>
      issueById(id).pipe(Effect.map(Option.map((issue) => [link(issue, "issue_url")])))

    // a short id is as direct a reference as a URL, so it is recorded as one
    const byShortId = (shortId: string) =>
      get(ShortIdLookup, `/shortids/${encodeURIComponent(shortId)}/`).pipe(
        Effect.map(Option.map(({ group }) => [link(group, "issue_url")]))
      )

    const byEventId = (eventId: string) =>
      get(EventLookup, `/eventids/${eventId}/`).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeedNone,
          onSome: ({ groupId }) => issueById(String(groupId))
        })),
        Effect.map(Option.map((issue) => [link(issue, "event_id")]))
      )

    const bySearch = (message: ErrorMessage) =>
      get(SearchResults, "/issues/", {
        query: `"${`${message.type}: ${message.value}`.replace(/[\\"]/g, "\\$&")}"`,
        limit: String(searchLimit),
        statsPeriod: "14d"
      }).pipe(
        Effect.map(Option.map((issues) =>
          issues
            .filter((issue) => isConvincing(message, { title: issue.title ?? null, metadata: issue.metadata ?? undefined }))
            .slice(0, maxSearchLinks)
            .map((issue) => link(issue, "search"))
        ))
      )

    const findIssues = Effect.fn("ErrorTracker.findIssues")(function*(input: ErrorTrackerInput) {
      const references = extractReferences(input, target)
      yield* Effect.annotateCurrentSpan({
        issueIds: references.issueIds.length,
        shortIds: references.shortIds.length,
        eventIds: references.eventIds.length,
        messages: references.messages.length
      })
      // the order of the lookups is the order of preference when one issue is found twice
      const lookups = [
        ...references.issueIds.map(byIssueId),
        ...references.shortIds.map(byShortId),
        ...references.eventIds.map(byEventId),
        ...references.messages.map(bySearch)
      ]
      const found = yield* Effect.all(lookups, { concurrency: 4 }).pipe(
        Effect.timeoutOrElse({
          duration: totalTimeout,
          orElse: () => Effect.fail(unavailable(`Sentry lookups took longer than ${Duration.format(totalTimeout)}`))
        })
      )
      const linked = new Map<string, LinkedIssue>()
      for (const issue of found.flatMap(Option.getOrElse(() => [] as ReadonlyArray<LinkedIssue>))) {
        if (!linked.has(issue.id)) linked.set(issue.id, issue)
      }
      return [...linked.values()]
    })

    return ErrorTracker.of({ name: "sentry", findIssues })
  })
).pipe(Layer.provide(FetchHttpClient.layer))
