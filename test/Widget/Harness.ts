/**
 * Helpers for the browser suite of the embeddable widget: the widget bundle, a host site on another
 * origin than the service, a page per test in Chromium, and colour arithmetic for contrast checks.
 */
import type { Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { build } from "esbuild"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, type BrowserContextOptions, chromium, type Locator, type Page, type Request } from "playwright-core"
import { afterAll, beforeAll } from "vitest"
import { createProject, TestServer, type TestServerShape } from "../support/TestServer.ts"

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url))
export const chromiumPath = "/usr/bin/chromium"
export const artifactsDir = join(repoRoot, ".artifacts")

/**
 * The service reads `dist/widget.js` once when it starts: (re)build it, exactly as
 * `npm run build:widget` does, when it is missing or older than a source file, so the suite never
 * tests a stale bundle. Returns the reason it cannot run, if any.
 */
export const ensureWidgetBuilt = async (): Promise<string | undefined> => {
  const sourceDir = join(repoRoot, "widget", "src")
  const entry = join(sourceDir, "main.ts")
  const outfile = join(repoRoot, "dist", "widget.js")
  if (!existsSync(entry)) {
    return existsSync(outfile) ? undefined : "widget/src/main.ts does not exist and dist/widget.js is not built"
  }
  const newestSource = Math.max(...readdirSync(sourceDir).map((name) => statSync(join(sourceDir, name)).mtimeMs))
  if (existsSync(outfile) && statSync(outfile).mtimeMs >= newestSource) return undefined
  await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "iife",
    target: "es2020",
    outfile,
    logLevel: "warning"
  })
  return undefined
}

/**
 * Why a Chromium suite cannot run here (no Chromium, or no widget bundle), or undefined: for
 * `describeNeeding`, so every suite skips, or fails on CI, for the same reasons; `hint` is added
 * to the no-Chromium reason in parentheses.
 */
export const chromiumSuiteMissing = async (hint?: string): Promise<string | undefined> => {
  const hasChromium = existsSync(chromiumPath)
  const notBuilt = hasChromium ? await ensureWidgetBuilt() : undefined
  return !hasChromium ? `no Chromium at ${chromiumPath}${hint === undefined ? "" : ` (${hint})`}` : notBuilt
}

// ---- the host site ---------------------------------------------------------------------------------

export interface HostSite {
  /** `http://127.0.0.1:<port>`: never the service's origin (another port). */
  readonly origin: string
  /** Serves `html` at a new path; returns its URL. */
  readonly add: (html: string) => string
  readonly close: () => Promise<void>
}

