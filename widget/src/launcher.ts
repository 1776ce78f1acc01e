import { h } from "./dom.ts"

const ICON =
  '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20.5l1.4-4.9A8 8 0 1 1 21 12z"/><path d="M9 10h6M9 14h4"/></svg>'

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
}

/**
 * The floating button and its dialog; `onChange` runs after every open, close and change of view,
 * so a view can start or stop work it does only while visible.
 */
export function launcher(root: ShadowRoot, greeting: string, onChange: () => void): Panel {
  const button = h("button", {
    type: "button",
    class: "l",
    "data-testid": "launcher",
    "aria-label": "Open support form",
    "aria-expanded": "false",
    "aria-controls": "sw-panel"
  })
  button.innerHTML = ICON // constant markup, no data in it
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
  const show = (next: View) => {
    current = next
    for (const v of views) v.element.hidden = v !== next
    next.focus.focus()
    onChange()
  }
  const open = () => {
    panel.hidden = false
    button.setAttribute("aria-expanded", "true")
    current?.focus.focus()
    onChange()
  }
  const hide = (returnFocus: boolean) => {
    if (!isOpen()) return
    panel.hidden = true
    button.setAttribute("aria-expanded", "false")
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
    close: () => hide(hasFocus())
  }
}
