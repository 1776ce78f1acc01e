import { randomId } from "../../src/client/randomId.ts"
import {
  addReply,
  createTicket,
  getArticle,
  htmlToText,
  type PostOutcome,
  readTicket,
  searchArticles,
  type Article,
  type TicketPayload,
  type TicketView
} from "./api.ts"
import type { WidgetConfig } from "./config.ts"
import { textColourOn } from "./contrast.ts"
import { renderMarkdown } from "./markdown.ts"
import { requestStore, type Request } from "./store.ts"
import { css, styleHost } from "./styles.ts"

export const HOST_ID = "support-widget-host"

export const MESSAGES = {
  sending: "Sending…",
  busy: "Busy, retrying…",
  busyGaveUp: "Support is busy right now. Please try again in a moment.",
  unreachable: "Could not reach support. Check your connection and try again.",
  unavailable: "The support form is not available right now. Please try again later.",
  stillSending: "Your request is still being sent. Please try again in a moment.",
  thanks: (n: number | undefined) =>
    n === undefined || Number.isNaN(n) ? "Thanks! Your ticket has been received." : `Thanks! Your ticket number is #${n}.`,
  loading: "Loading…",
  articleFailed: "The article could not be loaded. Please try again later.",
  gone: "This request is no longer available.",
  noMessages: "No replies yet. We will answer here.",
  newReply: "New reply from support.",
  replySent: "Reply sent."
}

export const STATUSES: Record<string, string> = {
  open: "Open",
  in_progress: "In progress",
  waiting: "Waiting for your reply",
  resolved: "Resolved",
  closed: "Closed"
}

export const PRIORITIES: ReadonlyArray<[string, string]> = [
  ["p1_critical", "Critical"],
  ["p2_high", "High"],
  ["p3_medium", "Medium"],
  ["p4_low", "Low"]
]

/** Retries after a 429 (so up to 5 attempts in all). */
const MAX_RETRIES = 4
/** Longest wait honoured from a `Retry-After` header. */
const MAX_WAIT_MS = 60_000
const SEARCH_DELAY_MS = 300
const SEARCH_MIN_CHARS = 3
/** How often an open conversation asks for new replies: the key's budget is shared by every visitor. */
const POLL_MS = 5_000

type Attrs = Record<string, string | boolean | undefined>
type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === true) node.setAttribute(name, "")
    else if (typeof value === "string") node.setAttribute(name, value)
  }
  node.append(...children)
  return node
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Exponential backoff with jitter: about 1 s, 2 s, 4 s, 8 s. */
const backoff = (retry: number) => Math.round(1000 * 2 ** retry * (0.75 + Math.random() * 0.5))

type Settled = Exclude<PostOutcome, { kind: "rate-limited" }> | { kind: "gave-up" }

/** One POST, tried again after each 429 (Retry-After, else backoff) up to MAX_RETRIES times. */
const retrying = async (attempt: () => Promise<PostOutcome>, busy: () => void): Promise<Settled> => {
  for (let retries = 0; ; retries++) {
    const outcome = await attempt()
    if (outcome.kind !== "rate-limited") return outcome
    if (retries >= MAX_RETRIES) return { kind: "gave-up" }
    busy()
    await sleep(Math.min(outcome.retryAfterMs ?? backoff(retries), MAX_WAIT_MS))
  }
}

const when = (iso: string) => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
}

const ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20.5l1.4-4.9A8 8 0 1 1 21 12z"/><path d="M9 10h6M9 14h4"/></svg>'

export interface WidgetHandle {
  open(): void
  close(): void
}

/**
 * Builds the widget in a shadow root on a new host element appended to `<html>`, not `<body>`:
 * a transform or filter on the page's body would make the fixed launcher scroll away with it.
 */