/** A tiny web site on 127.0.0.1, port 0, serving the pages a test composes. */
export const startHostSite = async (): Promise<HostSite> => {
  const pages = new Map<string, string>()
  let next = 0
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?", 1)[0]!
    const html = pages.get(path)
    if (html === undefined) {
      response.writeHead(path === "/favicon.ico" ? 204 : 404)
      response.end()
      return
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
    response.end(html)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    add: (html) => {
      const path = `/page-${++next}`
      pages.set(path, html)
      return `${origin}${path}`
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** JSON for an inline script: `</script>` in a value cannot end the element. */
const inlineJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c")

export interface PageOptions {
  /** `window.SupportWidgetConfig`; `undefined` leaves it unset. */
  readonly config?: unknown
  /** The service's base URL, where `/widget.js` is loaded from. */
  readonly scriptFrom: string
  /** Markup added to `<head>`, e.g. a hostile stylesheet. */
  readonly head?: string
  /** Markup of `<body>` before the scripts. */
  readonly body?: string
  /** false: the page loads no widget (a test injects it later). */
  readonly withScript?: boolean
}

/** A host page that embeds the widget as the README tells a site to. */
export const hostPage = (options: PageOptions) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Host page</title>
${options.head ?? ""}
</head>
<body>
${options.body ?? "<h1>A customer's site</h1><p>Some content of the host page.</p>"}
${options.config === undefined ? "" : `<script>window.SupportWidgetConfig = ${inlineJson(options.config)}</script>`}
${options.withScript === false ? "" : `<script src="${options.scriptFrom}/widget.js" async></script>`}
</body>
</html>
`

// ---- a page in the browser -------------------------------------------------------------------------

export interface Session {
  readonly page: Page
  /** Text of every `console.error` message, in order. */
  readonly consoleErrors: Array<string>
  /** Text of every `console.warn` message, in order. */
  readonly consoleWarnings: Array<string>
  /** Every uncaught exception of the page. */
  readonly pageErrors: Array<string>
  /** Every request the page made (preflights are not reported by Chromium). */
  readonly requests: Array<Request>
}

/** A fresh context and page for one test; closed afterwards whatever happens. */
export const withPage = async <A>(
  browser: Browser,
  options: BrowserContextOptions,
  body: (session: Session) => Promise<A>
): Promise<A> => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options })
  try {
    const page = await context.newPage()
    page.setDefaultTimeout(15_000)
    const session: Session = { page, consoleErrors: [], consoleWarnings: [], pageErrors: [], requests: [] }
    page.on("console", (message) => {
      if (message.type() === "error") session.consoleErrors.push(message.text())
      if (message.type() === "warning") session.consoleWarnings.push(message.text())
    })
    page.on("pageerror", (error) => session.pageErrors.push(String(error)))
    page.on("request", (request) => session.requests.push(request))
    return await body(session)
  } finally {
    await context.close().catch(() => undefined)
  }
}

/** An element of the widget by its test id, through the open shadow root of the host. */
export const widget = (page: Page, testId: string): Locator => page.locator(`#support-widget-host [data-testid=${testId}]`)

export const field = (page: Page, name: string): Locator => widget(page, `field-${name}`)

/** Waits for the launcher, clicks it, and waits for the panel. */
export const openPanel = async (page: Page) => {
  await widget(page, "launcher").waitFor({ state: "visible" })
  await widget(page, "launcher").click()
  await widget(page, "panel").waitFor({ state: "visible" })
}

export interface FormValues {
  readonly name?: string
  readonly email?: string
  readonly subject?: string
  readonly message?: string
}

export const fillForm = async (page: Page, values: FormValues) => {
  for (const name of ["name", "email", "subject", "message"] as const) {
    const value = values[name]
    if (value !== undefined) await field(page, name).fill(value)
  }
}

export const formValues = async (page: Page, names: ReadonlyArray<string>) => {
  const values: Record<string, string> = {}
  for (const name of names) values[name] = await field(page, name).inputValue()
  return values
}

/** Which element has focus: the page's `activeElement`, and inside the widget's shadow root. */
export const focusOf = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement
    const inner = active?.shadowRoot?.activeElement ?? null
    return {
      pageId: active?.id ?? null,
      pageTag: active?.tagName.toLowerCase() ?? null,
      widgetTestId: inner?.getAttribute("data-testid") ?? null,
      inPanel: inner?.closest("[data-testid=panel]") != null
    }
  })

/** Settles pending requests of the given kind: none in flight. */
export const idle = async (page: Page, requests: ReadonlyArray<Request>, matches: (request: Request) => boolean) => {
  for (const request of requests.filter(matches)) {
    await request.response().catch(() => undefined)
  }
  // one more turn for a request started by the answer to the last one
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)))
}

// ---- a suite in Chromium ------------------------------------------------------------------------------

/** The browser and the host site a suite's tests share (read them in a test, not while declaring). */
export interface ChromiumSuite {
  readonly browser: Browser
  readonly site: HostSite
}

/**
 * Launches Debian's Chromium and starts the host site before the tests of the calling `describe`,
 * and closes both after them, so each suite launches one browser the same way; the getters read
 * what is current.
 */
export const chromiumSuite = (): ChromiumSuite => {
  let browser: Browser | undefined
  let site: HostSite | undefined
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] })
    site = await startHostSite()
  })
  afterAll(async () => {
    await browser?.close()
    await site?.close()
  })
  const started = <A>(value: A | undefined, what: string): A => {
    if (value === undefined) throw new Error(`the suite's ${what} is not started: read it inside a test`)
    return value
  }
  return {
    get browser() {
      return started(browser, "browser")
    },
    get site() {
      return started(site, "host site")
    }
  }
}

/** A project with its keys, as `createProject` makes it: what a browser test is given. */
export type Project = Effect.Success<ReturnType<typeof createProject>>

/**
 * A test with the service, a project with a widget key (named after the test) and the test's own
 * body, so every browser test starts from the same fresh project; `timeout` in ms, or vitest's.
 */
export const browserTestOf = (it: Vitest.MethodsNonLive<TestServer>, timeout?: number) =>
(
  name: string,
  body: (server: TestServerShape, project: Project) => Promise<void>
) =>
  it.effect(name, () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const project = yield* createProject(server, name.slice(0, 60))
      yield* Effect.promise(() => body(server, project))
    }), timeout)

const axePath = join(repoRoot, "node_modules", "axe-core", "axe.min.js")

/**
 * axe-core's violations in the widget (its shadow tree included), WCAG 2.x A/AA and best
 * practices, so every suite checks accessibility against the same rules.
 */
export const axeViolations = async (page: Page) => {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: axePath })
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(
      { include: [["#support-widget-host"]] },
      { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] } }
    )
    return (result.violations as Array<any>).map((v) =>
      `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n: any) => JSON.stringify(n.target)).join(", ")}`
    )
  })
}

