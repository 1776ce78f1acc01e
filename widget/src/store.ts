import type { WidgetConfig } from "./config.ts"

/**
 * A ticket the visitor filed from this widget. `access_token` opens it; an entry of an older
 * widget has only the `email` it was filed with, which no longer opens it with a widget key.
 */
export interface Request {
  readonly ticket_id: string
  readonly ticket_number: number
  readonly subject: string
  readonly access_token?: string | undefined
  readonly email?: string | undefined
  /** Added to the verified visitor's list (POST /v1/tickets/:id/claim) already. */
  readonly claimed?: boolean
  /** The last status read, to pick an open ticket to follow while the panel is closed. */
  readonly status?: string
  /** The last event id of its stream, to resume on the next page. */
  readonly last_event_id?: string
  /** Replies from support the visitor has not seen yet. */
  readonly unread?: number
  /** When the visitor last looked at the conversation (ms since the epoch). */
  readonly seen_at?: number
}

/** The newest ones kept; older requests drop out of the list. */
export const MAX_REQUESTS = 20

const isRequest = (r: any): r is Request =>
  r && typeof r.ticket_id === "string" && typeof r.ticket_number === "number" && typeof r.subject === "string" &&
  (typeof r.access_token === "string" || typeof r.email === "string")

export type RequestStore = ReturnType<typeof requestStore>

/** The key of one service and project key, so two widgets on a page or two sites never mix. */
const keyOf = (config: WidgetConfig) => `support-widget:${config.baseUrl}:${config.projectKey}`

/** localStorage, or none where even reading it throws (Safari's private mode, a sandboxed frame). */
const storage = (): Storage | undefined => {
  try {
    return window.localStorage
  } catch {
    return undefined
  }
}

/** What is stored under `key`; undefined when it is missing, corrupt or cannot be read. */
const load = (key: string): unknown => {
  try {
    return JSON.parse(storage()?.getItem(key) ?? "null") ?? undefined
  } catch {
    return undefined
  }
}

/** Stores `value` under `key`, or removes it when undefined; full or refusing storage is ignored. */
const keep = (key: string, value: unknown) => {
  try {
    const s = storage()
    if (value === undefined) s?.removeItem(key)
    else s?.setItem(key, JSON.stringify(value))
  } catch {
    /* full or refused: the page keeps its copy */
  }
}

/**
 * The visitor's requests in localStorage, one list per service and project key, newest first.
 * Storage that is missing, full, corrupt or throws leaves a list that lives as long as the page.
 */
export function requestStore(config: WidgetConfig) {
  const key = keyOf(config)
  const stored = load(key)
  let list: Request[] = Array.isArray(stored) ? stored.filter(isRequest).slice(0, MAX_REQUESTS) : []
  const save = () => keep(key, list.length ? list : undefined)
  return {
    list: () => list,
    get: (ticketId: string) => list.find((r) => r.ticket_id === ticketId),
    add(request: Request) {
      list = [request, ...list.filter((r) => r.ticket_id !== request.ticket_id)].slice(0, MAX_REQUESTS)
      save()
    },
    /** Changes a stored request; one not stored is left alone. */
    update(ticketId: string, change: Partial<Request>) {
      list = list.map((r) => (r.ticket_id === ticketId ? { ...r, ...change } : r))
      save()
    },
    remove(ticketId: string) {
      list = list.filter((r) => r.ticket_id !== ticketId)
      save()
    }
  }
}

/** The name and email the visitor last filed a ticket with, to fill in again on the next visit. */
export interface Visitor {
  readonly name: string
  readonly email: string
}

export type VisitorStore = ReturnType<typeof visitorStore>

/** The visitor's name and email next to their requests, with the same fallbacks. */
export function visitorStore(config: WidgetConfig) {
  const key = `${keyOf(config)}:visitor`
  const stored = load(key) as Partial<Record<keyof Visitor, unknown>> | undefined
  const text = (value: unknown) => (typeof value === "string" ? value : "")
  let visitor: Visitor = { name: text(stored?.name), email: text(stored?.email) }
  return {
    get: () => visitor,
    set(next: Visitor) {
      visitor = next
      keep(key, next.name || next.email ? next : undefined)
    }
  }
}
