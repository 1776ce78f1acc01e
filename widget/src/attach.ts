import type { Attachment } from "../../src/client/Types.ts"
import { type Outcome, upload } from "./api.ts"
import type { WidgetConfig } from "./config.ts"
import { h } from "./dom.ts"
import { MESSAGES } from "./messages.ts"

/** The most a visitor may attach: the service's default limit (ATTACHMENT_MAX_BYTES). */
const MAX_BYTES = 10 * 1024 * 1024
/** What the file dialog offers: screenshots, and the files people send to support. */
const ACCEPT = "image/*,video/*,.pdf,.txt,.log,.csv,.json,.zip,.doc,.docx,.xls,.xlsx"

export const sizeText = (n: number) => (n < 1048576 ? `${Math.ceil(n / 1024)} KB` : `${(n / 1048576).toFixed(1)} MB`)

export interface Picker {
  readonly element: HTMLElement
  /**
   * The chosen file uploaded, once (a retry reuses the upload): `data` the ids to send, none when
   * no file is chosen; or the outcome that stopped it. `tell` shows progress.
   */
  ids(tell: (text: string) => void): Promise<Outcome>
  /** The file as the sent message lists it; the picker is empty again. */
  done(): Attachment[]
  /**
   * Whether `outcome` refused the upload (spent or expired); then it is forgotten, so the next try
   * uploads the file again.
   */
  spent(outcome: Outcome): boolean
  clear(): void
}

/**
 * "Attach a file": a file input, visually hidden but in the Tab order, whose label is the visible
 * button; the chosen file's name and size with a button to remove it; files over 10 MB refused
 * here, with a message, before anything is sent.
 */
export function picker(config: WidgetConfig, p: string): Picker {
  const input = h("input", { type: "file", id: `sw-${p}-file`, class: "sr", accept: ACCEPT, "data-testid": `${p}-file` })
  const name = h("span", { "data-testid": `${p}-file-name` })
  const remove = h("button", { type: "button", class: "r", "data-testid": `${p}-file-remove` }, "Remove")
  const chosen = h("p", { class: "m fc", hidden: true }, name, remove)
  const note = h("p", { class: "fe", role: "alert", "data-testid": `${p}-file-error` })
  let file: File | undefined
  /** The upload of `file`, once made. */
  let sent: any

  const pick = (f?: File) => {
    file = f
    sent = undefined
    chosen.hidden = !f
    if (!f) input.value = ""
    else {
      name.textContent = `${f.name} (${sizeText(f.size)})`
      remove.setAttribute("aria-label", `Remove ${f.name}`)
    }
  }
  input.addEventListener("change", () => {
    const f = input.files![0]
    const big = !!f && f.size > MAX_BYTES
    note.textContent = big ? MESSAGES.tooLarge : ""
    pick(big ? undefined : f)
  })
  remove.addEventListener("click", () => {
    pick()
    input.focus()
  })

  return {
    element: h("div", { class: "f" }, input, h("label", { for: input.id, class: "r" }, "Attach a file"), chosen, note),
    async ids(tell) {
      const f = file
      if (f && !sent) {
        tell(MESSAGES.uploading)
        const outcome = await upload(config, f, () => tell(MESSAGES.busy))
        if (outcome.kind !== "ok") return outcome
        if (f === file) sent = outcome.data
      }
      return { kind: "ok", data: sent ? [sent.upload_id] : [] }
    },
    done() {
      const list = sent ? [{ ...sent, id: sent.upload_id, url: `/v1/attachments/${sent.upload_id}` }] : []
      pick()
      return list
    },
    spent: (outcome) => outcome.kind === "rejected" && /^attachment_ids/.test(outcome.message) && !(sent = undefined),
    clear() {
      note.textContent = ""
      pick()
    }
  }
}
