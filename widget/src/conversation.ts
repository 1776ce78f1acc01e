import { randomId } from "../../src/client/randomId.ts"
import { addReply, MAX_WAIT_MS, readTicket, type TicketView } from "./api.ts"
import type { WidgetConfig } from "./config.ts"
import { backButton, h, heading, viewSection } from "./dom.ts"
import type { Panel, View } from "./launcher.ts"
import { MESSAGES } from "./messages.ts"
import type { Request, RequestStore } from "./store.ts"

const STATUSES: Record<string, string> = {
  open: "Open",
  in_progress: "In progress",
  waiting: "Waiting for your reply",
  resolved: "Resolved",
  closed: "Closed"
}

/** How often an open conversation asks for new replies: the key's budget is shared by every visitor. */
const POLL_MS = 5_000

const statusText = (status: string) => STATUSES[status] ?? status

const when = (iso: string) => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
}

export interface Conversation {
  /** The "Your requests (N)" button, placed at the top of the form. */
  readonly entry: HTMLElement
  readonly list: View
  readonly conversation: View
  remember(request: Request): void
  /** Reads the open conversation now and every POLL_MS while it is on screen; otherwise stops. */
  poll(): Promise<void>
}

/** The visitor's requests, and one conversation kept current while someone looks at it, with replies. */
export function conversation(config: WidgetConfig, store: RequestStore, panel: Panel): Conversation {
  const entry = h("button", { type: "button", class: "r", "data-testid": "requests-entry", hidden: true })

  const listTitle = heading("requests-title", "Your requests")
  listTitle.id = "sw-requests-title"
  const listBack = backButton("requests-back", "Back to the form")
  const requestList = h("ul", { class: "q", "data-testid": "request-list", "aria-labelledby": "sw-requests-title" })
  const list: View = { element: viewSection("requests", listBack, listTitle, requestList), focus: listTitle }

  const convBack = backButton("conversation-back", "Back to your requests")
  const convTitle = heading("conversation-title")
  const convStatus = h("p", { class: "m", "data-testid": "conversation-status" })
  const messages = h("ol", { class: "c", "data-testid": "messages", "aria-label": "Conversation" })
  const empty = h("p", { class: "m", "data-testid": "no-messages" }, MESSAGES.noMessages)
  // new replies from support are read out while the visitor looks elsewhere in the page
  const convLive = h("p", { class: "m", role: "status", "aria-live": "polite", "data-testid": "conversation-live" })
  const reply = h("textarea", { id: "sw-reply", rows: "3", required: true, maxlength: "50000", "data-testid": "reply" })
  const replyError = h("p", { id: "sw-reply-error", class: "m e", role: "alert", "data-testid": "reply-error" })
  const replySend = h("button", { type: "submit", class: "s", "data-testid": "reply-send" }, "Send reply")
  const replyForm = h(
    "form",
    // the widget's own message, not the browser's bubble as well: one message per problem
    { class: "f", "aria-label": "Reply", novalidate: true },
    h("label", { for: "sw-reply" }, "Your reply"),
    reply,
    replyError,
    replySend
  )
  const conv: View = {
    element: viewSection("conversation", convBack, convTitle, convStatus, messages, empty, convLive, replyForm),
    focus: convTitle
  }

  const showEntry = () => {
    const count = store.list().length
    entry.hidden = count === 0
    entry.textContent = `Your requests (${count})`
  }
  showEntry()

  let listSeq = 0
  /** The list, each with its status read afresh; one the service no longer shows drops out. */
  const openList = (focusTicket?: string) => {
    const seq = ++listSeq
    const items = store.list().map((request) => {
      const state = h("span", { class: "st", "data-testid": "request-status" }, MESSAGES.loading)
      const button = h(
        "button",
        { type: "button", "data-testid": "request" },
        h("b", {}, `#${request.ticket_number} ${request.subject}`),
        state
      )
      button.addEventListener("click", () => openConversation(request))
      const item = h("li", {}, button)
      void readTicket(config, request.ticket_id, request.email).then((read) => {
        if (seq !== listSeq) return
        if (read.kind === "gone") {
          store.remove(request.ticket_id)
          showEntry()
          item.remove()
        } else state.textContent = read.kind === "ok" ? statusText(read.ticket.status) : ""
      })
      return { request, button, item }
    })
    requestList.replaceChildren(...items.map((i) => i.item))
    panel.show(list)
    items.find((i) => i.request.ticket_id === focusTicket)?.button.focus()
  }
  entry.addEventListener("click", () => openList())
  listBack.addEventListener("click", () => {
    listSeq++
    showEntry()
    panel.home()
    if (!entry.hidden) entry.focus()
  })

  let current: Request | undefined
  let seen = new Set<string>()
  /** Replies that arrive after the first read are announced; the conversation as opened is not. */
  let loaded = false
  let pollTimer: ReturnType<typeof setTimeout> | undefined
  let pollSeq = 0
  const watching = () => current !== undefined && panel.shows(conv) && document.visibilityState !== "hidden"

  const render = (ticket: TicketView) => {
    convStatus.textContent = `Status: ${statusText(ticket.status)}`
    const fresh = ticket.messages.filter((m) => !seen.has(m.id))
    const announce = loaded
    loaded = true
    for (const m of fresh) {
      seen.add(m.id)
      const mine = m.author_type === "contact"
      messages.append(
        h(
          "li",
          { class: mine ? "me" : "", "data-testid": "message", "data-author": mine ? "you" : "support" },
          h("b", {}, mine ? "You" : "Support"),
          " ",
          h("time", { datetime: m.created_at }, when(m.created_at)),
          h("div", {}, m.body)
        )
      )
    }
    empty.hidden = messages.childElementCount > 0
    if (announce && fresh.some((m) => m.author_type !== "contact")) convLive.textContent = MESSAGES.newReply
  }

  const poll = async () => {
    clearTimeout(pollTimer)
    const seq = ++pollSeq
    if (!watching()) return
    const request = current!
    const read = await readTicket(config, request.ticket_id, request.email)
    if (seq !== pollSeq) return
    let wait = POLL_MS
    if (read.kind === "ok") render(read.ticket)
    else if (read.kind === "gone") {
      store.remove(request.ticket_id)
      showEntry()
      convStatus.textContent = MESSAGES.gone
      replyForm.hidden = true
      return
    } else if (read.kind === "rate-limited") wait = Math.min(Math.max(read.retryAfterMs ?? 0, POLL_MS), MAX_WAIT_MS)
    pollTimer = setTimeout(() => void poll(), wait)
  }
  document.addEventListener("visibilitychange", () => void poll())

  const openConversation = (request: Request) => {
    listSeq++
    current = request
    seen = new Set()
    loaded = false
    messages.replaceChildren()
    convLive.textContent = replyError.textContent = convStatus.textContent = ""
    empty.hidden = true
    replyForm.hidden = false
    reply.value = ""
    convTitle.textContent = `#${request.ticket_number} ${request.subject}`
    // showing it starts the reads (the panel's onChange)
    panel.show(conv)
  }
  convBack.addEventListener("click", () => {
    const ticket = current?.ticket_id
    current = undefined
    openList(ticket)
  })

  let replyKey: string | undefined
  let replyFor: string | undefined
  let replying = false
  replyForm.addEventListener("submit", (event) => {
    event.preventDefault()
    void (async () => {
      const request = current
      const text = reply.value.trim()
      if (replying || !request) return
      if (!text) {
        replyError.textContent = "Your reply is required"
        reply.setAttribute("aria-invalid", "true")
        reply.setAttribute("aria-describedby", "sw-reply-error")
        return reply.focus()
      }
      reply.removeAttribute("aria-invalid")
      reply.removeAttribute("aria-describedby")
      replying = true
      replySend.disabled = true
      replyError.textContent = ""
      convLive.textContent = MESSAGES.sending
      const fingerprint = `${request.ticket_id}\n${text}`
      if (replyKey === undefined || replyFor !== fingerprint) {
        replyKey = randomId()
        replyFor = fingerprint
      }
      try {
        const outcome = await addReply(config, request.ticket_id, text, request.email, replyKey, () => (convLive.textContent = MESSAGES.busy))
        convLive.textContent = ""
        if (outcome.kind === "created") {
          replyKey = replyFor = undefined
          reply.value = ""
          convLive.textContent = MESSAGES.replySent
          // the new message, and the status a reply to a resolved ticket reopened
          if (current === request) void poll()
        } else if (outcome.kind === "rejected" && outcome.code === "NOT_FOUND") replyError.textContent = MESSAGES.gone
        else if (outcome.kind === "rejected") {
          replyError.textContent = outcome.code === "CONFLICT"
            ? MESSAGES.stillSending
            : /^body (.+)$/.exec(outcome.message)?.[1]?.replace(/^/, "Your reply ") ?? MESSAGES.unavailable
        } else replyError.textContent = outcome.kind === "gave-up" ? MESSAGES.busyGaveUp : MESSAGES.unreachable
      } catch {
        replyError.textContent = MESSAGES.unreachable
      } finally {
        replying = false
        replySend.disabled = false
        if (panel.shows(conv) && !panel.hasFocus()) reply.focus()
      }
    })()
  })

  const remember = (request: Request) => {
    store.add(request)
    showEntry()
  }
  return { entry, list, conversation: conv, remember, poll }
}
