import type { CreatedTicket } from "../../src/client/Types.ts"
import type { WidgetConfig } from "./config.ts"

/** A ticket the visitor filed from this widget: what it takes to read it again, nothing more. */
export interface Request extends CreatedTicket {
  readonly subject: string
  readonly email: string
}

/** The newest ones kept; older requests drop out of the list. */
export const MAX_REQUESTS = 20

const isRequest = (r: any): r is Request =>
  r && typeof r.ticket_id === "string" && typeof r.ticket_number === "number" && typeof r.subject === "string" &&
  typeof r.email === "string"

export type RequestStore = ReturnType<typeof requestStore>

/**
 * The visitor's requests in localStorage, one list per service and project key, so two widgets on
 * a page or two sites never mix. Storage that is missing, full, corrupt or throws (Safari's
 * private mode, a sandboxed frame) leaves a list that lives as long as the page.
 */
export function requestStore(config: WidgetConfig) {
  const key = `support-widget:${config.baseUrl}:${config.projectKey}`
  const storage = (): Storage | undefined => {
    try {
      return window.localStorage
    } catch {
      return undefined
    }
  }
  let list: Request[] = []
  try {
    const stored = JSON.parse(storage()?.getItem(key) ?? "[]")
    if (Array.isArray(stored)) list = stored.filter(isRequest).slice(0, MAX_REQUESTS)
  } catch {
    /* corrupt: start empty */
  }
  const save = () => {
    try {
      const s = storage()
      if (list.length) s?.setItem(key, JSON.stringify(list))
      else s?.removeItem(key)
    } catch {
      /* full or refused: the page keeps the list */
    }
  }
  return {
    list: () => list,
    add(request: Request) {
      list = [request, ...list.filter((r) => r.ticket_id !== request.ticket_id)].slice(0, MAX_REQUESTS)
      save()
    },
    remove(ticketId: string) {
      list = list.filter((r) => r.ticket_id !== ticketId)
      save()
    }
  }
}
