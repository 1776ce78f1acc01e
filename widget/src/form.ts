import { randomId } from "../../src/client/randomId.ts"
import type { CreateTicketInput, Priority } from "../../src/client/Types.ts"
import { createTicket } from "./api.ts"
import type { Articles } from "./articles.ts"
import type { WidgetConfig } from "./config.ts"
import { h } from "./dom.ts"
import type { Panel, View } from "./launcher.ts"
import { MESSAGES } from "./messages.ts"
import type { Request } from "./store.ts"

const PRIORITIES: ReadonlyArray<[Priority, string]> = [
  ["p1_critical", "Critical"],
  ["p2_high", "High"],
  ["p3_medium", "Medium"],
  ["p4_low", "Low"]
]

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement

export interface FormParts {
  /** The button to the visitor's requests, at the top of the form. */
  readonly entry: HTMLElement
  readonly articles: Pick<Articles, "suggestions" | "suggest" | "clear">
  /** A ticket filed with an email, which the visitor can read again. */
  readonly onFiled: (request: Request) => void
}

/** The ticket form: its fields, the browser's validation in the widget's words, and submission. */
export function form(config: WidgetConfig, panel: Panel, { entry, articles, onFiled }: FormParts): View {
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
  const error = h("p", { class: "m e", role: "alert", "data-testid": "error" })
  const retry = h("button", { type: "button", class: "r", "data-testid": "retry", hidden: true }, "Try again")
  const submit = h("button", { type: "submit", class: "s", "data-testid": "submit" }, "Submit")
  const status = h("p", { class: "m", role: "status", "aria-live": "polite", "data-testid": "status" })

  const element = h("form", { "aria-labelledby": "sw-title" }, entry)
  if (config.fields.name) element.append(field("name", "Name", name))
  if (config.fields.email) element.append(field("email", "Email", email))
  if (config.fields.priority) element.append(field("priority", "Priority", priority))
  element.append(field("subject", "Subject", subject), articles.suggestions, field("message", "Message", message))
  element.append(error, retry, submit, status)
  const first = controls[0] ?? submit
  subject.addEventListener("input", () => articles.suggest(subject.value))

  // one key per filled-in form: reused while the same content is retried, new after success or edits
  let key: string | undefined
  let keyFor: string | undefined
  let inFlight = false

  const payload = (): CreateTicketInput => ({
    subject: subject.value.trim(),
    body: message.value.trim(),
    source: "widget",
    sender_name: (config.fields.name && name.value.trim()) || undefined,
    sender_email: (config.fields.email && email.value.trim()) || undefined,
    priority: config.fields.priority ? (priority.value as Priority) : undefined
  })

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
      const outcome = await createTicket(config, body, key, () => say(MESSAGES.busy))
      if (outcome.kind === "created") {
        key = keyFor = undefined
        element.reset()
        articles.clear()
        const n = outcome.data?.ticket_number
        const number = typeof n === "number" || typeof n === "string" ? Number(n) : undefined
        const id = outcome.data?.ticket_id
        if (typeof id === "string" && body.sender_email && number !== undefined && !Number.isNaN(number)) {
          onFiled({ ticket_id: id, ticket_number: number, subject: body.subject, email: body.sender_email })
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
      if (panel.isOpen() && !panel.hasFocus()) (retry.hidden ? first : retry).focus()
    }
  }

  element.addEventListener("submit", (event) => {
    event.preventDefault()
    void send()
  })
  retry.addEventListener("click", () => {
    if (element.reportValidity()) void send()
  })

  /**
   * The browser's own check of a required or malformed field, said in the widget's words too
   * ("Email is required"), once per attempt: `invalid` fires for every bad field, first one first.
   */
  let reported = false
  element.addEventListener(
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

  return { element, focus: first }
}
