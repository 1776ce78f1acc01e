import { backoffDelay, retryAfterMs, sleep } from "../../src/client/Retry.ts"
import type {
  AddMessageInput,
  ArticleSearchResult,
  CreateTicketInput,
  Message,
  PublicArticle,
  Ticket
} from "../../src/client/Types.ts"
import type { WidgetConfig } from "./config.ts"

/** Retries after a 429 (so up to 5 attempts in all). */
const MAX_RETRIES = 4
const BACKOFF_BASE_MS = 1_000
/** Longest wait honoured from a `Retry-After` header. */
export const MAX_WAIT_MS = 60_000

export const PREFIX = "[support-widget]"

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

/** The service's code and message of a refusal, for the console (visitors see plain words instead). */
const refusal = async (res: Response) => {
  const error = (await readJson(res))?.error
  return {
    code: typeof error?.code === "string" ? error.code : `HTTP_${res.status}`,
    message: typeof error?.message === "string" ? error.message : res.statusText
  }
}

const reported = new Set<string>()
/** Logs what the service refused, with its request id; each kind of refusal once per page. */
const report = (what: string, res: Response, error: { code: string; message: string }) => {
  const line = `${PREFIX} ${what} failed: ${res.status} ${error.code}: ${error.message}`
  if (reported.has(line)) return
  reported.add(line)
  const id = res.headers.get("X-Request-Id")
  console.error(id ? `${line} (request id ${id})` : line)
}

type RateLimited = { kind: "rate-limited"; retryAfterMs: number | undefined }

/** What a POST (a ticket, or a reply) came to after its retries; `data` is the answer's body. */
export type PostOutcome =
  | { kind: "created"; data: any }
  | { kind: "rejected"; code: string; message: string }
  | { kind: "unreachable" }
  | { kind: "gave-up" }

type Attempt = Exclude<PostOutcome, { kind: "gave-up" }> | RateLimited

const auth = (config: WidgetConfig) => ({ Authorization: `Bearer ${config.projectKey}` })

const get = (config: WidgetConfig, path: string) =>
  fetch(`${config.baseUrl}${path}`, { mode: "cors", credentials: "omit", headers: auth(config) })

async function attempt(
  config: WidgetConfig,
  path: string,
  what: string,
  payload: unknown,
  idempotencyKey: string
): Promise<Attempt> {
  let res: Response
  try {
    res = await fetch(`${config.baseUrl}${path}`, {
      method: "POST",
      mode: "cors",
      credentials: "omit",
      headers: { ...auth(config), "Content-Type": "application/json", "Idempotency-Key": idempotencyKey },
      body: JSON.stringify(payload)
    })
  } catch {
    return { kind: "unreachable" }
  }
  checkScope(res)
  if (res.status === 429) return { kind: "rate-limited", retryAfterMs: retryAfterMs(res.headers.get("Retry-After")) }
  if (res.ok) return { kind: "created", data: await readJson(res) }
  const error = await refusal(res)
  report(what, res, error)
  return res.status >= 500 ? { kind: "unreachable" } : { kind: "rejected", ...error }
}

/**
 * POSTs with the Idempotency-Key one filled-in form (or reply) keeps while it is tried again after
 * each 429 (Retry-After, else backoff with full jitter), up to MAX_RETRIES times.
 */
async function post(
  config: WidgetConfig,
  path: string,
  what: string,
  payload: unknown,
  idempotencyKey: string,
  onBusy: () => void
): Promise<PostOutcome> {
  for (let retries = 0; ; retries++) {
    const outcome = await attempt(config, path, what, payload, idempotencyKey)
    if (outcome.kind !== "rate-limited") return outcome
    if (retries >= MAX_RETRIES) return { kind: "gave-up" }
    onBusy()
    await sleep(Math.min(outcome.retryAfterMs ?? backoffDelay(retries, BACKOFF_BASE_MS, MAX_WAIT_MS), MAX_WAIT_MS), undefined)
  }
}

export const createTicket = (config: WidgetConfig, payload: CreateTicketInput, idempotencyKey: string, onBusy: () => void) =>
  post(config, "/v1/tickets", "sending the ticket", payload, idempotencyKey, onBusy)

export const addReply = (
  config: WidgetConfig,
  ticketId: string,
  body: string,
  email: string,
  idempotencyKey: string,
  onBusy: () => void
) => {
  const payload: AddMessageInput = { body, contact_email: email }
  return post(config, `/v1/tickets/${encodeURIComponent(ticketId)}/messages`, "sending the reply", payload, idempotencyKey, onBusy)
}

export type TicketView = Pick<Ticket, "status" | "messages">

export type Suggestion = Pick<ArticleSearchResult, "id" | "title" | "excerpt">

/** What a read of a visitor's ticket came to: gone (404) is final, the rest may pass. */
export type ReadOutcome =
  | { kind: "ok"; ticket: TicketView }
  | { kind: "gone" }
  | RateLimited
  | { kind: "failed" }

/** The ticket's status and public conversation, as the visitor who filed it may read it. */
export async function readTicket(config: WidgetConfig, ticketId: string, email: string): Promise<ReadOutcome> {
  let res: Response
  try {
    res = await get(config, `/v1/tickets/${encodeURIComponent(ticketId)}?contact_email=${encodeURIComponent(email)}`)
  } catch {
    return { kind: "failed" }
  }
  checkScope(res)
  if (res.status === 429) return { kind: "rate-limited", retryAfterMs: retryAfterMs(res.headers.get("Retry-After")) }
  if (res.status === 404) return { kind: "gone" }
  const data = await readJson(res)
  if (!res.ok || typeof data?.status !== "string") {
    if (!res.ok) report("reading the ticket", res, { code: data?.error?.code ?? `HTTP_${res.status}`, message: data?.error?.message ?? "" })
    return { kind: "failed" }
  }
  const messages: Message[] = (Array.isArray(data.messages) ? data.messages : []).filter((m: any) =>
    m && typeof m.id === "string" && typeof m.body === "string"
  )
  return { kind: "ok", ticket: { status: data.status, messages } }
}

/** A published article by id; throws on any failure. */
export async function getArticle(config: WidgetConfig, id: string): Promise<Pick<PublicArticle, "title" | "body">> {
  const res = await get(config, `/v1/articles/${encodeURIComponent(id)}`)
  checkScope(res)
  if (!res.ok) {
    report("reading the article", res, await refusal(res))
    throw new Error(`article failed: ${res.status}`)
  }
  const data = await res.json()
  if (typeof data?.title !== "string" || typeof data?.body !== "string") throw new Error("not an article")
  return { title: data.title, body: data.body }
}

/** Up to `limit` published articles for `q`; throws on any failure. */
export async function searchArticles(config: WidgetConfig, q: string, limit = 3): Promise<Suggestion[]> {
  const res = await get(config, `/v1/articles/search?q=${encodeURIComponent(q)}&limit=${limit}`)
  checkScope(res)
  if (!res.ok) {
    report("searching articles", res, await refusal(res))
    throw new Error(`search failed: ${res.status}`)
  }
  const data = await res.json()
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
