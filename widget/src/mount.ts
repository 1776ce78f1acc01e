import { articles } from "./articles.ts"
import type { WidgetConfig } from "./config.ts"
import { textColourOn } from "./contrast.ts"
import { conversation } from "./conversation.ts"
import { h } from "./dom.ts"
import { form } from "./form.ts"
import { launcher, type WidgetHandle } from "./launcher.ts"
import { requestStore, visitorStore } from "./store.ts"
import { css, styleHost } from "./styles.ts"

export const HOST_ID = "support-widget-host"

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

  // the panel calls back only on the visitor's actions, after `requests` below exists
  const panel = launcher(root, config.greeting, () => requests.changed())
  const requests = conversation(config, requestStore(config), panel)
  const suggestions = articles(config, panel)
  const ticket = form(config, panel, {
    entry: requests.entry,
    articles: suggestions,
    onFiled: requests.filed,
    visitor: visitorStore(config)
  })
  panel.add(ticket, requests.list, requests.conversation, suggestions.view)

  document.documentElement.appendChild(host)
  return { open: panel.open, close: panel.close }
}
