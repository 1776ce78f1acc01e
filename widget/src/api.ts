import { backoffDelay, retryAfterMs, sleep } from "../../src/client/Retry.ts"
import type { ArticleSearchResult, Attachment, CreateTicketInput, PublicArticle } from "../../src/client/Types.ts"
import type { WidgetConfig } from "./config.ts"

/** Retries after a 429 (so up to 5 attempts in all), each only when the wait is short. */
const MAX_RETRIES = 4
const BACKOFF_BASE_MS = 1_000
/** Longest `Retry-After` a POST waits out by itself; a longer one is the visitor's to see. */
const MAX_AUTO_WAIT_MS = 10_000

export const PREFIX = "[support-widget]"

/** What the widget needs to read, answer and stream one ticket. */
export interface TicketRef {
  readonly ticket_id: string
  /** The ticket's secret (`tat_…`), sent as `X-Ticket-Token`; a verified visitor may have none. */
  readonly access_token?: string | undefined
}

const readJson = async (res: Response): Promise<any> => {
  try {
    return await res.json()
  } catch {
    return undefined
  }
}

let warnedFullKey = false
/**
 * The service marks what it answers to a widget key (`Api-Key-Scope: widget`); an answer without
 * the mark went to a full key, which anyone who views the page can copy to read and change every
 * ticket of the project. That is for the site's developer, once, in the console.
 */
const checkScope = (res: Response) => {
  if (warnedFullKey || !res.ok || res.headers.get("Api-Key-Scope") === "widget") return
  warnedFullKey = true
  console.warn(
    `${PREFIX} SupportWidgetConfig.projectKey is a full API key: anyone who views this page can use it to read and change every ticket of the project. Use a key with the widget scope (POST /v1/admin/projects/:pid/api-keys with {"scope":"widget"}) instead.`
  )
}

const reported = new Set<string>()
/** Logs once per page and kind what the service refused, with its request id. */
const report = (line: string, res: Response, warn?: boolean) => {
  if (reported.has(line)) return
  reported.add(line)
  const id = res.headers.get("X-Request-Id")
  ;(warn ? console.warn : console.error)(id ? `${line} (request id ${id})` : line)
}

/** The headers of every call: the key, the verified visitor's token, and the ticket's token. */
export const headers = (config: WidgetConfig, ticket?: TicketRef): Record<string, string> => {
  const all: Record<string, string> = { Authorization: `Bearer ${config.projectKey}` }
  if (config.identityToken) all["X-Visitor-Token"] = config.identityToken
  if (ticket?.access_token) all["X-Ticket-Token"] = ticket.access_token
  return all
}

/** What a call came to. `gone` is a 404; `unauthorized` a 401 while a visitor token is configured. */
export type Outcome =
  | { kind: "ok"; data: any }
  | { kind: "gone" }
  | { kind: "rate-limited"; retryAfterMs: number | undefined }
  | { kind: "unauthorized" }
  | { kind: "rejected"; code: string; message: string }
  | { kind: "unreachable" }

/** Seconds to tell the visitor after a 429: the `Retry-After`, else a minute's worth of caution. */
export const retrySeconds = (outcome: { retryAfterMs?: number | undefined }) =>
  Math.max(1, Math.ceil((outcome.retryAfterMs ?? 30_000) / 1000))

/** Whether the response to an answer of `status` is about the visitor token (401 with one configured). */
export const visitorRefused = async (config: WidgetConfig, res: Response) => {
  if (res.status !== 401 || !config.identityToken) return false
  const message = (await readJson(res))?.error?.message
  report(`${PREFIX} SupportWidgetConfig.identityToken was refused: ${typeof message === "string" ? message : res.statusText}`, res, true)
  return true
}

export const rateLimit = (res: Response) => ({
  kind: "rate-limited" as const,
  retryAfterMs: retryAfterMs(res.headers.get("Retry-After"))
})