export function mount(config: WidgetConfig): WidgetHandle {
  const host = h("div", { id: HOST_ID })
  styleHost(host, config.position)
  const root = host.attachShadow({ mode: "open" })
  const sheet = css(config.color, textColourOn(config.color), config.position)
  // a <style> for the spec, and a constructed sheet too, which a page's CSP cannot block
  root.append(h("style", {}, sheet))
  try {
    const constructed = new CSSStyleSheet()
    constructed.replaceSync(sheet)
    ;(root as ShadowRoot & { adoptedStyleSheets: CSSStyleSheet[] }).adoptedStyleSheets = [constructed]
  } catch {
    /* older browser: the <style> does it */
  }

  const launcher = h("button", {
    type: "button",
    class: "l",
    "data-testid": "launcher",
    "aria-label": "Open support form",
    "aria-expanded": "false",
    "aria-controls": "sw-panel"
  })
  launcher.innerHTML = ICON // constant markup, no data in it

  const controls: Control[] = []
  const field = (id: string, label: string, control: Control) => {
    control.id = `sw-${id}`
    control.name = id
    control.setAttribute("data-testid", `field-${id}`)
    controls.push(control)
    return h("div", { class: "f" }, h("label", { for: control.id }, label), control)
  }

  const name = h("input", { type: "text", autocomplete: "name", maxlength: "200" })
  // shown, it is required: without it nobody can answer, and the visitor cannot read the answer here
  const email = h("input", { type: "email", autocomplete: "email", maxlength: "254", required: true })
  const priority = h("select")
  for (const [value, label] of PRIORITIES) {
    const option = h("option", { value }, label)
    if (value === "p3_medium") option.defaultSelected = true
    priority.append(option)
  }
  const subject = h("input", { type: "text", required: true, maxlength: "200", autocomplete: "off" })
  const message = h("textarea", { required: true, rows: "4" })

  const articleList = h("ul", { "data-testid": "articles", "aria-labelledby": "sw-articles-title" })
  const deflection = h(
    "div",
    { class: "d", hidden: true, "aria-live": "polite" },
    h("p", { id: "sw-articles-title" }, "These articles might help:"),
    articleList
  )

  const error = h("p", { class: "m e", role: "alert", "data-testid": "error" })
  const retry = h("button", { type: "button", class: "r", "data-testid": "retry", hidden: true }, "Try again")
  const submit = h("button", { type: "submit", class: "s", "data-testid": "submit" }, "Submit")
  const status = h("p", { class: "m", role: "status", "aria-live": "polite", "data-testid": "status" })

  const store = requestStore(config)
  const requestsEntry = h("button", { type: "button", class: "r", "data-testid": "requests-entry", hidden: true })
  const form = h("form", { "aria-labelledby": "sw-title" }, requestsEntry)
  if (config.fields.name) form.append(field("name", "Name", name))
  if (config.fields.email) form.append(field("email", "Email", email))
  if (config.fields.priority) form.append(field("priority", "Priority", priority))
  form.append(field("subject", "Subject", subject), deflection, field("message", "Message", message))
  form.append(error, retry, submit, status)

  // ---- the other views: one at a time in the panel, in place of the form ------------------------
  const back = (testId: string, label: string) => h("button", { type: "button", class: "r", "data-testid": testId }, label)
  const heading = (testId: string, text = "") => h("h3", { tabindex: "-1", "data-testid": testId }, text)

  const listTitle = heading("requests-title", "Your requests")
  const listBack = back("requests-back", "Back to the form")
  const requestList = h("ul", { class: "q", "data-testid": "request-list", "aria-labelledby": "sw-requests-title" })
  listTitle.id = "sw-requests-title"
  const listView = h("section", { class: "v", "data-testid": "requests", hidden: true }, listBack, listTitle, requestList)

  const convBack = back("conversation-back", "Back to your requests")
  const convTitle = heading("conversation-title")
  const convStatus = h("p", { class: "m", "data-testid": "conversation-status" })
  const messages = h("ol", { class: "c", "data-testid": "messages", "aria-label": "Conversation" })
  const empty = h("p", { class: "m", "data-testid": "no-messages" }, MESSAGES.noMessages)
  // new replies from support are read out while the visitor looks elsewhere in the page
  const convLive = h("p", { class: "m", role: "status", "aria-live": "polite", "data-testid": "conversation-live" })
  const reply = h("textarea", { id: "sw-reply", rows: "3", required: true, maxlength: "50000", "data-testid": "reply" })
  const replyError = h("p", { class: "m e", role: "alert", "data-testid": "reply-error" })
  const replySend = h("button", { type: "submit", class: "s", "data-testid": "reply-send" }, "Send reply")
  const replyForm = h(
    "form",
    { class: "f", "aria-label": "Reply" },
    h("label", { for: "sw-reply" }, "Your reply"),
    reply,
    replyError,
    replySend
  )
  const convView = h(
    "section",
    { class: "v", "data-testid": "conversation", hidden: true },
    convBack,
    convTitle,
    convStatus,
    messages,
    empty,
    convLive,
    replyForm
  )

  const articleBack = back("article-back", "Back to the form")
  const articleTitle = heading("article-title")
  const articleBody = h("div", { class: "a", "data-testid": "article-body" })
  const articleView = h("section", { class: "v", "data-testid": "article", hidden: true }, articleBack, articleTitle, articleBody)

  const close = h("button", { type: "button", class: "x", "data-testid": "close", "aria-label": "Close" }, "×")
  const panel = h(
    "div",
    { class: "p", id: "sw-panel", role: "dialog", "aria-labelledby": "sw-title", "data-testid": "panel", hidden: true },
    h("div", { class: "h" }, h("h2", { id: "sw-title", "data-testid": "greeting" }, config.greeting)),
    form,
    listView,
    convView,
    articleView,
    close
  )
  root.append(launcher, panel)

  // ---- open / close ----------------------------------------------------------------------------
  const isOpen = () => !panel.hidden
  const views: HTMLElement[] = [form, listView, convView, articleView]
  const headings = new Map<HTMLElement, HTMLElement>([[listView, listTitle], [convView, convTitle], [articleView, articleTitle]])
  let view: HTMLElement = form
  /** Focus into the current view: the form's first field, or another view's heading. */
  const focusView = () => (headings.get(view) ?? controls[0] ?? submit).focus()
  const show = (next: HTMLElement) => {
    stopPolling()
    view = next
    for (const v of views) v.hidden = v !== next
    focusView()
  }
  const open = () => {
    panel.hidden = false
    launcher.setAttribute("aria-expanded", "true")
    focusView()
    void poll()
  }
  const hide = (returnFocus: boolean) => {
    if (!isOpen()) return
    panel.hidden = true
    stopPolling()
    launcher.setAttribute("aria-expanded", "false")
    if (returnFocus) launcher.focus()
  }
  launcher.addEventListener("click", () => (isOpen() ? hide(true) : open()))
  close.addEventListener("click", () => hide(true))
  root.addEventListener("keydown", (event) => {
    const e = event as KeyboardEvent
    if ((e.key === "Escape" || e.key === "Esc") && isOpen()) {
      e.preventDefault()
      e.stopPropagation()
      hide(true)
    }
  })

  // ---- article suggestions -----------------------------------------------------------------------
  let searchTimer: ReturnType<typeof setTimeout> | undefined
  let searchSeq = 0
  const showArticles = (articles: Article[]) => {
    articleList.replaceChildren(
      ...articles.map((a) => {
        const button = h("button", { type: "button", "data-testid": "article-open" }, h("b", {}, a.title), h("span", {}, htmlToText(a.excerpt)))
        button.addEventListener("click", () => void openArticle(a.id, button))
        return h("li", {}, button)
      })
    )
    deflection.hidden = articles.length === 0
  }
  const clearArticles = () => {
    clearTimeout(searchTimer)
    searchSeq++
    showArticles([])
  }
  subject.addEventListener("input", () => {
    clearArticles()
    const q = subject.value.trim()
    if (q.length < SEARCH_MIN_CHARS) return
    const seq = searchSeq
    searchTimer = setTimeout(() => {
      searchArticles(config, q, 3).then(
        (articles) => seq === searchSeq && showArticles(articles),
        () => seq === searchSeq && showArticles([])
      )
    }, SEARCH_DELAY_MS)
  })

  // ---- an article, opened from a suggestion ------------------------------------------------------
  let articleOpener: HTMLElement | undefined
  let articleSeq = 0
  const openArticle = async (id: string, opener: HTMLElement) => {
    const seq = ++articleSeq
    articleOpener = opener
    articleTitle.textContent = MESSAGES.loading
    articleBody.replaceChildren()
    show(articleView)
    try {
      const article = await getArticle(config, id)
      if (seq !== articleSeq) return
      articleTitle.textContent = article.title
      articleBody.replaceChildren(renderMarkdown(article.body))
    } catch {
      if (seq === articleSeq) articleTitle.textContent = MESSAGES.articleFailed
    }
  }
  articleBack.addEventListener("click", () => {
    articleSeq++
    show(form)
    // back on the suggestion that opened it, the form as the visitor left it
    if (articleOpener?.isConnected) articleOpener.focus()
  })

  // ---- submitting --------------------------------------------------------------------------------
  let inFlight = false
  // one key per filled-in form: reused while the same content is retried, new after success or edits
  let key: string | undefined
  let keyFor: string | undefined

  const payload = (): TicketPayload => {
    const p: TicketPayload = { subject: subject.value.trim(), body: message.value.trim(), source: "widget" }
    if (config.fields.name && name.value.trim()) p.sender_name = name.value.trim()
    if (config.fields.email && email.value.trim()) p.sender_email = email.value.trim()
    if (config.fields.priority) p.priority = priority.value
    return p
  }

  /**
   * A validation message about a field the visitor filled in, with the field's label in place of
   * the API's name ("sender_email must be …" becomes "Email must be …"). Anything else is not the
   * visitor's to fix: the console has the details.
   */
  const labels: Record<string, string | false> = {
    subject: "Subject",
    body: "Message",
    sender_name: config.fields.name && "Name",
    sender_email: config.fields.email && "Email",
    priority: config.fields.priority && "Priority"
  }
  const fieldProblem = ({ code, message }: { code: string; message: string }) => {
    const [, field, rule] = /^(\w+) (.+)$/.exec(message) ?? []
    const label = code === "VALIDATION_ERROR" && field ? labels[field] : undefined
    return typeof label === "string" ? `${label} ${rule}` : undefined
  }

  const say = (text: string, ok = false) => {
    status.textContent = text
    status.classList.toggle("ok", ok)
  }
  const fail = (text: string, canRetry: boolean) => {
    say("")
    error.textContent = text
    retry.hidden = !canRetry
  }

  const send = async () => {
    if (inFlight) return
    inFlight = true
    submit.disabled = true
    retry.hidden = true
    error.textContent = ""
    say(MESSAGES.sending)
    try {
      const body = payload()
      const fingerprint = JSON.stringify(body)
      if (key === undefined || keyFor !== fingerprint) {
        key = randomId()
        keyFor = fingerprint
      }
      const outcome = await retrying(() => createTicket(config, body, key!), () => say(MESSAGES.busy))
      if (outcome.kind === "created") {
        key = keyFor = undefined
        form.reset()
        clearArticles()
        const n = outcome.data?.ticket_number
        const number = typeof n === "number" || typeof n === "string" ? Number(n) : undefined
        const id = outcome.data?.ticket_id
        if (typeof id === "string" && body.sender_email && number !== undefined && !Number.isNaN(number)) {
          store.add({ ticket_id: id, ticket_number: number, subject: body.subject, email: body.sender_email })
          showEntry()
        }
        say(MESSAGES.thanks(number), true)
        return
      }
      if (outcome.kind === "rejected") {
        // an Idempotency-Key whose first attempt the service is still working on
        if (outcome.code === "CONFLICT") return fail(MESSAGES.stillSending, true)
        return fail(fieldProblem(outcome) ?? MESSAGES.unavailable, false)
      }
      if (outcome.kind === "unreachable") return fail(MESSAGES.unreachable, true)
      return fail(MESSAGES.busyGaveUp, true)
    } catch {
      fail(MESSAGES.unreachable, true)
    } finally {
      inFlight = false
      submit.disabled = false
      // disabling the focused button may have dropped focus: put it somewhere sensible in the panel
      if (isOpen() && !root.activeElement) (retry.hidden ? controls[0] ?? submit : retry).focus()
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault()
    void send()
  })
  retry.addEventListener("click", () => {
    if (form.reportValidity()) void send()
  })

  /**
   * The browser's own check of a required or malformed field, said in the widget's words too
   * ("Email is required"), once per attempt: `invalid` fires for every bad field, first one first.
   */
  let reported = false
  form.addEventListener(
    "invalid",
    (event) => {
      const control = event.target as Control
      if (reported) return
      reported = true
      setTimeout(() => (reported = false))
      const label = control.labels?.[0]?.textContent ?? control.name
      say("")
      retry.hidden = true
      error.textContent = control.validity.valueMissing
        ? `${label} is required`
        : control.validity.typeMismatch
        ? `${label} must be a valid email address`
        : `${label}: ${control.validationMessage}`
    },
    true
  )

  // ---- the visitor's requests ----------------------------------------------------------------------
  const showEntry = () => {
    const count = store.list().length
    requestsEntry.hidden = count === 0
    requestsEntry.textContent = `Your requests (${count})`
  }
  showEntry()

  const statusText = (status: string) => STATUSES[status] ?? status

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
    show(listView)
    items.find((i) => i.request.ticket_id === focusTicket)?.button.focus()
  }
  requestsEntry.addEventListener("click", () => openList())
  listBack.addEventListener("click", () => {
    listSeq++
    showEntry()
    show(form)
    if (!requestsEntry.hidden) requestsEntry.focus()
  })

  // ---- one conversation, kept current while someone looks at it ------------------------------------
  let current: Request | undefined
  let seen = new Set<string>()
  /** Replies that arrive after the first read are announced; the conversation as opened is not. */
  let loaded = false
  let pollTimer: ReturnType<typeof setTimeout> | undefined
  let pollSeq = 0
  const stopPolling = () => {
    clearTimeout(pollTimer)
    pollSeq++
  }
  const watching = () => current !== undefined && view === convView && isOpen() && document.visibilityState !== "hidden"

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

  /** Reads the ticket now and again every POLL_MS, only while it is on screen; a 429 waits its Retry-After. */
  const poll = async () => {
    stopPolling()
    if (!watching()) return
    const seq = pollSeq
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
    show(convView)
    void poll()
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
        return reply.focus()
      }
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
        const outcome = await retrying(
          () => addReply(config, request.ticket_id, text, request.email, replyKey!),
          () => (convLive.textContent = MESSAGES.busy)
        )
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
        if (isOpen() && view === convView && !root.activeElement) reply.focus()
      }
    })()
  })

  document.documentElement.appendChild(host)
  return { open, close: () => hide(!!root.activeElement) }
}
