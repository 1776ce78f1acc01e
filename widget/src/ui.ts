import { randomId } from "../../src/client/randomId.ts"
import { createTicket, htmlToText, searchArticles, type Article, type TicketPayload } from "./api.ts"
import type { WidgetConfig } from "./config.ts"
import { textColourOn } from "./contrast.ts"
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
    n === undefined || Number.isNaN(n) ? "Thanks! Your ticket has been received." : `Thanks! Your ticket number is #${n}.`
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
  const email = h("input", { type: "email", autocomplete: "email", maxlength: "254" })
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

  const form = h("form", { "aria-labelledby": "sw-title" })
  if (config.fields.name) form.append(field("name", "Name", name))
  if (config.fields.email) form.append(field("email", "Email", email))
  if (config.fields.priority) form.append(field("priority", "Priority", priority))
  form.append(field("subject", "Subject", subject), deflection, field("message", "Message", message))
  form.append(error, retry, submit, status)

  const close = h("button", { type: "button", class: "x", "data-testid": "close", "aria-label": "Close" }, "×")
  const panel = h(
    "div",
    { class: "p", id: "sw-panel", role: "dialog", "aria-labelledby": "sw-title", "data-testid": "panel", hidden: true },
    h("div", { class: "h" }, h("h2", { id: "sw-title", "data-testid": "greeting" }, config.greeting)),
    form,
    close
  )
  root.append(launcher, panel)

  // ---- open / close ----------------------------------------------------------------------------
  const isOpen = () => !panel.hidden
  const open = () => {
    panel.hidden = false
    launcher.setAttribute("aria-expanded", "true")
    controls[0]?.focus()
  }
  const hide = (returnFocus: boolean) => {
    if (!isOpen()) return
    panel.hidden = true
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
      ...articles.map((a) => h("li", {}, h("b", {}, a.title), h("span", {}, htmlToText(a.excerpt))))
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
      for (let retries = 0; ; retries++) {
        const outcome = await createTicket(config, body, key)
        if (outcome.kind === "created") {
          key = keyFor = undefined
          form.reset()
          clearArticles()
          say(MESSAGES.thanks(outcome.ticketNumber), true)
          return
        }
        if (outcome.kind === "rejected") {
          // an Idempotency-Key whose first attempt the service is still working on
          if (outcome.code === "CONFLICT") return fail(MESSAGES.stillSending, true)
          return fail(fieldProblem(outcome) ?? MESSAGES.unavailable, false)
        }
        if (outcome.kind === "unreachable") return fail(MESSAGES.unreachable, true)
        if (retries >= MAX_RETRIES) return fail(MESSAGES.busyGaveUp, true)
        say(MESSAGES.busy)
        await sleep(Math.min(outcome.retryAfterMs ?? backoff(retries), MAX_WAIT_MS))
      }
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

  document.documentElement.appendChild(host)
  return { open, close: () => hide(!!root.activeElement) }
}