// ---- colours -----------------------------------------------------------------------------------------

export type Rgba = readonly [number, number, number, number]

/** A computed colour (`rgb(…)` / `rgba(…)`) as numbers; throws on anything else. */
export const parseCssColour = (value: string): Rgba => {
  const match = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+))?\s*\)$/.exec(value.trim())
  if (match === null) throw new Error(`not an rgb() colour: ${value}`)
  return [Number(match[1]), Number(match[2]), Number(match[3]), match[4] === undefined ? 1 : Number(match[4])]
}

export const luminance = ([r, g, b]: Rgba) => {
  const [R, G, B] = [r, g, b].map((c) => {
    const s = c / 255
    return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4)
  })
  return 0.2126 * R! + 0.7152 * G! + 0.0722 * B!
}

/** WCAG 2.x contrast ratio of two opaque colours. */
export const contrast = (a: Rgba, b: Rgba) => {
  const [la, lb] = [luminance(a), luminance(b)]
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

/**
 * The text colour of an element and the first opaque background behind it in the tree
 * (climbing out of the shadow root to the host when needed).
 */
export const coloursOf = (locator: Locator) =>
  locator.evaluate((element) => {
    const text = getComputedStyle(element).color
    let node: Element | null = element
    while (node !== null) {
      const background = getComputedStyle(node).backgroundColor
      if (background !== "transparent" && !/rgba\([^)]*,\s*0\)$/.test(background)) return { text, background }
      node = node.parentElement ?? ((node.getRootNode() as ShadowRoot).host ?? null)
    }
    return { text, background: "rgb(255, 255, 255)" }
  })

/** A band of colour a focus style draws around an element: its outline, or a solid box-shadow. */
export interface Ring {
  readonly source: "outline" | "box-shadow"
  readonly colour: string
  readonly width: number
}

/**
 * The rings of an element's current style: the outline, and every box-shadow that is a band (no
 * offset, no blur, a spread) rather than a soft drop shadow.
 */
export const ringsOf = (locator: Locator) =>
  locator.evaluate((element) => {
    const style = getComputedStyle(element)
    const rings: Array<{ source: "outline" | "box-shadow"; colour: string; width: number }> = []
    if (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) {
      rings.push({ source: "outline", colour: style.outlineColor, width: parseFloat(style.outlineWidth) })
    }
    for (const shadow of style.boxShadow === "none" ? [] : style.boxShadow.split(/,(?![^(]*\))/)) {
      const colour = /rgba?\([^)]*\)/.exec(shadow)?.[0]
      const [x, y, blur, spread] = (shadow.replace(/rgba?\([^)]*\)/, "").match(/-?[\d.]+px/g) ?? []).map(parseFloat)
      if (colour && !/inset/.test(shadow) && x === 0 && y === 0 && blur === 0 && spread! > 0) {
        rings.push({ source: "box-shadow", colour, width: spread! })
      }
    }
    return rings
  })

/** The RGBA bytes of a PNG (a screenshot), decoded by the page's own canvas. */
export const decodePng = async (page: Page, png: Buffer) => {
  const base64 = await page.evaluate(async (src) => {
    const image = new Image()
    image.src = src
    await image.decode()
    const canvas = document.createElement("canvas")
    canvas.width = image.naturalWidth
    canvas.height = image.naturalHeight
    const context = canvas.getContext("2d")!
    context.drawImage(image, 0, 0)
    const data = context.getImageData(0, 0, canvas.width, canvas.height).data
    // as base64: a long array of numbers takes seconds to cross to Node
    let binary = ""
    for (let i = 0; i < data.length; i += 0x8000) binary += String.fromCharCode(...data.subarray(i, i + 0x8000))
    return btoa(binary)
  }, `data:image/png;base64,${png.toString("base64")}`)
  return Buffer.from(base64, "base64")
}

/**
 * WCAG 2.2's measure of a focus indicator (2.4.13): the area, in CSS px², whose pixels change by
 * at least `ratio` between two screenshots of the same clip, unfocused and focused.
 */
export const changedArea = async (page: Page, unfocused: Buffer, focused: Buffer, scale: number, ratio = 3) => {
  const [a, b] = [await decodePng(page, unfocused), await decodePng(page, focused)]
  if (a.length !== b.length) throw new Error("screenshots of different sizes")
  let changed = 0
  for (let i = 0; i < a.length; i += 4) {
    const before: Rgba = [a[i]!, a[i + 1]!, a[i + 2]!, 1]
    const after: Rgba = [b[i]!, b[i + 1]!, b[i + 2]!, 1]
    if (contrast(before, after) >= ratio) changed++
  }
  return changed / (scale * scale)
}
