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
  | { kind: "rejected"; status: number; message: string }
  | { kind: "rate-limited"; retryAfterMs: number | undefined }
  | { kind: "unreachable" }

const readJson = async (res: Response): Promise<any> => {
  try {
    return await res.json()
  } catch {
    return undefined
  }
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
  if (res.status === 429) return { kind: "rate-limited", retryAfterMs: retryAfterMs(res.headers.get("Retry-After")) }
  if (res.status >= 500 || res.status < 200) return { kind: "unreachable" }
  const data = await readJson(res)
  if (res.ok) {
    const n = data?.ticket_number
    return { kind: "created", ticketNumber: typeof n === "number" || typeof n === "string" ? Number(n) : undefined }
  }
  const message = data?.error?.message
  return {
    kind: "rejected",
    status: res.status,
    message: typeof message === "string" && message.trim() !== ""
      ? message
      : `Your request could not be sent (error ${res.status}).`
  }
}

/** Up to `limit` published articles for `q`; throws on any failure. */
export async function searchArticles(config: WidgetConfig, q: string, limit = 3): Promise<Article[]> {
  const res = await fetch(
    `${config.baseUrl}/v1/articles/search?q=${encodeURIComponent(q)}&limit=${limit}`,
    { mode: "cors", credentials: "omit", headers: { Authorization: `Bearer ${config.projectKey}` } }
  )
  if (!res.ok) throw new Error(`search failed: ${res.status}`)
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
