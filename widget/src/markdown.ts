/**
 * Markdown from the service rendered as DOM nodes built one by one from an allow-list
 * (paragraphs, headings, lists, code, emphasis, links). Every piece of text goes in through
 * createTextNode, never innerHTML, so HTML in an article (a `<script>`, an `onerror`) shows as
 * the text it is and never runs; a link keeps its href only for http:, https: and mailto:.
 */

const LINK_PROTOCOLS = ["http:", "https:", "mailto:"]

/** The href a link may have, or undefined: `javascript:`, `data:` and relative URLs become plain text. */
export const safeHref = (raw: string): string | undefined => {
  try {
    const url = new URL(raw)
    return LINK_PROTOCOLS.includes(url.protocol) ? url.href : undefined
  } catch {
    return undefined
  }
}

const el = (tag: string, ...children: Node[]) => {
  const node = document.createElement(tag)
  node.append(...children)
  return node
}

// `code`, **strong**, __strong__, [text](url), *em*, _em_
const INLINE = /`([^`]+)`|\*\*(.+?)\*\*|__(.+?)__|\[([^\]]+)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)|\*([^*\s][^*]*)\*|\b_([^_]+)_\b/

/** Inline Markdown of one block as nodes. */
export function inline(text: string): Node[] {
  const nodes: Node[] = []
  let rest = text
  for (let match = INLINE.exec(rest); match; match = INLINE.exec(rest)) {
    if (match.index > 0) nodes.push(document.createTextNode(rest.slice(0, match.index)))
    const [all, code, strong, strong2, label, href, em, em2] = match
    if (code !== undefined) nodes.push(el("code", document.createTextNode(code)))
    else if (strong !== undefined || strong2 !== undefined) nodes.push(el("strong", ...inline(strong ?? strong2!)))
    else if (label !== undefined) {
      const safe = safeHref(href ?? "")
      if (safe === undefined) nodes.push(...inline(label))
      else {
        const a = el("a", ...inline(label)) as HTMLAnchorElement
        a.href = safe
        a.target = "_blank"
        a.rel = "noopener noreferrer"
        nodes.push(a)
      }
    } else nodes.push(el("em", ...inline(em ?? em2!)))
    rest = rest.slice(match.index + all.length)
  }
  if (rest) nodes.push(document.createTextNode(rest))
  return nodes
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/
const BULLET = /^\s*[-*+]\s+(.*)$/
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/
const FENCE = /^\s*(```|~~~)/

/**
 * Block Markdown as a fragment. Headings start at h4, under the panel's h2 and the view's h3.
 */
export function renderMarkdown(markdown: string): DocumentFragment {
  const out = document.createDocumentFragment()
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n")
  let paragraph: string[] = []
  let list: HTMLElement | undefined
  const flush = () => {
    if (paragraph.length) out.append(el("p", ...inline(paragraph.join(" "))))
    paragraph = []
    list = undefined
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const fence = FENCE.exec(line)
    if (fence) {
      flush()
      const code: string[] = []
      while (++i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) code.push(lines[i]!)
      out.append(el("pre", el("code", document.createTextNode(code.join("\n")))))
      continue
    }
    const heading = HEADING.exec(line)
    const item = BULLET.exec(line) ?? NUMBERED.exec(line)
    if (heading) {
      flush()
      out.append(el(`h${Math.min(6, heading[1]!.length + 3)}`, ...inline(heading[2]!)))
    } else if (item) {
      const kind = BULLET.test(line) ? "UL" : "OL"
      if (paragraph.length || list?.tagName !== kind) {
        flush()
        list = el(kind)
        out.append(list)
      }
      list!.append(el("li", ...inline(item[1]!)))
    } else if (!line.trim()) flush()
    else if (list && /^\s/.test(line)) list.lastElementChild!.append(document.createTextNode(" "), ...inline(line.trim()))
    else {
      list = undefined
      paragraph.push(line.trim())
    }
  }
  flush()
  return out
}