/** One call of the API; never throws. */
export async function call(
  config: WidgetConfig,
  what: string,
  path: string,
  options: { method?: string; ticket?: TicketRef | undefined; payload?: unknown; key?: string } = {}
): Promise<Outcome> {
  let res: Response
  try {
    const all = headers(config, options.ticket)
    // a form (an upload) goes as it is: the browser writes its multipart Content-Type
    const form = options.payload instanceof FormData
    if (options.payload !== undefined && !form) all["Content-Type"] = "application/json"
    if (options.key) all["Idempotency-Key"] = options.key
    res = await fetch(`${config.baseUrl}${path}`, {
      method: options.method ?? "GET",
      mode: "cors",
      credentials: "omit",
      headers: all,
      body: form ? (options.payload as FormData) : options.payload === undefined ? undefined : JSON.stringify(options.payload)
    })
  } catch {
    return { kind: "unreachable" }
  }
  checkScope(res)
  if (res.status === 429) return rateLimit(res)
  if (await visitorRefused(config, res)) return { kind: "unauthorized" }
  const data = await readJson(res)
  if (res.ok) return { kind: "ok", data }
  if (res.status === 404) return { kind: "gone" }
  const code = typeof data?.error?.code === "string" ? data.error.code : `HTTP_${res.status}`
  const message = typeof data?.error?.message === "string" ? data.error.message : res.statusText
  report(`${PREFIX} ${what} failed: ${res.status} ${code}: ${message}`, res)
  return res.status >= 500 ? { kind: "unreachable" } : { kind: "rejected", code, message }
}

/**
 * POSTs with the Idempotency-Key one filled-in form (or reply) keeps while it is tried again after
 * a 429 with a short wait (Retry-After, else backoff with full jitter), up to MAX_RETRIES times. A
 * longer wait comes back as `rate-limited`, for the visitor to see how long.
 */
async function post(
  config: WidgetConfig,
  path: string,
  what: string,
  payload: unknown,
  key: string,
  onBusy: () => void,
  ticket?: TicketRef
): Promise<Outcome> {
  for (let retries = 0; ; retries++) {
    const outcome = await call(config, what, path, { method: "POST", payload, key, ticket })
    if (outcome.kind !== "rate-limited") return outcome
    const wait = outcome.retryAfterMs ?? backoffDelay(retries, BACKOFF_BASE_MS, MAX_AUTO_WAIT_MS)
    if (retries >= MAX_RETRIES || wait > MAX_AUTO_WAIT_MS) return outcome
    onBusy()
    await sleep(wait, undefined)
  }
}

const ticketPath = (ticket: TicketRef, rest = "") => `/v1/tickets/${encodeURIComponent(ticket.ticket_id)}${rest}`

export const createTicket = (config: WidgetConfig, payload: CreateTicketInput, key: string, onBusy: () => void) =>
  post(config, "/v1/tickets", "sending the ticket", payload, key, onBusy)

export const addReply = (config: WidgetConfig, ticket: TicketRef, body: string, ids: string[], key: string, onBusy: () => void) =>
  post(config, ticketPath(ticket, "/messages"), "sending the reply", { body, attachment_ids: ids[0] ? ids : undefined }, key, onBusy, ticket)

/** Uploads one file (multipart, field `file`); the answer's `upload_id` goes in `attachment_ids`. No Idempotency-Key: uploads take none. */
export const upload = (config: WidgetConfig, file: File, onBusy: () => void) => {
  const form = new FormData()
  form.append("file", file, file.name)
  return post(config, "/v1/uploads", "uploading a file", form, "", onBusy)
}

/**
 * A file of the conversation, fetched with the ticket's proof, which a plain link could not send;
 * undefined when it cannot be had. Only the service's own download paths get the key.
 */
export async function download(config: WidgetConfig, ticket: TicketRef, url: string): Promise<Blob | undefined> {
  if (!/^\/v1\/attachments\/[\w-]+$/.test(url)) return
  try {
    const res = await fetch(`${config.baseUrl}${url}`, { mode: "cors", credentials: "omit", headers: headers(config, ticket) })
    if (res.ok) return await res.blob()
  } catch {
    /* unreachable: said by the caller */
  }
}

/** Adds an anonymously filed ticket to the verified visitor's list. */
export const claimTicket = (config: WidgetConfig, ticket: TicketRef) =>
  call(config, "claiming a ticket", ticketPath(ticket, "/claim"), { method: "POST", ticket })

