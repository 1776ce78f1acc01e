import { retryAfterMs } from "../../src/client/Retry.ts"
import type { WidgetConfig } from "./config.ts"

export interface TicketPayload {
  subject: string
  body: string
  sender_name?: string
  sender_email?: string
  priority?: string
  source: "widget"
}

export interface Article {
  title: string
  excerpt: string
}

/** What one POST /v1/tickets attempt came to. */
export type TicketOutcome =
  | { kind: "created"; ticketNumber: number | undefined }
  | { kind: "rejected"; code: string; message: string }
  | { kind: "rate-limited"; retryAfterMs: number | undefined }
  | { kind: "unreachable" }

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

export async function createTicket(
  config: WidgetConfig,
  payload: TicketPayload,
  idempotencyKey: string
): Promise<TicketOutcome> {
  let res: Response
  try {
    res = await fetch(`${config.baseUrl}/v1/tickets`, {
      method: "POST",
      mode: "cors",
      credentials: "omit",
      headers: {
        Authorization: `Bearer ${config.projectKey}`,
        "Content-Type": "application/json",
        "Idempotency-Key": idempotencyKey
      },
      body: JSON.stringify(payload)
    })
  } catch {
    return { kind: "unreachable" }
  }
  checkScope(res)
  if (res.status === 429) return { kind: "rate-limited", retryAfterMs: retryAfterMs(res.headers.get("Retry-After")) }
  if (res.ok) {
    const n = (await readJson(res))?.ticket_number
    return { kind: "created", ticketNumber: typeof n === "number" || typeof n === "string" ? Number(n) : undefined }
  }
  const error = await refusal(res)
  report("sending the ticket", res, error)
  return res.status >= 500 ? { kind: "unreachable" } : { kind: "rejected", ...error }
}

/** Up to `limit` published articles for `q`; throws on any failure. */
export async function searchArticles(config: WidgetConfig, q: string, limit = 3): Promise<Article[]> {
  const res = await fetch(
    `${config.baseUrl}/v1/articles/search?q=${encodeURIComponent(q)}&limit=${limit}`,
    { mode: "cors", credentials: "omit", headers: { Authorization: `Bearer ${config.projectKey}` } }
  )
  checkScope(res)
  if (!res.ok) {
    report("searching articles", res, await refusal(res))
    throw new Error(`search failed: ${res.status}`)
  }
  const data = await res.json()
  const list: unknown[] = Array.isArray(data?.articles) ? data.articles : []
  return list
    .filter((a: any) => a && typeof a.title === "string")
    .slice(0, limit)
    .map((a: any) => ({ title: a.title, excerpt: typeof a.excerpt === "string" ? a.excerpt : "" }))
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
