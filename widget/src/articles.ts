import { getArticle, htmlToText, searchArticles, type Suggestion } from "./api.ts"
import type { WidgetConfig } from "./config.ts"
import { backButton, h, heading, viewSection } from "./dom.ts"
import type { Panel, View } from "./launcher.ts"
import { renderMarkdown } from "./markdown.ts"
import { MESSAGES } from "./messages.ts"

const SEARCH_DELAY_MS = 300
const SEARCH_MIN_CHARS = 3
const SUGGESTIONS = 3

export interface Articles {
  /** The suggestions, placed in the form under the subject (with their live region). */
  readonly suggestions: HTMLElement[]
  readonly view: View
  suggest(subject: string): void
  clear(): void
}

/** Articles suggested while the visitor types a subject, and the view that reads one. */
export function articles(config: WidgetConfig, panel: Panel): Articles {
  const list = h("ul", { "data-testid": "articles", "aria-labelledby": "sw-articles-title" })
  const suggestions = h("div", { class: "d", hidden: true }, h("p", { id: "sw-articles-title" }, "These articles might help:"), list)
  // the titles are announced, not the excerpts: those are each suggestion's description
  const live = h("p", { class: "sr", role: "status", "data-testid": "articles-live" })
  const back = backButton("article-back", "Back to the form")
  const title = heading("article-title")
  const body = h("div", { class: "a", "data-testid": "article-body" })
  const view: View = { element: viewSection("article", back, title, body), focus: title }

  let searchTimer: ReturnType<typeof setTimeout> | undefined
  let searchSeq = 0
  const showSuggestions = (found: Suggestion[]) => {
    list.replaceChildren(
      ...found.map((a, i) => {
        const button = h(
          "button",
          { type: "button", "data-testid": "article-open", "aria-labelledby": `sw-a${i}`, "aria-describedby": `sw-e${i}` },
          h("b", { id: `sw-a${i}` }, a.title),
          h("span", { id: `sw-e${i}` }, htmlToText(a.excerpt))
        )
        button.addEventListener("click", () => void open(a.id, button))
        return h("li", {}, button)
      })
    )
    suggestions.hidden = found.length === 0
    live.textContent = found.length ? MESSAGES.suggested(found.map((a) => a.title)) : ""
  }
  const clear = () => {
    clearTimeout(searchTimer)
    searchSeq++
    showSuggestions([])
  }
  const suggest = (subject: string) => {
    clear()
    const q = subject.trim()
    if (q.length < SEARCH_MIN_CHARS) return
    const seq = searchSeq
    searchTimer = setTimeout(() => {
      searchArticles(config, q, SUGGESTIONS).then(
        (found) => seq === searchSeq && showSuggestions(found),
        () => seq === searchSeq && showSuggestions([])
      )
    }, SEARCH_DELAY_MS)
  }

  let opener: HTMLElement | undefined
  let articleSeq = 0
  const open = async (id: string, from: HTMLElement) => {
    const seq = ++articleSeq
    opener = from
    title.textContent = MESSAGES.loading
    body.replaceChildren()
    panel.show(view)
    try {
      const article = await getArticle(config, id)
      if (seq !== articleSeq) return
      title.textContent = article.title
      body.replaceChildren(renderMarkdown(article.body))
    } catch {
      if (seq === articleSeq) title.textContent = MESSAGES.articleFailed
    }
  }
  back.addEventListener("click", () => {
    articleSeq++
    panel.home()
    // back on the suggestion that opened it, the form as the visitor left it
    if (opener?.isConnected) opener.focus()
  })

  return { suggestions: [suggestions, live], view, suggest, clear }
}
