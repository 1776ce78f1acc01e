import { h } from "./dom.ts"

const ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20.5l1.4-4.9A8 8 0 1 1 21 12z"/><path d="M9 10h6M9 14h4"/></svg>'

/** At this width and below the panel is a full-screen sheet, modal, with the page made inert. */
export const SHEET_QUERY = "(max-width: 480px)"

const LABEL = "Open support form"

export interface WidgetHandle {
  open(): void
  close(): void
}

export interface View {
  readonly element: HTMLElement
  /** Where focus goes when the view is shown: the form's first field, another view's heading. */
  readonly focus: HTMLElement
}

export interface Panel extends WidgetHandle {
  /** The first view added is the form: shown first, and the one `home` returns to. */
  add(...views: View[]): void
  show(view: View): void
  home(): void
  isOpen(): boolean
  /** Open with `view` on screen. */
  shows(view: View): boolean
  hasFocus(): boolean
  /** The count of unread replies on the launcher; 0 hides it. */
  badge(count: number): void
}

const FOCUSABLE = "button,input,select,textarea,a[href],[tabindex]:not([tabindex='-1'])"

/**
 * The floating button and its dialog; `onChange` runs after every open, close and change of view,
 * so a view can start or stop work it does only while visible. On a small screen the open panel
 * is a modal sheet: the page's other top-level elements are inert and Tab cycles inside it.
 */
export function launcher(root: ShadowRoot, greeting: string, onChange: () => void): Panel {
  const count = h("span", { class: "bd", "data-testid": "unread", "aria-hidden": "true", hidden: true })
  const button = h("button", {
    type: "button",
    class: "l",
    "data-testid": "launcher",
    "aria-label": LABEL,
    "aria-expanded": "false",
    "aria-controls": "sw-panel"
  })
  button.innerHTML = ICON // constant markup, no data in it
  button.append(count)
  const close = h("button", { type: "button", class: "x", "data-testid": "close", "aria-label": "Close" }, "×")
  const panel = h(
    "div",
    { class: "p", id: "sw-panel", role: "dialog", "aria-labelledby": "sw-title", "data-testid": "panel", hidden: true },
    h("div", { class: "h" }, h("h2", { id: "sw-title", "data-testid": "greeting" }, greeting)),
    close
  )
  root.append(button, panel)

  const views: View[] = []
  let current: View | undefined
  const isOpen = () => !panel.hidden
  const hasFocus = () => !!root.activeElement
  const small = typeof matchMedia === "function" ? matchMedia(SHEET_QUERY) : undefined
  /** The page's elements this widget made inert, to give back as they were. */
  let inert: Element[] = []
  const sheet = () => {
    const modal = isOpen() && !!small?.matches
    if (modal) panel.setAttribute("aria-modal", "true")
    else panel.removeAttribute("aria-modal")
    button.hidden = modal
    if (modal && !inert.length) {
      for (const el of Array.from(document.documentElement.children)) {
        if (el !== root.host && el.tagName !== "HEAD" && !el.hasAttribute("inert")) {
          el.setAttribute("inert", "")
          inert.push(el)
        }
      }
    } else if (!modal) {
      for (const el of inert) el.removeAttribute("inert")
      inert = []
    }
  }
  small?.addEventListener?.("change", () => {
    const focused = hasFocus()
    sheet()
    // the launcher shown again has not the focus it may have lost
    if (focused && !hasFocus()) (isOpen() ? current!.focus : button).focus()
  })

  const show = (next: View) => {
    current = next
    for (const v of views) v.element.hidden = v !== next
    next.focus.focus()
    onChange()
  }
  const open = () => {
    panel.hidden = false
    button.setAttribute("aria-expanded", "true")
    sheet()
    current?.focus.focus()
    onChange()
  }
  const hide = (returnFocus: boolean) => {
    if (!isOpen()) return
    panel.hidden = true
    button.setAttribute("aria-expanded", "false")
    sheet()
    if (returnFocus) button.focus()
    onChange()
  }
  button.addEventListener("click", () => (isOpen() ? hide(true) : open()))
  close.addEventListener("click", () => hide(true))
  root.addEventListener("keydown", (event) => {
    const e = event as KeyboardEvent
    if ((e.key === "Escape" || e.key === "Esc") && isOpen()) {
      e.preventDefault()
      e.stopPropagation()
      hide(true)
    }
    // the sheet keeps focus: from its last control Tab goes to its first, and back
    if (e.key === "Tab" && panel.hasAttribute("aria-modal")) {
      const all = Array.from(panel.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) =>
        el.getClientRects().length > 0 && !(el as HTMLButtonElement).disabled
      )
      const edge = e.shiftKey ? all[0] : all[all.length - 1]
      const active = root.activeElement
      if (all.length && (active === edge || !active || !panel.contains(active))) {
        e.preventDefault()
        all[e.shiftKey ? all.length - 1 : 0]!.focus()
      }
    }
  })

  return {
    add: (...added) => {
      close.before(...added.map((v) => v.element))
      views.push(...added)
      current ??= views[0]
    },
    show,
    home: () => show(views[0]!),
    isOpen,
    shows: (view) => isOpen() && current === view,
    hasFocus,
    open,
    close: () => hide(hasFocus()),
    badge(n) {
      count.textContent = String(n)
      count.hidden = n <= 0
      button.setAttribute("aria-label", n > 0 ? `${LABEL}, ${n} new ${n === 1 ? "reply" : "replies"}` : LABEL)
    }
  }
}