/** The visitor's rating of a resolved ticket they were asked about; a second is a 409. */
export const rateTicket = (config: WidgetConfig, ticket: TicketRef, rating: number | string) =>
  call(config, "rating the ticket", ticketPath(ticket, "/rating"), { method: "POST", ticket, payload: { rating } })

/** A public message; the visitor's opening message is one too (id `opening`). */
export interface Msg {
  readonly id: string
  readonly author_type: string
  readonly author_name?: string | null | undefined
  readonly body: string
  readonly created_at: string
  readonly attachments?: ReadonlyArray<Attachment> | undefined
}

export interface TicketView {
  readonly status: string
  readonly subject?: string
  readonly ticket_number?: number
  /** Oldest first, the opening message first when the service gives it. */
  readonly messages: Msg[]
  /** Set once the visitor was asked to rate the resolved ticket. */
  readonly satisfaction?: { readonly scale: string; readonly rating: unknown } | null
}

export const isMsg = (m: any): m is Msg => m && typeof m.id === "string" && typeof m.body === "string"

/** The ticket's status and public conversation, as its visitor may read it; `into` the ticket it was merged into, whose read it is then. */
export async function readTicket(config: WidgetConfig, ticket: TicketRef): Promise<Outcome & { ticket?: TicketView; into?: string }> {
  const outcome = await call(config, "reading the ticket", ticketPath(ticket), { ticket })
  if (outcome.kind !== "ok") return outcome
  const data = outcome.data
  if (typeof data?.status !== "string") return { kind: "unreachable" }
  // merged: the conversation lives on in the target, which this ticket's secret opens too
  const into = data.merged_into_id
  if (into) return { ...(await readTicket(config, { ...ticket, ticket_id: into })), into }
  const messages: Msg[] = (Array.isArray(data.messages) ? data.messages : []).filter(isMsg)
  if (typeof data.body === "string") {
    messages.unshift({ id: "opening", author_type: "contact", body: data.body, created_at: data.created_at, attachments: data.attachments })
  }
  return { ...outcome, ticket: { status: data.status, subject: data.subject, ticket_number: data.ticket_number, messages, satisfaction: data.satisfaction } }
}

/** A verified visitor's tickets, on any device (GET /v1/tickets with X-Visitor-Token). */
export const listTickets = (config: WidgetConfig) => call(config, "listing the visitor's tickets", "/v1/tickets?limit=50")

export type Suggestion = Pick<ArticleSearchResult, "id" | "title" | "excerpt">

const okData = async (config: WidgetConfig, what: string, path: string) => {
  const outcome = await call(config, what, path)
  if (outcome.kind !== "ok") throw new Error(`${what} failed: ${outcome.kind}`)
  return outcome.data
}

/** A published article by id; throws on any failure. */
export async function getArticle(config: WidgetConfig, id: string): Promise<Pick<PublicArticle, "title" | "body">> {
  const data = await okData(config, "reading the article", `/v1/articles/${encodeURIComponent(id)}`)
  if (typeof data?.title !== "string" || typeof data?.body !== "string") throw new Error("not an article")
  return { title: data.title, body: data.body }
}

/** Up to `limit` published articles for `q`; throws on any failure. */
export async function searchArticles(config: WidgetConfig, q: string, limit = 3): Promise<Suggestion[]> {
  const data = await okData(config, "searching articles", `/v1/articles/search?q=${encodeURIComponent(q)}&limit=${limit}`)
  const list: unknown[] = Array.isArray(data?.articles) ? data.articles : []
  return list
    .filter((a: any) => a && typeof a.title === "string" && typeof a.id === "string")
    .slice(0, limit)
    .map((a: any) => ({ id: a.id, title: a.title, excerpt: typeof a.excerpt === "string" ? a.excerpt : "" }))
}

/** The text of an HTML fragment (e.g. an excerpt with `<mark>`), parsed inertly: no scripts, no loads. */
export function htmlToText(html: string): string {
  try {
    const doc = new DOMParser().parseFromString(html, "text/html")
    return (doc.body.textContent ?? "").replace(/\s+/g, " ").trim()
  } catch {
    return html.replace(/<[^>]*>/g, "")
  }
}
