import { randomId } from "../../src/client/randomId.ts"
import type { Attachment, CreateTicketInput, Priority } from "../../src/client/Types.ts"
import { createTicket, retrySeconds } from "./api.ts"
import type { Articles } from "./articles.ts"
import { picker } from "./attach.ts"
import type { WidgetConfig } from "./config.ts"
import { h } from "./dom.ts"
import type { Panel, View } from "./launcher.ts"
import { MESSAGES } from "./messages.ts"
import type { Request, VisitorStore } from "./store.ts"

const DEFAULT_PRIORITY: Priority = "p3_medium"
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
  /** A ticket filed: kept, and opened as a conversation when it can be; whether it opened. */
  readonly onFiled: (request: Request, body: string, files: Attachment[]) => boolean
  /** The name and email of the visitor's last ticket, filled in again on the next visit. */
  readonly visitor: VisitorStore
}

/** The ticket form: its fields, their checks in the widget's words, and submission. */
export function form(config: WidgetConfig, panel: Panel, { entry, articles, onFiled, visitor }: FormParts): View {
  const controls: Control[] = []
  const notes = new Map<Control, { label: string; note: HTMLElement }>()
  const field = (id: string, label: string, control: Control) => {
    control.id = `sw-${id}`
    control.name = id
    control.setAttribute("data-testid", `field-${id}`)
    controls.push(control)
    // the field's own message, which its aria-describedby names while the field is invalid
    const note = h("p", { id: `sw-${id}-error`, class: "fe", "data-testid": `error-${id}`, hidden: true })
    notes.set(control, { label, note })
    return h("div", { class: "f" }, h("label", { for: control.id }, label), control, note)
  }

  const name = h("input", { type: "text", autocomplete: "name", maxlength: "200" })
  // shown, it is required: without it nobody can answer, and the visitor cannot read the answer here
  const email = h("input", { type: "email", autocomplete: "email", maxlength: "254", required: true })
  const priority = h("select")
  for (const [value, label] of PRIORITIES) {
    const option = h("option", { value }, label)
    if (value === DEFAULT_PRIORITY) option.defaultSelected = true
    priority.append(option)
  }
  const subject = h("input", { type: "text", required: true, maxlength: "200", autocomplete: "off" })
  const message = h("textarea", { required: true, rows: "4" })
  const error = h("p", { class: "m e", role: "alert", "data-testid": "error" })
  const retry = h("button", { type: "button", class: "r", "data-testid": "retry", hidden: true }, "Try again")
  const submit = h("button", { type: "submit", class: "s", "data-testid": "submit" }, "Submit")
  const status = h("p", { class: "m", role: "status", "aria-live": "polite", "data-testid": "status" })
  // at the top, where focus goes after filing; kept in the page while empty, so it is announced when filled
  const confirmation = h("p", {
    class: "m ok cf",
    role: "status",
    "aria-live": "polite",
    tabindex: "-1",
    "data-testid": "confirmation"
  })
  name.value = visitor.get().name
  email.value = visitor.get().email

  // the widget says what is wrong next to each field, so the browser's bubble would say it twice
  const element = h("form", { "aria-labelledby": "sw-title", novalidate: true }, confirmation, entry)
  if (config.fields.name) element.append(field("name", "Name", name))
  if (config.fields.email) element.append(field("email", "Email", email))
  if (config.fields.priority) element.append(field("priority", "Priority", priority))
  element.append(field("subject", "Subject", subject), ...articles.suggestions, field("message", "Message", message))
  const files = picker(config, "ticket")
  element.append(files.element, error, retry, submit, status)
  const first = controls[0] ?? submit
  const view: View = { element, focus: first }
  subject.addEventListener("input", () => articles.suggest(subject.value))

  /** What is wrong with a field, in the widget's words; "" when nothing is. */
  const problemOf = (control: Control, label: string) =>
    control.required && !control.value.trim()
      ? `${label} is required`
      : control.validity.typeMismatch
      ? `${label} must be a valid email address`
      : control.validity.valid
      ? ""
      : `${label}: ${control.validationMessage}`
  const check = (control: Control) => {
    const { label, note } = notes.get(control)!
    const problem = problemOf(control, label)
    note.textContent = problem
    note.hidden = !problem
    if (problem) {
      control.setAttribute("aria-invalid", "true")
      control.setAttribute("aria-describedby", note.id)
    } else {
      control.removeAttribute("aria-invalid")
      control.removeAttribute("aria-describedby")
    }
    return !problem
  }
  /** Every field checked, each with its own message, and focus on the first one to fix. */
  const validate = () => {
    const invalid = controls.filter((control) => !check(control))
    if (invalid.length === 0) return true
    say("")
    error.textContent = ""
    retry.hidden = true
    invalid[0]!.focus()
    return false
  }
  // a flagged field is checked again as it is edited, so its message goes once it is fixed
  for (const control of controls) {
    control.addEventListener("input", () => control.hasAttribute("aria-invalid") && check(control))
  }

  // one key per filled-in form: reused while the same content is retried, new after success or edits
  let key: string | undefined
  let keyFor: string | undefined
  let inFlight = false

  const payload = (ids: string[]): CreateTicketInput => ({
    subject: subject.value.trim(),
    body: message.value.trim(),
    source: "widget",
    sender_name: (config.fields.name && name.value.trim()) || undefined,
    sender_email: (config.fields.email && email.value.trim()) || undefined,
    priority: config.fields.priority ? (priority.value as Priority) : undefined,
    attachment_ids: ids[0] ? ids : undefined
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

  const say = (text: string) => {
    status.textContent = text
  }
  const fail = (text: string, canRetry: boolean) => {
    say("")
    error.textContent = text
    retry.hidden = !canRetry
  }

  /** Focus is in the panel, or was dropped when the focused button was disabled; not in the page. */
  const focusIsOurs = () => panel.hasFocus() || !document.activeElement || document.activeElement === document.body

  const send = async () => {
    if (inFlight) return
    inFlight = true
    let filed = false
    submit.disabled = true
    retry.hidden = true
    error.textContent = confirmation.textContent = ""
    try {
      // the file first: the ticket names its upload
      const up = await files.ids(say)
      say(MESSAGES.sending)
      const body = payload(up.kind === "ok" ? up.data : [])
      const fingerprint = JSON.stringify(body)
      if (key === undefined || keyFor !== fingerprint) {
        key = randomId()
        keyFor = fingerprint
      }
      const outcome = up.kind === "ok" ? await createTicket(config, body, key, () => say(MESSAGES.busy)) : up
      if (outcome.kind === "ok") {
        key = keyFor = undefined
        // the ticket's own fields start afresh; the visitor's name and email stay, for this and the next visit
        subject.value = message.value = ""
        priority.value = DEFAULT_PRIORITY
        articles.clear()
        const sent = files.done()
        visitor.set({ name: name.value.trim(), email: email.value.trim() })
        const n = outcome.data?.ticket_number
        const number = typeof n === "number" || typeof n === "string" ? Number(n) : undefined
        const id = outcome.data?.ticket_id
        const token = outcome.data?.access_token
        say("")
        filed = true
        // the new conversation, where the answer will come; a bare confirmation where it cannot open
        if (
          typeof id === "string" && number !== undefined && !Number.isNaN(number) &&
          onFiled({
            ticket_id: id,
            ticket_number: number,
            subject: body.subject,
            access_token: typeof token === "string" ? token : undefined,
            email: body.sender_email ?? undefined
          }, body.body, sent)
        ) return
        confirmation.textContent = MESSAGES.thanks(number)
        return
      }
      if (outcome.kind === "rejected") {
        // an Idempotency-Key whose first attempt the service is still working on
        if (outcome.code === "CONFLICT") return fail(MESSAGES.stillSending, true)
        if (outcome.code === "PAYLOAD_TOO_LARGE") return fail(MESSAGES.tooLarge, false)
        if (files.spent(outcome)) return fail(MESSAGES.fileAgain, true)
        return fail(fieldProblem(outcome) ?? MESSAGES.unavailable, false)
      }
      if (outcome.kind === "unreachable") return fail(MESSAGES.unreachable, true)
      if (outcome.kind === "unauthorized") return fail(MESSAGES.whoAreYou, false)
      if (outcome.kind === "rate-limited") return fail(MESSAGES.tooMany(retrySeconds(outcome)), true)
      return fail(MESSAGES.unavailable, false)
    } catch {
      fail(MESSAGES.unreachable, true)
    } finally {
      inFlight = false
      submit.disabled = false
      if (panel.shows(view) && focusIsOurs()) {
        // the confirmation is what the visitor reads next, by eye or by screen reader
        if (filed) confirmation.focus()
        // disabling the focused button may have dropped focus: put it somewhere sensible in the panel
        else if (!panel.hasFocus()) (retry.hidden ? first : retry).focus()
      }
    }
  }

  element.addEventListener("submit", (event) => {
    event.preventDefault()
    if (validate()) void send()
  })
  retry.addEventListener("click", () => {
    if (validate()) void send()
  })

  return view
}
