/**
 * The embeddable support widget. The page defines `window.SupportWidgetConfig`, then loads this
 * script; it renders one launcher and form in a shadow root. Nothing here may throw into the page.
 */
import { PREFIX } from "./api.ts"
import { ConfigError, parseConfig } from "./config.ts"
import type { WidgetHandle } from "./launcher.ts"
import { HOST_ID, mount } from "./mount.ts"

declare global {
  interface Window {
    SupportWidgetConfig?: unknown
    SupportWidget?: WidgetHandle
  }
}

function start(): void {
  try {
    // loaded twice (or already running): render once
    if (document.getElementById(HOST_ID)) return
    let config
    try {
      config = parseConfig(window.SupportWidgetConfig)
    } catch (e) {
      console.error(`${PREFIX} ${e instanceof ConfigError ? e.message : String(e)}. The widget was not rendered.`)
      return
    }
    const handle = mount(config)
    window.SupportWidget = {
      open: () => {
        try {
          handle.open()
        } catch {
          /* never throw into the page */
        }
      },
      close: () => {
        try {
          handle.close()
        } catch {
          /* never throw into the page */
        }
      }
    }
  } catch (e) {
    try {
      console.error(`${PREFIX} could not start:`, e)
    } catch {
      /* nothing more to do */
    }
  }
}

try {
  if (document.body) start()
  else document.addEventListener("DOMContentLoaded", start, { once: true })
} catch {
  /* never throw into the page */
}
