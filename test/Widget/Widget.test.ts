/**
 * The embeddable widget (`/widget.js`) in a real browser (Debian's Chromium through
 * playwright-core), embedded in pages of a host site on another origin than the service, against
 * the whole service running in-process.
 *
 * PGlite only for the form: what is under test is the browser side and its HTTP contract; the
 * service's behaviour on PostgreSQL is covered by the suites under test/Http. The visitor's
 * requests and opened articles (section 14) run on every database too, as the issue checks them:
 * their loop crosses the operator API, the public reads and the reopening of a ticket.
 *
 * Screenshots of the open panel go to `.artifacts/` at the repository root.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import type { Request } from "playwright-core"
import { describe, expect } from "vitest"
import { seedDemo } from "../../src/Demo/Demo.ts"
import { databaseKinds } from "../support/Databases.ts"
import { createAgent } from "../support/Calls.ts"
import { describeNeeding } from "../support/Requires.ts"
import {
  adminToken,
  type ApiClient,
  TestServer,
  type TestServerShape,
  testServer
} from "../support/TestServer.ts"
import {
  artifactsDir,
  browserTestOf,
  changedArea,
  chromiumSuite,
  chromiumSuiteMissing,
  coloursOf,
  contrast,
  field,
  fillForm,
  focusOf,
  formValues,
  hostPage,
  idle,
  openPanel,
  parseCssColour,
  ringsOf,
  type Session,
  widget,
  withPage
} from "./Harness.ts"

const missing = await chromiumSuiteMissing("CI installs Debian's chromium package")

const DEFAULT_BLUE = "rgb(2, 132, 199)" // #0284c7
const YELLOW = "rgb(253, 224, 71)" // #fde047

/** A word no other ticket of the run contains, so search finds exactly the tickets of one test. */
const uniqueWord = () => `zq${Math.random().toString(36).slice(2, 10).replace(/\d/g, "x")}`

const isTicketPost = (request: Request) => request.method() === "POST" && new URL(request.url()).pathname === "/v1/tickets"

/** A call of the contract's typed client, authenticated with `token`, from the promise-style browser code. */
const call = <A, E>(server: TestServerShape, token: string, request: (api: ApiClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(server.api(token), request))

/** The tickets whose text contains `word`, through unified search with the project's full key. */
const ticketsMatching = async (server: TestServerShape, key: string, word: string) => {
  const [found, response] = await call(server, key, (api) =>
    api.search.search({ query: { q: word, types: ["tickets"] }, responseMode: "decoded-and-response" }))
  expect(response.status).toBe(200)
  const results = found.results.flatMap((result) => (result.type === "ticket" ? [result] : []))
  expect(results, "only tickets were asked for").toHaveLength(found.results.length)
  return { total: found.total, results }
}

const adminTicket = async (server: TestServerShape, projectId: string, ticketId: string) => {
  const [ticket, response] = await call(server, adminToken, (api) =>
    api.admin.getTicket({ params: { pid: projectId, id: ticketId }, responseMode: "decoded-and-response" }))
  expect(response.status).toBe(200)
  return ticket
}

const createArticle = (
  server: TestServerShape,
  projectId: string,
  payload: { title: string; body: string; category: string; published: boolean }
) =>
  call(server, adminToken, (api) =>
    api.admin.createArticle({ params: { pid: projectId }, payload, responseMode: "decoded-and-response" }))

/**
 * The ticket number shown after filing: in the heading of the new conversation, or, where the
 * ticket cannot be opened (no access token in the answer), in the confirmation at the top of the form.
 */
const shownTicketNumber = async (session: Session) => {
  const shown = async () =>
    `${await widget(session.page, "conversation-title").textContent()} ${await widget(session.page, "confirmation").textContent()}`
  await expect.poll(shown, { timeout: 20_000 }).toMatch(/#\d+/)
  return Number(/#(\d+)/.exec(await shown())![1])
}

const config = (server: TestServerShape, key: string, extra: Record<string, unknown> = {}) => ({
  projectKey: key,
  baseUrl: server.baseUrl,
  ...extra
})

describeNeeding(missing, "widget in Chromium", () => {
  const suite = chromiumSuite()

  /** The page of `options` in a fresh context; no uncaught exception may reach the page. */
  const onPage = async (
    options: Parameters<typeof hostPage>[0],
    body: (session: Session) => Promise<void>,
    contextOptions: Parameters<typeof withPage>[1] = {}
  ) =>
    withPage(suite.browser, contextOptions, async (session) => {
      await session.page.goto(suite.site.add(hostPage(options)))
      await body(session)
      expect(session.pageErrors, "uncaught exceptions in the page").toEqual([])
    })

  layer(testServer("pglite", {}, undefined), { excludeTestServices: true })((it) => {
    const browserTest = browserTestOf(it)

    // ---- 1. defaults --------------------------------------------------------------------------------

    browserTest("renders with the defaults: bottom-right launcher in #0284c7, greeting, name and email", async (server, { widgetKey }) => {
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async ({ page }) => {
        const launcher = widget(page, "launcher")
        await launcher.waitFor({ state: "visible" })
        const box = (await launcher.boundingBox())!
        expect(box.x + box.width).toBeGreaterThan(1280 - 120)
        expect(box.x).toBeGreaterThan(640)
        expect(box.y + box.height).toBeGreaterThan(800 - 120)

        const launcherColours = await launcher.evaluate((el) => {
          const style = getComputedStyle(el)
          return { background: style.backgroundColor, text: style.color }
        })
        expect(launcherColours.background).toBe(DEFAULT_BLUE)
        // the launcher is opened by keyboard and screen readers too: it must say what it is
        expect(await launcher.evaluate((el) => el.tagName.toLowerCase())).toBe("button")
        expect((await launcher.getAttribute("aria-label")) ?? (await launcher.textContent())).toMatch(/\w/)

        await openPanel(page)
        expect(await widget(page, "greeting").textContent()).toBe("How can we help?")
        expect(await field(page, "name").isVisible()).toBe(true)
        expect(await field(page, "email").isVisible()).toBe(true)
        expect(await field(page, "subject").isVisible()).toBe(true)
        expect(await field(page, "message").isVisible()).toBe(true)
        expect(await field(page, "priority").isHidden()).toBe(true)

        // the header is painted with the colour, and its text must be readable on it
        const header = await coloursOf(widget(page, "greeting"))
        expect(header.background, "the header uses the configured colour").toBe(DEFAULT_BLUE)
        const ratios = {
          launcher: contrast(parseCssColour(launcherColours.text), parseCssColour(launcherColours.background)),
          header: contrast(parseCssColour(header.text), parseCssColour(header.background))
        }
        expect(ratios.launcher, `launcher text ${launcherColours.text} on ${launcherColours.background}`)
          .toBeGreaterThanOrEqual(4.5)
        expect(ratios.header, `header text ${header.text} on ${header.background}`).toBeGreaterThanOrEqual(4.5)
        // whatever else is painted with the colour (the submit button) is readable too
        const submit = await coloursOf(widget(page, "submit"))
        expect(
          submit.background === DEFAULT_BLUE
            ? contrast(parseCssColour(submit.text), parseCssColour(submit.background))
            : Infinity,
          `submit text ${submit.text} on ${submit.background}`
        ).toBeGreaterThanOrEqual(4.5)
      })
    })

    // ---- 2. each setting ---------------------------------------------------------------------------

    browserTest("color: a light colour (#fde047) gets dark text on the launcher and header", async (server, { widgetKey }) => {
      await onPage(
        { scriptFrom: server.baseUrl, config: config(server, widgetKey, { color: "#fde047" }) },
        async ({ page }) => {
          const launcher = widget(page, "launcher")
          await launcher.waitFor({ state: "visible" })
          const colours = await launcher.evaluate((el) => ({
            background: getComputedStyle(el).backgroundColor,
            text: getComputedStyle(el).color
          }))
          expect(colours.background).toBe(YELLOW)
          const [r, g, b] = parseCssColour(colours.text)
          expect(Math.max(r, g, b), `dark text on yellow, got ${colours.text}`).toBeLessThan(80)
          expect(contrast(parseCssColour(colours.text), parseCssColour(colours.background))).toBeGreaterThanOrEqual(4.5)

          await openPanel(page)
          const header = await coloursOf(widget(page, "greeting"))
          expect(header.background).toBe(YELLOW)
          expect(contrast(parseCssColour(header.text), parseCssColour(header.background))).toBeGreaterThanOrEqual(4.5)
        }
      )
    })

    browserTest("position: bottom-left puts the launcher (and the panel) at the left edge", async (server, { widgetKey }) => {
      await onPage(
        { scriptFrom: server.baseUrl, config: config(server, widgetKey, { position: "bottom-left" }) },
        async ({ page }) => {
          const launcher = widget(page, "launcher")
          await launcher.waitFor({ state: "visible" })
          const box = (await launcher.boundingBox())!
          expect(box.x).toBeLessThan(120)
          expect(box.y + box.height).toBeGreaterThan(800 - 120)
          await openPanel(page)
          const panel = (await widget(page, "panel").boundingBox())!
          expect(panel.x).toBeLessThan(120)
          expect(panel.x + panel.width).toBeLessThan(640)
        }
      )
    })

    browserTest("greeting and fields.name false: the greeting is shown, the name field is not", async (server, { widgetKey }) => {
      await onPage(
        {
          scriptFrom: server.baseUrl,
          config: config(server, widgetKey, { greeting: "Hallo! <b>Wie</b> können wir helfen?", fields: { name: false } })
        },
        async ({ page }) => {
          await openPanel(page)
          // text, not markup
          expect(await widget(page, "greeting").textContent()).toBe("Hallo! <b>Wie</b> können wir helfen?")
          expect(await field(page, "name").isHidden()).toBe(true)
          expect(await field(page, "email").isVisible()).toBe(true)
          expect(await field(page, "priority").isHidden()).toBe(true)
        }
      )
    })

    browserTest("fields.email false hides the email field and keeps the name", async (server, { widgetKey }) => {
      await onPage(
        { scriptFrom: server.baseUrl, config: config(server, widgetKey, { fields: { email: false } }) },
        async ({ page }) => {
          await openPanel(page)
          expect(await field(page, "email").isHidden()).toBe(true)
          expect(await field(page, "name").isVisible()).toBe(true)
        }
      )
    })

    browserTest("fields.priority true shows a select of four priorities in words", async (server, { widgetKey }) => {
      await onPage(
        { scriptFrom: server.baseUrl, config: config(server, widgetKey, { fields: { priority: true } }) },
        async ({ page }) => {
          await openPanel(page)
          const priority = field(page, "priority")
          expect(await priority.isVisible()).toBe(true)
          expect(await priority.evaluate((el) => el.tagName.toLowerCase())).toBe("select")
          const options = await priority.locator("option").allTextContents()
          expect(options).toHaveLength(4)
          for (const label of options) {
            // words for people, not the API's p1_critical
            expect(label.trim()).toMatch(/^[A-Za-z][A-Za-z ]+$/)
          }
          expect(new Set(options.map((o) => o.trim().toLowerCase())).size).toBe(4)
        }
      )
    })

    browserTest("projectKey and baseUrl: every API request goes to baseUrl with that Bearer key", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
        const { page, requests } = session
        await openPanel(page)
        await field(page, "subject").pressSequentially(`Password ${word}`)
        await expect.poll(() => requests.filter((r) => r.url().includes("/v1/articles/search")).length).toBeGreaterThan(0)
        await fillForm(page, { email: "kim@example.com", message: "Where is the reset link?" })
        await widget(page, "submit").click()
        await shownTicketNumber(session)

        const api = requests.filter((r) => r.url().includes("/v1/"))
        expect(api.some(isTicketPost)).toBe(true)
        for (const request of api) {
          expect(request.url().startsWith(`${server.baseUrl}/v1/`), request.url()).toBe(true)
          expect((await request.allHeaders()).authorization, request.url()).toBe(`Bearer ${widgetKey}`)
        }
        // a widget key is what belongs in a page: nothing to warn about
        expect(session.consoleWarnings).toEqual([])
        expect(session.consoleErrors).toEqual([])
      })
      expect((await ticketsMatching(server, key, word)).total).toBe(1)
    })

    // ---- 3. bad configuration -----------------------------------------------------------------------

    const badConfigs: ReadonlyArray<[string, (server: TestServerShape, key: string) => unknown]> = [
      ["no SupportWidgetConfig at all", () => undefined],
      ["missing projectKey", (server) => ({ baseUrl: server.baseUrl })],
      ["missing baseUrl", (_server, key) => ({ projectKey: key })],
      ['color "blue-ish"', (server, key) => ({ projectKey: key, baseUrl: server.baseUrl, color: "blue-ish" })],
      ['position "top"', (server, key) => ({ projectKey: key, baseUrl: server.baseUrl, position: "top" })]
    ]
    for (const [label, make] of badConfigs) {
      browserTest(`bad config (${label}): one [support-widget] console error, nothing rendered, no exception`, async (server, { widgetKey }) => {
        await onPage({ scriptFrom: server.baseUrl, config: make(server, widgetKey) }, async (session) => {
          const { page } = session
          // the script is async: the load event waits for it, then give it a moment to report
          await page.waitForLoadState("load")
          await expect.poll(() => session.consoleErrors.length).toBeGreaterThan(0)
          await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)))
          expect(session.consoleErrors).toHaveLength(1)
          expect(session.consoleErrors[0]).toMatch(/^\[support-widget\]/)
          expect(await page.locator("#support-widget-host").count()).toBe(0)
          expect(await widget(page, "launcher").isHidden()).toBe(true)
          expect(session.requests.filter((r) => r.url().includes("/v1/"))).toEqual([])
        })
      })
    }

    browserTest("a synchronous script in <head> (before <body> exists) still renders", async (server, { widgetKey }) => {
      const head = `<script>window.SupportWidgetConfig = ${JSON.stringify(config(server, widgetKey))}</script>
        <script src="${server.baseUrl}/widget.js"></script>`
      await onPage({ scriptFrom: server.baseUrl, withScript: false, head }, async ({ page }) => {
        await widget(page, "launcher").waitFor({ state: "visible" })
        expect(await page.locator("#support-widget-host").count()).toBe(1)
      })
    })

    browserTest("the script included twice renders one widget", async (server, { widgetKey }) => {
      await onPage(
        {
          scriptFrom: server.baseUrl,
          config: config(server, widgetKey),
          body: `<p>Twice</p><script src="${server.baseUrl}/widget.js" async></script>`
        },
        async (session) => {
          const { page } = session
          await page.waitForLoadState("load")
          await widget(page, "launcher").waitFor({ state: "visible" })
          expect(await page.locator("#support-widget-host").count()).toBe(1)
          expect(session.consoleErrors).toEqual([])
        }
      )
    })

    // ---- 4. hostile host page --------------------------------------------------------------------------

    browserTest("survives a hostile host stylesheet: launcher usable, panel opens, ticket filed", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      const hostile = `<style>
        * { all: unset !important }
        button { display: none !important }
        div { background: red !important; font-size: 40px !important }
      </style>`
      await onPage(
        {
          scriptFrom: server.baseUrl,
          config: config(server, widgetKey),
          head: hostile,
          body: `<div><h1>Hostile site</h1><button>host button</button></div>`
        },
        async (session) => {
          const { page } = session
          const launcher = widget(page, "launcher")
          await launcher.waitFor({ state: "visible" })
          const box = (await launcher.boundingBox())!
          expect(box.width).toBeGreaterThan(20)
          expect(box.height).toBeGreaterThan(20)
          await openPanel(page) // a real click: Playwright checks that nothing covers it
          const panel = widget(page, "panel")
          expect(await panel.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe("rgb(255, 0, 0)")
          expect(await widget(page, "greeting").evaluate((el) => getComputedStyle(el).fontSize)).not.toBe("40px")
          expect(await field(page, "subject").evaluate((el) => getComputedStyle(el).fontSize)).not.toBe("40px")
          expect(await widget(page, "submit").isVisible()).toBe(true)
          await fillForm(page, { name: "Hostile Harry", email: "harry@example.com", subject: `Styles ${word}`, message: "Hi" })
          await widget(page, "submit").click()
          await shownTicketNumber(session)
        }
      )
      expect((await ticketsMatching(server, key, word)).total).toBe(1)
    })

    browserTest("the launcher stays in the viewport when the host page transforms <body>", async (server, { widgetKey }) => {
      // a transform (or filter) on <body> makes it the containing block of position: fixed descendants
      await onPage(
        {
          scriptFrom: server.baseUrl,
          config: config(server, widgetKey),
          head: `<style>body { transform: translateZ(0); margin: 0 }</style>`,
          body: `<div style="height: 3000px">A long page</div>`
        },
        async ({ page }) => {
          const launcher = widget(page, "launcher")
          await launcher.waitFor({ state: "visible" })
          const box = (await launcher.boundingBox())!
          expect(box.y + box.height, `launcher at y=${box.y} on an 800 px high viewport`).toBeLessThanOrEqual(800)
          expect(box.y).toBeGreaterThan(800 - 120)
        }
      )
    })

    browserTest("its CSS does not leak into the host page", async (server, { widgetKey }) => {
      const probes = ["#host-h2", "#host-button", "#host-p", "#host-input", "body"]
      const properties = [
        "color",
        "background-color",
        "font-family",
        "font-size",
        "font-weight",
        "line-height",
        "margin",
        "padding",
        "border",
        "border-radius",
        "box-sizing",
        "display",
        "width",
        "outline"
      ]
      const styles = (page: Session["page"]) =>
        page.evaluate(({ probes, properties }) => ({
          computed: probes.map((selector) => {
            const style = getComputedStyle(document.querySelector(selector)!)
            return [selector, properties.map((p) => `${p}: ${style.getPropertyValue(p)}`)]
          }),
          sheets: document.styleSheets.length,
          adopted: document.adoptedStyleSheets.length
        }), { probes, properties })
      await onPage(
        {
          scriptFrom: server.baseUrl,
          withScript: false,
          head: `<style>body { font-family: Georgia, serif }</style>`,
          body: `<h2 id="host-h2">Host heading</h2><p id="host-p">Text</p>
            <button id="host-button">Host button</button><input id="host-input">`
        },
        async ({ page }) => {
          const before = await styles(page)
          // as a single-page app would embed it: config, then the script, after the page has loaded
          await page.evaluate(({ cfg, src }) => {
            ;(window as any).SupportWidgetConfig = cfg
            const script = document.createElement("script")
            script.src = src
            script.async = true
            document.body.appendChild(script)
          }, { cfg: config(server, widgetKey), src: `${server.baseUrl}/widget.js` })
          await openPanel(page)
          expect(await styles(page)).toEqual(before)
        }
      )
    })

    // ---- 5. filing a ticket --------------------------------------------------------------------------

    browserTest("files a ticket by clicking: number shown, stored with source widget, sender and priority", async (server, { widgetKey, key, projectId }) => {
      const word = uniqueWord()
      const subject = `Invoice missing ${word}`
      await onPage(
        { scriptFrom: server.baseUrl, config: config(server, widgetKey, { fields: { priority: true } }) },
        async (session) => {
          const { page } = session
          await openPanel(page)
          await fillForm(page, { name: "Grace Hopper", email: "Grace@Example.com", subject, message: "My March invoice is missing." })
          const high = (await field(page, "priority").locator("option").allTextContents()).find((o) => /high/i.test(o))
          expect(high, "a High priority option").toBeDefined()
          await field(page, "priority").selectOption({ label: high! })
          await widget(page, "submit").click()
          const number = await shownTicketNumber(session)
          // the confirmation is announced to screen readers
          const confirmation = widget(page, "confirmation")
          expect(
            (await confirmation.getAttribute("aria-live")) ?? ((await confirmation.getAttribute("role")) === "status" ? "polite" : null)
          ).toMatch(/polite|assertive/)
          expect(await widget(page, "error").textContent()).toBe("")

          const found = await ticketsMatching(server, key, word)
          expect(found.total).toBe(1)
          expect(found.results[0]!.ticket_number).toBe(number)
          const ticket = await adminTicket(server, projectId, found.results[0]!.id)
          expect(ticket).toMatchObject({
            subject,
            source: "widget",
            sender_name: "Grace Hopper",
            sender_email: "grace@example.com",
            priority: "p2_high"
          })
          expect(ticket.messages).toEqual([])
          const post = session.requests.find(isTicketPost)!
          expect((await post.allHeaders())["idempotency-key"], "an Idempotency-Key on the POST").toMatch(/\S/)
          expect(post.postDataJSON()).toMatchObject({ source: "widget", body: "My March invoice is missing." })
        }
      )
    })

    browserTest("a double click on submit files one ticket", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
        const { page } = session
        await openPanel(page)
        await fillForm(page, { name: "Dee", email: "dee@example.com", subject: `Double ${word}`, message: "Clicked twice" })
        await widget(page, "submit").dblclick()
        const number = await shownTicketNumber(session)
        await idle(page, session.requests, isTicketPost)
        expect(await widget(page, "error").textContent()).toBe("")
        const posts = session.requests.filter(isTicketPost)
        const keys = new Set(await Promise.all(posts.map(async (p) => (await p.allHeaders())["idempotency-key"])))
        expect(keys.size, "every POST of one form carries the same Idempotency-Key").toBe(1)
        const found = await ticketsMatching(server, key, word)
        expect(found.total).toBe(1)
        expect(found.results[0]!.ticket_number).toBe(number)
      })
    })

    // ---- 6. validation -------------------------------------------------------------------------------

    browserTest("a 400 on a field the visitor typed names it by its label, keeps what was typed, and logs the detail", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
        const { page } = session
        await openPanel(page)
        // valid for the browser (a textarea has no length of its own), not for the service (50,000
        // at most); an address cannot serve, as the browser's <input type=email> rule is the service's
        const typed = { name: "Alan", email: "alan@example.com", subject: `Long message ${word}`, message: "x".repeat(50_001) }
        await fillForm(page, typed)
        await widget(page, "submit").click()
        // the visitor's words for the field, not the API's body
        await expect.poll(() => widget(page, "error").textContent()).toBe("Message must be at most 50,000 characters")
        expect(await widget(page, "error").isVisible()).toBe(true)
        expect(session.consoleErrors.filter((line) => line.startsWith("[support-widget]"))).toEqual([
          expect.stringMatching(
            /^\[support-widget\] sending the ticket failed: 400 VALIDATION_ERROR: body must be at most 50,000 characters \(request id \S+\)$/
          )
        ])
        expect(await formValues(page, ["name", "email", "subject", "message"])).toEqual(typed)
        expect(await widget(page, "confirmation").textContent()).not.toMatch(/#\d+/)

        // the subject field stops at the service's 200 characters, so that limit never costs a round trip
        await field(page, "subject").fill(`${word} ${"x".repeat(1000)}`)
        expect((await formValues(page, ["subject"])).subject).toHaveLength(200)
      })
      expect((await ticketsMatching(server, key, word)).total).toBe(0)
    })

    browserTest("a wrong key: the visitor reads a plain message, the console gets the service's code and message", async (server) => {
      const wrongKey = `tf_${"x".repeat(43)}`
      await onPage({ scriptFrom: server.baseUrl, config: config(server, wrongKey) }, async (session) => {
        const { page } = session
        await openPanel(page)
        await fillForm(page, { name: "Wes", email: "wes@example.com", subject: "Wrong key", message: "Hello?" })
        await widget(page, "submit").click()
        const error = widget(page, "error")
        await expect.poll(() => error.textContent()).toBe(
          "The support form is not available right now. Please try again later."
        )
        // nothing of the API's developer text reaches the visitor
        const shown = await page.locator("#support-widget-host").evaluate((host) => host.shadowRoot!.textContent)
        for (const developerText of ["API key", "Bearer", "tf_", "Authorization", "UNAUTHORIZED", "401"]) {
          expect(shown, developerText).not.toContain(developerText)
        }
        expect(await widget(page, "retry").isHidden(), "trying again cannot help").toBe(true)
        const logged = session.consoleErrors.filter((line) => line.startsWith("[support-widget]"))
        expect(logged).toContainEqual(
          expect.stringMatching(
            /^\[support-widget\] sending the ticket failed: 401 UNAUTHORIZED: a valid API key is required.* \(request id \S+\)$/
          )
        )
        // the suggestions' search was refused too: said in the console, not on the page (it is
        // debounced, so its answer may come after the ticket's)
        await expect.poll(
          () => session.consoleErrors.some((line) => /^\[support-widget\] searching articles failed: 401 UNAUTHORIZED: /.test(line)),
          { timeout: 10_000 }
        ).toBe(true)
        expect(session.consoleWarnings).toEqual([])
      })
    })

    browserTest("a 409 while the first attempt is still being handled says so plainly and offers retry", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
        const { page } = session
        let attempts = 0
        await page.route("**/v1/tickets", async (route) => {
          if (route.request().method() !== "POST" || ++attempts > 1) return route.continue()
          return route.fulfill({
            status: 409,
            headers: { "content-type": "application/json; charset=utf-8", "access-control-allow-origin": "*" },
            body: JSON.stringify({
              error: { code: "CONFLICT", message: "a request with this Idempotency-Key is still in progress" }
            })
          })
        })
        await openPanel(page)
        await fillForm(page, { name: "Cy", email: "cy@example.com", subject: `Conflict ${word}`, message: "Twice?" })
        await widget(page, "submit").click()
        await expect.poll(() => widget(page, "error").textContent()).toBe(
          "Your request is still being sent. Please try again in a moment."
        )
        expect(session.consoleErrors).toContainEqual(
          expect.stringMatching(/^\[support-widget\] sending the ticket failed: 409 CONFLICT: a request with this Idempotency-Key/)
        )
        await widget(page, "retry").click()
        await shownTicketNumber(session)
      })
      expect((await ticketsMatching(server, key, word)).total).toBe(1)
    })

    browserTest("a full key in the page works, and warns once in the console that it must be a widget key", async (server, { key }) => {
      const word = uniqueWord()
      await onPage({ scriptFrom: server.baseUrl, config: config(server, key) }, async (session) => {
        const { page } = session
        await openPanel(page)
        await field(page, "subject").pressSequentially(`Password ${word}`)
        await expect.poll(() => session.consoleWarnings.length, { timeout: 10_000 }).toBeGreaterThan(0)
        await fillForm(page, { email: "fay@example.com", message: "Filed with a full key" })
        await widget(page, "submit").click()
        await shownTicketNumber(session)
        expect(session.consoleWarnings).toEqual([
          expect.stringMatching(/^\[support-widget\] SupportWidgetConfig\.projectKey is a full API key: .*widget scope/)
        ])
        expect(await widget(page, "error").textContent()).toBe("")
      })
      expect((await ticketsMatching(server, key, word)).total).toBe(1)
    })

    // ---- 7. deflection -------------------------------------------------------------------------------

    browserTest("typing a subject suggests at most three published articles", async (server, { widgetKey, projectId }) => {
      const titles = [
        "How do I reset my password?",
        "Password reset email never arrives",
        "Reset your password from the app",
        "Password rules and reset policy",
        "Resetting a team member's password"
      ]
      for (const [i, title] of titles.entries()) {
        const [, created] = await createArticle(server, projectId, {
          title,
          body: `Article ${i}: to reset a password, open Settings and choose Reset password.`,
          category: "account",
          published: true
        })
        expect(created.status).toBe(201)
      }
      await createArticle(server, projectId, {
        title: "Draft: reset password internals",
        body: "reset password",
        category: "account",
        published: false
      })
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async ({ page }) => {
        await openPanel(page)
        await field(page, "subject").pressSequentially("reset password", { delay: 30 })
        const articles = widget(page, "articles")
        await expect.poll(() => articles.textContent(), { timeout: 10_000 }).toContain("How do I reset my password?")
        expect(await articles.isVisible()).toBe(true)
        const text = (await articles.textContent())!
        const shown = titles.filter((title) => text.includes(title))
        expect(shown.length).toBeGreaterThanOrEqual(1)
        expect(shown.length, `articles shown: ${shown.join(" | ")}`).toBeLessThanOrEqual(3)
        expect(text).not.toContain("Draft:")
        // the service's excerpt markup (<mark>) is not shown as text
        expect(text).not.toMatch(/<\/?mark>/)
      })
    })

    browserTest("an article title with markup is shown as text, never run", async (server, { widgetKey, projectId }) => {
      const title = `Reset password <img src=x onerror="window.__widgetXss=1"> guide`
      const [, created] = await createArticle(server, projectId, {
        title,
        body: "How to reset a password.",
        category: "account",
        published: true
      })
      expect(created.status).toBe(201)
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async ({ page }) => {
        await openPanel(page)
        await field(page, "subject").pressSequentially("reset password", { delay: 30 })
        await expect.poll(() => widget(page, "articles").textContent(), { timeout: 10_000 }).toContain(title)
        expect(await page.evaluate(() => (window as any).__widgetXss)).toBeUndefined()
        expect(await widget(page, "articles").locator("img").count()).toBe(0)
      })
    })

    // ---- 8. keyboard only ------------------------------------------------------------------------------

    browserTest("works by keyboard alone: Tab to the launcher, Enter, type, Enter submits, Escape closes", async (server, { widgetKey, key, projectId }) => {
      const word = uniqueWord()
      const values: Record<string, string> = {
        "field-name": "Kay Board",
        "field-email": "kay@example.com",
        "field-subject": `Keyboard ${word}`,
        "field-message": "Typed without a mouse."
      }
      await onPage(
        {
          scriptFrom: server.baseUrl,
          config: config(server, widgetKey),
          body: `<a id="before" href="#top">A link of the host page</a><p>No other focusable element.</p>`
        },
        async (session) => {
          const { page } = session
          const { keyboard } = page
          await widget(page, "launcher").waitFor({ state: "visible" })
          await keyboard.press("Tab")
          expect((await focusOf(page)).pageId).toBe("before")
          await keyboard.press("Tab")
          expect(await focusOf(page)).toMatchObject({ pageId: "support-widget-host", widgetTestId: "launcher" })

          // open, and Escape at once: closed, focus back on the launcher
          await keyboard.press("Enter")
          await widget(page, "panel").waitFor({ state: "visible" })
          expect((await focusOf(page)).inPanel, "focus moves into the panel").toBe(true)
          await keyboard.press("Escape")
          await widget(page, "panel").waitFor({ state: "hidden" })
          expect(await focusOf(page)).toMatchObject({ pageId: "support-widget-host", widgetTestId: "launcher" })

          // open again and fill the form field by field with Tab
          await keyboard.press("Enter")
          await widget(page, "panel").waitFor({ state: "visible" })
          const order: Array<string> = []
          for (let step = 0; step < 20; step++) {
            const focused = (await focusOf(page)).widgetTestId ?? "(none)"
            order.push(focused)
            if (focused === "submit") break
            const value = values[focused]
            if (value !== undefined) await keyboard.type(value)
            await keyboard.press("Tab")
          }
          const fields = order.filter((id) => id.startsWith("field-") || id === "submit")
          expect(fields, `Tab order: ${order.join(" → ")}`).toEqual([
            "field-name",
            "field-email",
            "field-subject",
            "field-message",
            "submit"
          ])
          expect(await formValues(page, ["name", "email", "subject", "message"])).toEqual({
            name: values["field-name"],
            email: values["field-email"],
            subject: values["field-subject"],
            message: values["field-message"]
          })

          // back to the subject with Shift+Tab; Enter there submits
          for (let step = 0; step < 10 && (await focusOf(page)).widgetTestId !== "field-subject"; step++) {
            await keyboard.press("Shift+Tab")
          }
          expect((await focusOf(page)).widgetTestId).toBe("field-subject")
          await keyboard.press("Enter")
          const number = await shownTicketNumber(session)

          // after sending, focus is still in the panel, so Escape still closes it
          expect((await focusOf(page)).inPanel, "focus stays in the panel after sending").toBe(true)
          await keyboard.press("Escape")
          await widget(page, "panel").waitFor({ state: "hidden" })
          expect(await focusOf(page)).toMatchObject({ pageId: "support-widget-host", widgetTestId: "launcher" })

          const found = await ticketsMatching(server, key, word)
          expect(found.total).toBe(1)
          expect(found.results[0]!.ticket_number).toBe(number)
          expect(await adminTicket(server, projectId, found.results[0]!.id)).toMatchObject({
            source: "widget",
            sender_name: "Kay Board",
            sender_email: "kay@example.com"
          })
        }
      )
    })

    // ---- 8b. focus ring, validation, kept contact details and confirmation, by keyboard ----------------

    const focusPages: ReadonlyArray<[string, string, string | undefined]> = [
      ["white", "#ffffff", undefined],
      ["black", "#000000", undefined],
      ["white", "#ffffff", "#fde047"],
      ["black", "#000000", "#fde047"]
    ]
    for (const [pageName, background, colour] of focusPages) {
      const shot = `widget-focus-${colour === undefined ? "" : "yellow-"}${pageName}.png`
      browserTest(`the launcher's focus ring after Escape is visible on a ${pageName} page (${colour ?? "default colour"}): 3:1 at least`, async (server, { widgetKey }) => {
        const scale = 2
        await onPage(
          {
            scriptFrom: server.baseUrl,
            config: config(server, widgetKey, colour === undefined ? {} : { color: colour }),
            head: `<style>html, body { background: ${background}; color: ${background === "#000000" ? "#fff" : "#000"} }</style>`
          },
          async ({ page }) => {
            const launcher = widget(page, "launcher")
            await launcher.waitFor({ state: "visible" })
            const box = (await launcher.boundingBox())!
            const margin = 24
            const clip = { x: box.x - margin, y: box.y - margin, width: box.width + 2 * margin, height: box.height + 2 * margin }
            const unfocused = await page.screenshot({ clip })

            await openPanel(page)
            await page.mouse.move(0, 0)
            await page.keyboard.press("Escape")
            await widget(page, "panel").waitFor({ state: "hidden" })
            expect(await focusOf(page)).toMatchObject({ pageId: "support-widget-host", widgetTestId: "launcher" })
            expect(await launcher.evaluate((el) => el.matches(":focus-visible")), "the launcher shows keyboard focus").toBe(true)

            // some band of the indicator contrasts with the page around it
            const pageColour = parseCssColour(await page.evaluate(() => getComputedStyle(document.body).backgroundColor))
            const rings = await ringsOf(launcher)
            const described = rings.map((r) => `${r.source} ${r.colour} ${r.width}px: ${contrast(parseCssColour(r.colour), pageColour).toFixed(2)}:1`)
            const visible = rings.filter((r) => {
              const c = parseCssColour(r.colour)
              return c[3] === 1 && r.width >= 2 && contrast(c, pageColour) >= 3
            })
            expect(visible.length, `rings on ${background}: ${described.join(" | ") || "none"}`).toBeGreaterThan(0)

            // and on screen: the pixels that change by 3:1 cover a 2 px band around the launcher
            const focused = await page.screenshot({ clip })
            mkdirSync(artifactsDir, { recursive: true })
            writeFileSync(join(artifactsDir, shot), focused)
            const area = await changedArea(page, unfocused, focused, scale)
            expect(area, `CSS px² changed by 3:1 (${described.join(" | ")})`).toBeGreaterThanOrEqual(2 * Math.PI * box.width)
          },
          { deviceScaleFactor: scale }
        )
      })
    }

    browserTest("an empty submit shows one message per required field, the widget's own: no browser bubble, aria-invalid, focus on the first", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
        const { page } = session
        await openPanel(page)
        // the browser's bubble comes with an `invalid` event that nobody cancelled
        await page.evaluate(() => {
          const w = window as any
          w.__bubbles = 0
          document.getElementById("support-widget-host")!.shadowRoot!.addEventListener("invalid", (event) => {
            setTimeout(() => event.defaultPrevented || w.__bubbles++)
          }, true)
        })
        expect((await focusOf(page)).widgetTestId).toBe("field-name")
        await page.keyboard.press("Enter")

        const form = widget(page, "panel").locator("form").first()
        expect(await form.evaluate((el) => (el as HTMLFormElement).noValidate)).toBe(true)
        expect(await page.evaluate(() => (window as any).__bubbles), "the browser's own validation bubbles").toBe(0)
        await expect.poll(async () => (await focusOf(page)).widgetTestId, { message: "focus on the first invalid field" })
          .toBe("field-email")

        /** The field's state: aria-invalid, and the text of what its aria-describedby names. */
        const stateOf = (name: string) =>
          field(page, name).evaluate((el) => {
            const root = el.getRootNode() as ShadowRoot
            const ids = (el.getAttribute("aria-describedby") ?? "").split(/\s+/).filter(Boolean)
            return {
              invalid: el.getAttribute("aria-invalid"),
              described: ids.map((id) => root.getElementById(id)?.textContent ?? `(no #${id})`).join(" "),
              type: el.getAttribute("type"),
              required: el.hasAttribute("required") || el.getAttribute("aria-required") === "true"
            }
          })
        expect(await stateOf("name")).toMatchObject({ invalid: null, described: "", required: false })
        expect(await stateOf("email")).toEqual({ invalid: "true", described: "Email is required", type: "email", required: true })
        expect(await stateOf("subject")).toMatchObject({ invalid: "true", described: "Subject is required", required: true })
        expect(await stateOf("message")).toMatchObject({ invalid: "true", described: "Message is required", required: true })
        // one message per problem: each said once in the whole widget, none in the shared error line
        const text = (await page.locator("#support-widget-host").evaluate((host) => host.shadowRoot!.textContent))!
        for (const message of ["Email is required", "Subject is required", "Message is required"]) {
          expect(text.split(message).length - 1, message).toBe(1)
        }
        expect(await widget(page, "error").textContent()).toBe("")
        for (const name of ["email", "subject", "message"]) expect(await widget(page, `error-${name}`).isVisible()).toBe(true)

        // what a screen reader is told on the focused field
        const cdp = await page.context().newCDPSession(page)
        const { nodes } = await cdp.send("Accessibility.getFullAXTree")
        const email = nodes.find((n: any) => n.role?.value === "textbox" && n.name?.value === "Email") as any
        const property = (name: string) => email?.properties?.find((p: any) => p.name === name)?.value?.value
        expect({ invalid: property("invalid"), required: property("required"), description: email?.description?.value })
          .toEqual({ invalid: "true", required: true, description: "Email is required" })
        mkdirSync(artifactsDir, { recursive: true })
        await page.screenshot({ path: join(artifactsDir, "widget-validation.png") })

        // a malformed address: one message, which changes with the problem; the fixed fields lose theirs
        await fillForm(page, { email: "kim@", subject: `Checked ${word}`, message: "Fields in order" })
        expect(await stateOf("subject")).toMatchObject({ invalid: null, described: "" })
        await widget(page, "submit").click()
        await expect.poll(() => stateOf("email")).toMatchObject({ invalid: "true", described: "Email must be a valid email address" })
        expect((await focusOf(page)).widgetTestId).toBe("field-email")
        expect(await stateOf("message")).toMatchObject({ invalid: null, described: "" })
        expect(await page.evaluate(() => (window as any).__bubbles)).toBe(0)
        expect(session.requests.filter(isTicketPost)).toEqual([])

        await field(page, "email").fill("kim@example.com")
        expect(await stateOf("email")).toMatchObject({ invalid: null, described: "" })
        await widget(page, "submit").click()
        await shownTicketNumber(session)
      })
      expect((await ticketsMatching(server, key, word)).total).toBe(1)
    })

    browserTest("after filing, the name and email stay in the form and come back on the next visit; the ticket's fields are cleared", async (server, { widgetKey }) => {
      const pageUrl = suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey, { fields: { priority: true } }) }))
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(pageUrl)
        await openPanel(page)
        await fillForm(page, { name: "Mo Return", email: "mo@example.com", subject: "First question", message: "One" })
        await field(page, "priority").selectOption("p2_high")
        await widget(page, "submit").click()
        await shownTicketNumber(session)
        expect(await formValues(page, ["name", "email", "subject", "message", "priority"])).toEqual({
          name: "Mo Return",
          email: "mo@example.com",
          subject: "",
          message: "",
          priority: "p3_medium"
        })

        await page.reload()
        await openPanel(page)
        expect(await formValues(page, ["name", "email", "subject", "message"])).toEqual({
          name: "Mo Return",
          email: "mo@example.com",
          subject: "",
          message: ""
        })
        // the next ticket goes with what is in the fields now
        await field(page, "name").fill("Mo R.")
        await fillForm(page, { subject: "Second question", message: "Two" })
        await widget(page, "submit").click()
        await shownTicketNumber(session)
        await page.reload()
        await openPanel(page)
        expect(await formValues(page, ["name", "email"])).toEqual({ name: "Mo R.", email: "mo@example.com" })
        expect(session.pageErrors).toEqual([])
      })
    })

    browserTest("after filing, the new conversation opens: focus on its heading with the number, the opening message as the visitor's", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      const opening = `Where does it go? ${word}`
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
        const { page } = session
        await openPanel(page)
        await fillForm(page, { name: "Cora", email: "cora@example.com", subject: `Confirmed ${word}`, message: opening })
        await widget(page, "submit").focus()
        await page.keyboard.press("Enter")
        await expect.poll(async () => (await focusOf(page)).widgetTestId, { timeout: 20_000 }).toBe("conversation-title")

        const title = widget(page, "conversation-title")
        const number = (await ticketsMatching(server, key, word)).results[0]!.ticket_number
        expect(await title.textContent()).toBe(`#${number} Confirmed ${word}`)
        expect(await title.evaluate((el) => el.matches(":focus-visible")), "a keyboard user sees where focus is").toBe(true)
        // neither the emptied form nor a bare confirmation: the conversation, with the message just sent
        expect(await widget(page, "submit").isHidden()).toBe(true)
        expect(await widget(page, "confirmation").textContent()).toBe("")
        expect(await widget(page, "message").evaluateAll((items) =>
          items.map((li) => [li.getAttribute("data-author"), li.querySelector("div")!.textContent])
        )).toEqual([["you", opening]])
        const text = (await page.locator("#support-widget-host").evaluate((host) => host.shadowRoot!.textContent))!
        expect(text.split(`#${number} `).length - 1, "the number is said once").toBe(1)
        mkdirSync(artifactsDir, { recursive: true })
        await page.screenshot({ path: join(artifactsDir, "widget-filed.png") })

        // Escape from there still closes the panel, and focus goes back to the launcher
        await page.keyboard.press("Escape")
        await widget(page, "panel").waitFor({ state: "hidden" })
        expect((await focusOf(page)).widgetTestId).toBe("launcher")
      })
    })

    // ---- 9. network failure ----------------------------------------------------------------------------

    browserTest("network failure keeps the input and offers retry; retry files the ticket", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
        const { page } = session
        await page.route("**/v1/tickets", (route) => route.abort("internetdisconnected"))
        await openPanel(page)
        const typed = { name: "Nora", email: "nora@example.com", subject: `Offline ${word}`, message: "Sent while offline" }
        await fillForm(page, typed)
        await widget(page, "submit").click()
        await widget(page, "retry").waitFor({ state: "visible" })
        expect(await widget(page, "error").textContent()).toMatch(/\w/)
        expect(await formValues(page, ["name", "email", "subject", "message"])).toEqual(typed)
        expect((await ticketsMatching(server, key, word)).total).toBe(0)

        await page.unroute("**/v1/tickets")
        await widget(page, "retry").click()
        const number = await shownTicketNumber(session)
        expect(await widget(page, "error").textContent()).toBe("")
        expect(await widget(page, "retry").isHidden()).toBe(true)
        const found = await ticketsMatching(server, key, word)
        expect(found.total).toBe(1)
        expect(found.results[0]!.ticket_number).toBe(number)
      })
    })

    browserTest("a retry after a lost response reuses the Idempotency-Key: still one ticket", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
        const { page } = session
        // the request reaches the service (which files the ticket) but the answer never arrives
        let reached = 0
        await page.route("**/v1/tickets", async (route) => {
          await route.fetch()
          reached++
          await route.abort("connectionreset")
        })
        await openPanel(page)
        await fillForm(page, { name: "Lou", email: "lou@example.com", subject: `Lost answer ${word}`, message: "Hello?" })
        await widget(page, "submit").click()
        await widget(page, "retry").waitFor({ state: "visible" })
        expect(reached).toBe(1)
        expect((await ticketsMatching(server, key, word)).total).toBe(1)

        await page.unroute("**/v1/tickets")
        await widget(page, "retry").click()
        await shownTicketNumber(session)
        const posts = session.requests.filter(isTicketPost)
        expect(posts.length).toBe(2)
        const keys = await Promise.all(posts.map(async (p) => (await p.allHeaders())["idempotency-key"]))
        expect(keys[0]).toBe(keys[1])
        expect((await ticketsMatching(server, key, word)).total).toBe(1)
      })
    })

    // ---- 10. 429 ---------------------------------------------------------------------------------------

    browserTest("a 429 is retried after Retry-After: one ticket, number shown", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
        const { page } = session
        let attempts = 0
        await page.route("**/v1/tickets", async (route) => {
          if (route.request().method() !== "POST") return route.continue()
          attempts++
          if (attempts > 1) return route.continue()
          return route.fulfill({
            status: 429,
            headers: {
              "content-type": "application/json; charset=utf-8",
              "retry-after": "1",
              "access-control-allow-origin": "*",
              "access-control-expose-headers": "Retry-After"
            },
            body: JSON.stringify({ error: { code: "RATE_LIMITED", message: "rate limit exceeded; retry in 1 second" } })
          })
        })
        await openPanel(page)
        await fillForm(page, { name: "Ray", email: "ray@example.com", subject: `Busy ${word}`, message: "Busy service" })
        await widget(page, "submit").click()
        const number = await shownTicketNumber(session)
        await idle(page, session.requests, isTicketPost)
        expect(attempts).toBe(2)
        const found = await ticketsMatching(server, key, word)
        expect(found.total).toBe(1)
        expect(found.results[0]!.ticket_number).toBe(number)
        const keys = new Set(
          await Promise.all(session.requests.filter(isTicketPost).map(async (p) => (await p.allHeaders())["idempotency-key"]))
        )
        expect(keys.size, "the retry carries the same Idempotency-Key").toBe(1)
      })
    })

    // ---- 11. the script's HTTP contract ---------------------------------------------------------------

    it.effect("GET /widget.js: JavaScript, ETag and 304, CORS open, at most 15 KB gzipped", () =>
      Effect.flatMap(TestServer, (server) =>
        Effect.promise(async () => {
          const first = await fetch(`${server.baseUrl}/widget.js`, { headers: { origin: "https://customer.example" } })
          const text = await first.text()
          expect(first.status).toBe(200)
          expect(first.headers.get("content-type")).toMatch(/^text\/javascript/)
          expect(first.headers.get("access-control-allow-origin")).toBe("*")
          expect(first.headers.get("cache-control")).toMatch(/\S/)
          const etag = first.headers.get("etag")
          expect(etag).toMatch(/\S/)
          expect(first.headers.get("authorization")).toBeNull()

          const again = await fetch(`${server.baseUrl}/widget.js`, { headers: { "if-none-match": etag! } })
          expect(again.status).toBe(304)
          expect(again.headers.get("etag")).toBe(etag)
          expect(await again.text()).toBe("")

          const raw = Buffer.byteLength(text)
          const gzipped = gzipSync(Buffer.from(text), { level: 9 }).length
          console.log(`widget.js: ${raw} bytes, ${gzipped} bytes gzipped (level 9)`)
          expect(gzipped).toBeLessThanOrEqual(15 * 1024)
        })))

    it.effect("GET /widget.js: If-None-Match is compared weakly and may list several tags (RFC 9110 13.1.2)", () =>
      Effect.flatMap(TestServer, (server) =>
        Effect.promise(async () => {
          const etag = (await fetch(`${server.baseUrl}/widget.js`)).headers.get("etag")!
          // what a browser sends back after a compressing proxy (nginx gzip) weakened the tag, a list, and *
          const statuses: Record<string, number> = {}
          for (const ifNoneMatch of [etag, `W/${etag}`, `"something-else", ${etag}`, "*"]) {
            const response = await fetch(`${server.baseUrl}/widget.js`, { headers: { "if-none-match": ifNoneMatch } })
            statuses[ifNoneMatch] = response.status
          }
          expect(statuses).toEqual({ [etag]: 304, [`W/${etag}`]: 304, [`"something-else", ${etag}`]: 304, "*": 304 })
        })))

    // ---- 12. the demo page ------------------------------------------------------------------------------

    it.effect("the demo page at / shows the widget with a widget-scoped key", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        // what `npm start` does on a new embedded database
        yield* seedDemo().pipe(Effect.provide(NodeServices.layer), Effect.orDie)
        yield* Effect.promise(() =>
          withPage(suite.browser, {}, async (session) => {
            const { page } = session
            const response = await page.goto(`${server.baseUrl}/`)
            expect(response!.status()).toBe(200)
            await widget(page, "launcher").waitFor({ state: "visible" })
            const source = await response!.text()
            // the key the page configures (the page also shows a sample snippet with a placeholder key)
            const demoKey = await page.evaluate(() => (window as any).SupportWidgetConfig.projectKey as string)
            expect(source).toContain(JSON.stringify(demoKey))
            expect(demoKey).toMatch(/^tf_/)
            // its icon is an SVG that the browser can draw
            const icon = await page.evaluate(async () => {
              const link = document.querySelector<HTMLLinkElement>("link[rel=icon]")!
              const image = new Image()
              image.src = link.href
              await image.decode()
              return { type: link.type, width: image.naturalWidth }
            })
            expect(icon.type).toBe("image/svg+xml")
            expect(icon.width).toBeGreaterThan(0)

            const [, filed] = await call(server, demoKey, (api) =>
              api.tickets.create({
                payload: { subject: "From the demo key", body: "Hello" },
                headers: {},
                responseMode: "decoded-and-response"
              }))
            expect(filed.status).toBe(202)
            const refused = await call(server, demoKey, (api) => Effect.flip(api.search.search({ query: { q: "password" } })))
            expect(refused._tag).toBe("Forbidden")
            expect(refused).toHaveProperty("status", 403)

            // and the widget on it finds the demo help centre
            await openPanel(page)
            await field(page, "subject").pressSequentially("reset password", { delay: 30 })
            await expect.poll(() => widget(page, "articles").textContent(), { timeout: 10_000 })
              .toContain("How do I reset my password?")
            expect(session.pageErrors).toEqual([])
          })
        )
      }))

    // ---- 13. screenshots --------------------------------------------------------------------------------

    browserTest("screenshots of the open panel at 1280×800 and 360×740 (fits the phone's width)", async (server, { widgetKey }) => {
      mkdirSync(artifactsDir, { recursive: true })
      const shots: ReadonlyArray<[string, { width: number; height: number }]> = [
        ["widget-desktop.png", { width: 1280, height: 800 }],
        ["widget-phone.png", { width: 360, height: 740 }]
      ]
      for (const [file, viewport] of shots) {
        await onPage(
          { scriptFrom: server.baseUrl, config: config(server, widgetKey, { fields: { priority: true } }) },
          async ({ page }) => {
            await openPanel(page)
            const panel = (await widget(page, "panel").boundingBox())!
            expect(panel.x, `${file}: panel left edge`).toBeGreaterThanOrEqual(0)
            expect(panel.x + panel.width, `${file}: panel right edge`).toBeLessThanOrEqual(viewport.width)
            expect(panel.y, `${file}: panel top edge`).toBeGreaterThanOrEqual(0)
            // every control can be reached and is not clipped sideways
            for (const id of ["field-name", "field-email", "field-subject", "field-message", "submit", "close"]) {
              const control = widget(page, id)
              await control.scrollIntoViewIfNeeded()
              const box = (await control.boundingBox())!
              expect(box.x, `${file}: ${id}`).toBeGreaterThanOrEqual(0)
              expect(box.x + box.width, `${file}: ${id}`).toBeLessThanOrEqual(viewport.width)
            }
            await widget(page, "greeting").scrollIntoViewIfNeeded()
            const path = join(artifactsDir, file)
            await page.screenshot({ path })
            expect(statSync(path).size).toBeGreaterThan(1000)
          },
          { viewport }
        )
      }
    })
  })

  // ---- 14. the visitor's requests and articles, on every database ------------------------------------

  describe.each(databaseKinds)("the visitor's requests and articles on %s", (kind) => {
    layer(testServer(kind, {}, undefined), { excludeTestServices: true })((it) => {
      const browserTest = browserTestOf(it)

      const isTicketRead = (ticketId: string) => (request: Request) =>
        request.method() === "GET" && new URL(request.url()).pathname === `/v1/tickets/${ticketId}`

      const isTicketStream = (ticketId: string) => (request: Request) =>
        request.method() === "GET" && new URL(request.url()).pathname === `/v1/tickets/${ticketId}/events`

      /** The messages on screen as [side, text] pairs, oldest first. */
      const shownMessages = (session: Session) =>
        widget(session.page, "message").evaluateAll((items) =>
          items.map((li) => [li.getAttribute("data-author"), li.querySelector("div")!.textContent])
        )

      browserTest("the conversation: opening message first, an agent's reply over the stream with the agent's name, the answer reopens the ticket, a reload finds it", async (server, { widgetKey, key, projectId }) => {
        const word = uniqueWord()
        const subject = `Export stuck ${word}`
        const opening = `The export never ends ${word}`
        const agentReply = `Agent says: try again now ${word}`
        const internalNote = `Internal: customer is on the old plan ${word}`
        const answer = `Visitor: it fails again ${word}`
        const agentEmail = `ada-${word}@support.example`
        await Effect.runPromise(createAgent(server, projectId, agentEmail, "Ada Lovelace"))
        const pageUrl = suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }))
        await withPage(suite.browser, {}, async (session) => {
          const { page } = session
          await page.goto(pageUrl)
          await openPanel(page)
          // nothing filed yet: no entry
          expect(await widget(page, "requests-entry").isHidden()).toBe(true)
          await fillForm(page, { name: "Vic", email: "Vic@Example.com", subject, message: opening })
          await widget(page, "submit").click()
          const number = await shownTicketNumber(session)
          const [found] = (await ticketsMatching(server, key, word)).results
          const ticketId = found!.id

          // the new conversation: the opening message, as the visitor's, and where the answer will come
          expect((await focusOf(page)).widgetTestId, "focus moves into the conversation").toBe("conversation-title")
          expect(await widget(page, "conversation-title").textContent()).toBe(`#${number} ${subject}`)
          await expect.poll(() => widget(page, "conversation-status").textContent()).toBe("Status: Open")
          expect(await shownMessages(session)).toEqual([["you", opening]])
          await widget(page, "no-messages").waitFor({ state: "visible" })
          // the ticket's stream is open, and carries the ticket's token
          await expect.poll(() => session.requests.filter(isTicketStream(ticketId)).length).toBeGreaterThan(0)
          const stream = session.requests.find(isTicketStream(ticketId))!
          expect((await stream.allHeaders())["x-ticket-token"]).toMatch(/^tat_/)
          await idle(page, session.requests, isTicketRead(ticketId))
          const readsBefore = session.requests.filter(isTicketRead(ticketId)).length

          // an agent answers through the operator API, and writes an internal note
          await call(server, adminToken, (api) =>
            api.admin.addAgentMessage({ params: { pid: projectId, id: ticketId }, payload: { body: internalNote, internal: true } }))
          await call(server, adminToken, (api) =>
            api.admin.addAgentMessage({ params: { pid: projectId, id: ticketId }, payload: { body: agentReply, author_email: agentEmail } }))
          // over the stream: well within the 5 s a poll would take, and without a read of the ticket
          await expect.poll(() => shownMessages(session), { timeout: 4_000 }).toEqual([["you", opening], ["support", agentReply]])
          expect(session.requests.filter(isTicketRead(ticketId)).length, "reads of the ticket for the reply").toBe(readsBefore)
          const support = widget(page, "message").nth(1)
          expect(await support.locator("b").textContent(), "support's message carries the agent's name").toBe("Ada Lovelace")
          expect(await widget(page, "conversation-live").getAttribute("aria-live")).toBe("polite")
          expect(await widget(page, "conversation-live").textContent()).toBe("New reply from Ada Lovelace")
          expect(await widget(page, "no-messages").isHidden()).toBe(true)
          // a relative time on screen, the full time for screen readers, the instant in datetime
          const time = support.locator("time")
          expect(await time.locator("[aria-hidden=true]").textContent()).toMatch(/^(just now|\d+ min ago)$/)
          expect(Date.parse((await time.getAttribute("datetime"))!)).not.toBeNaN()
          expect(await time.locator(".sr").textContent()).toMatch(/\d{1,2}:\d{2}/)

          // resolved by the agent; the visitor's answer reopens it
          await call(server, adminToken, (api) =>
            api.admin.updateTicket({ params: { pid: projectId, id: ticketId }, payload: { status: "resolved" } }))
          await expect.poll(() => widget(page, "conversation-status").textContent(), { timeout: 20_000 })
            .toBe("Status: Resolved")
          // an empty reply: the widget's one message, not the browser's bubble besides
          await widget(page, "reply-send").click()
          expect(await widget(page, "reply").evaluate((el) => (el as HTMLTextAreaElement).form!.noValidate)).toBe(true)
          expect(await widget(page, "reply-error").textContent()).toBe("Your reply is required")
          expect(await widget(page, "reply").getAttribute("aria-invalid")).toBe("true")
          expect((await focusOf(page)).widgetTestId).toBe("reply")
          await widget(page, "reply").fill(answer)
          await widget(page, "reply-send").click()
          await expect.poll(() => shownMessages(session), { timeout: 20_000 })
            .toEqual([["you", opening], ["support", agentReply], ["you", answer]])
          await expect.poll(() => widget(page, "conversation-status").textContent()).toBe("Status: Open")
          expect(await widget(page, "reply").inputValue(), "the box is emptied after sending").toBe("")
          expect(await widget(page, "reply").getAttribute("aria-invalid")).toBeNull()
          expect(await widget(page, "reply-error").textContent(), "no stray status line").toBe("")
          const admin = await adminTicket(server, projectId, ticketId)
          expect(admin.status).toBe("open")
          expect(admin.messages.map((m) => [m.author_type, m.body])).toEqual([
            ["agent", internalNote],
            ["agent", agentReply],
            ["contact", answer]
          ])
          const replyPost = session.requests.find((r) => r.method() === "POST" && r.url().endsWith(`/v1/tickets/${ticketId}/messages`))!
          expect(replyPost.postDataJSON(), "the token, not the email, opens the ticket").toEqual({ body: answer })
          const replyHeaders = await replyPost.allHeaders()
          expect(replyHeaders["idempotency-key"]).toMatch(/\S/)
          expect(replyHeaders["x-ticket-token"]).toMatch(/^tat_/)
          expect(await widget(page, "messages").textContent()).not.toContain(internalNote)

          // closed, it reads nothing while nobody looks, and keeps the one stream for the badge
          await page.keyboard.press("Escape")
          await widget(page, "panel").waitFor({ state: "hidden" })
          expect(await focusOf(page)).toMatchObject({ widgetTestId: "launcher" })
          await idle(page, session.requests, isTicketRead(ticketId))
          const readsWhenClosed = session.requests.filter(isTicketRead(ticketId)).length
          const streamsWhenClosed = session.requests.filter(isTicketStream(ticketId)).length
          await page.waitForTimeout(6_000)
          expect(session.requests.filter(isTicketRead(ticketId)).length, "reads while the panel is closed").toBe(readsWhenClosed)
          expect(session.requests.filter(isTicketStream(ticketId)).length, "the stream is not opened again and again").toBe(streamsWhenClosed)

          // opened again, the conversation is where the visitor left it; back goes to the list, then the form
          await widget(page, "launcher").click()
          expect((await focusOf(page)).widgetTestId).toBe("conversation-title")
          await widget(page, "conversation-back").click()
          await expect.poll(async () => (await focusOf(page)).widgetTestId).toBe("request")
          await widget(page, "requests-back").click()
          expect((await focusOf(page)).widgetTestId).toBe("requests-entry")
          expect(await widget(page, "requests-entry").textContent()).toBe("Your requests (1)")

          // the page is loaded again: the visitor still finds the ticket and its whole conversation
          await page.reload()
          await openPanel(page)
          await widget(page, "requests-entry").click()
          expect(await widget(page, "request").textContent()).toContain(`#${number} ${subject}`)
          await expect.poll(() => widget(page, "request-status").textContent()).toBe("Open")
          await widget(page, "request").click()
          await expect.poll(() => shownMessages(session), { timeout: 20_000 })
            .toEqual([["you", opening], ["support", agentReply], ["you", answer]])
          expect(await widget(page, "message").nth(1).locator("b").textContent()).toBe("Ada Lovelace")
          expect(await widget(page, "messages").textContent()).not.toContain(internalNote)
          expect(session.pageErrors).toEqual([])
          expect(session.consoleErrors).toEqual([])
        })
      })

      browserTest("the requests and the conversation work by keyboard alone: Tab reaches each control, Enter acts, focus comes back", async (server, { widgetKey, key }) => {
        const word = uniqueWord()
        const subject = `Keys only ${word}`
        const answer = `Typed reply ${word}`
        const pageUrl = suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }))
        await withPage(suite.browser, {}, async (session) => {
          const { page } = session
          const { keyboard } = page
          await page.goto(pageUrl)
          await openPanel(page)
          await fillForm(page, { name: "Kim", email: "kim@example.com", subject, message: "Filed, then followed by keyboard." })
          await widget(page, "submit").click()
          const number = await shownTicketNumber(session)
          const ticketId = (await ticketsMatching(server, key, word)).results[0]!.id

          /** Presses `key` until the widget's focus is on `testId`, and says what it passed. */
          const tabTo = async (testId: string, key = "Tab") => {
            const passed: Array<string> = []
            for (let step = 0; step < 15; step++) {
              const focused = (await focusOf(page)).widgetTestId ?? "(none)"
              passed.push(focused)
              if (focused === testId) return passed
              await keyboard.press(key)
            }
            throw new Error(`${key} never reached ${testId}: ${passed.join(" → ")}`)
          }

          // filed: the new conversation is open, focus on its heading
          expect((await focusOf(page)).widgetTestId, "focus moves into the conversation").toBe("conversation-title")
          expect(await widget(page, "conversation-title").textContent()).toBe(`#${number} ${subject}`)

          // forward from the heading: the reply box, then its button
          const toSend = await tabTo("reply-send")
          expect(toSend.filter((id) => id.startsWith("reply")), `Tab order: ${toSend.join(" → ")}`).toEqual(["reply", "reply-send"])
          await tabTo("reply", "Shift+Tab")
          await keyboard.type(answer)
          // Enter in the box is a new line, not a send
          await keyboard.press("Enter")
          await keyboard.type("Second line.")
          expect(session.requests.filter((r) => r.method() === "POST" && r.url().endsWith(`/v1/tickets/${ticketId}/messages`)))
            .toEqual([])
          await keyboard.press("Tab")
          expect((await focusOf(page)).widgetTestId).toBe("reply-send")
          await keyboard.press("Enter")
          await expect.poll(() => widget(page, "messages").textContent(), { timeout: 20_000 }).toContain(answer)
          expect((await focusOf(page)).inPanel, "focus stays in the panel after sending").toBe(true)

          // back, by keyboard, to the request it came from, then to the form
          await tabTo("conversation-back", "Shift+Tab")
          await keyboard.press("Enter")
          await expect.poll(async () => (await focusOf(page)).widgetTestId).toBe("request")
          await tabTo("requests-back", "Shift+Tab")
          await keyboard.press("Enter")
          expect((await focusOf(page)).widgetTestId).toBe("requests-entry")

          // and into the list again: nothing outside it comes between its heading and its first request
          await keyboard.press("Enter")
          expect((await focusOf(page)).widgetTestId, "focus moves into the list").toBe("requests-title")
          const toRequest = await tabTo("request")
          expect(toRequest).toEqual(["requests-title", "request"])

          // Escape from a deeper view closes the panel and gives focus to the launcher
          await keyboard.press("Enter")
          expect((await focusOf(page)).widgetTestId).toBe("conversation-title")
          await keyboard.press("Escape")
          await widget(page, "panel").waitFor({ state: "hidden" })
          expect(await focusOf(page)).toMatchObject({ widgetTestId: "launcher" })
          expect(session.pageErrors).toEqual([])
        })
      })

      browserTest("a hostile article body renders inert when a suggestion opens it; back keeps the form", async (server, { widgetKey, projectId }) => {
        const word = uniqueWord()
        const title = `Reset password ${word}`
        const body = [
          "# Safe heading",
          "",
          "Hello <script>window.__articleXss = 1</script> world, **bold**, *soft* and `code <b>x</b>`.",
          "",
          `<img src=x onerror="window.__articleXss = 2">`,
          "",
          "[click me](javascript:window.__articleXss=3) and [tabbed](java\tscript:alert(1)) and [data](data:text/html,<script>alert(1)</script>)",
          "",
          `<a href="javascript:window.__articleXss=4">raw link</a> <iframe src="javascript:alert(5)"></iframe>`,
          "",
          "- [the docs](https://example.com/docs)",
          "- [mail us](mailto:help@example.com)",
          "",
          "```",
          "<svg onload=alert(6)>",
          "```"
        ].join("\n")
        const [, created] = await createArticle(server, projectId, { title, body, category: "account", published: true })
        expect(created.status).toBe(201)
        await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
          const { page } = session
          const dialogs: Array<string> = []
          page.on("dialog", (dialog) => {
            dialogs.push(dialog.message())
            void dialog.dismiss()
          })
          await openPanel(page)
          await fillForm(page, { name: "Rita", email: "rita@example.com", message: "Half-typed message" })
          await field(page, "subject").pressSequentially(`reset password ${word}`, { delay: 20 })
          const open = widget(page, "article-open")
          await open.waitFor({ state: "visible", timeout: 10_000 })
          expect(await open.evaluate((el) => el.tagName.toLowerCase())).toBe("button")
          await open.focus()
          await page.keyboard.press("Enter")
          await expect.poll(() => widget(page, "article-title").textContent()).toBe(title)
          expect((await focusOf(page)).widgetTestId, "focus moves into the article").toBe("article-title")
          const articleBody = widget(page, "article-body")
          await expect.poll(() => articleBody.textContent()).toContain("Safe heading")

          expect(await page.evaluate(() => (window as any).__articleXss)).toBeUndefined()
          expect(dialogs).toEqual([])
          const inShadow = await page.evaluate(() => {
            const root = document.getElementById("support-widget-host")!.shadowRoot!
            const all = [...root.querySelectorAll("*")]
            return {
              handlers: all.flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName} ${a.name}`)),
              // the launcher's icon is the widget's own constant <svg>; none may come from the article
              dangerous: all.filter((el) =>
                /^(script|iframe|img|object|embed)$/i.test(el.tagName) ||
                (el.tagName.toLowerCase() === "svg" && el.closest("[data-testid=article]"))
              ).map((el) => el.tagName),
              hrefs: [...root.querySelectorAll("[href]")].map((el) => el.getAttribute("href")!)
            }
          })
          expect(inShadow.handlers).toEqual([])
          expect(inShadow.dangerous).toEqual([])
          expect(inShadow.hrefs.filter((href) => !/^(https?:|mailto:)/i.test(href.trim()))).toEqual([])
          expect(inShadow.hrefs).toEqual(["https://example.com/docs", "mailto:help@example.com"])
          // the allowed Markdown is rendered, and the markup shows as the text it is
          const text = (await articleBody.textContent())!
          expect(text).toContain("<script>window.__articleXss = 1</script>")
          expect(text).toContain("click me")
          expect(await articleBody.locator("h4").textContent()).toBe("Safe heading")
          expect(await articleBody.locator("strong").textContent()).toBe("bold")
          expect(await articleBody.locator("em").textContent()).toBe("soft")
          expect(await articleBody.locator("p code").textContent()).toBe("code <b>x</b>")
          expect(await articleBody.locator("pre code").textContent()).toBe("<svg onload=alert(6)>")
          expect(await articleBody.locator("li").count()).toBe(2)
          const link = articleBody.locator("a").first()
          expect(await link.getAttribute("target")).toBe("_blank")
          expect(await link.getAttribute("rel")).toBe("noopener noreferrer")

          // back to the form, as the visitor left it, on the suggestion
          await widget(page, "article-back").click()
          expect(await formValues(page, ["name", "email", "subject", "message"])).toEqual({
            name: "Rita",
            email: "rita@example.com",
            subject: `reset password ${word}`,
            message: "Half-typed message"
          })
          expect((await focusOf(page)).widgetTestId).toBe("article-open")
          expect(await page.evaluate(() => (window as any).__articleXss)).toBeUndefined()
        })
      })

      browserTest("the email field is required: a message with its label, the typed text kept, nothing sent", async (server, { widgetKey }) => {
        await onPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }, async (session) => {
          const { page } = session
          await openPanel(page)
          const typed = { name: "Nora", email: "", subject: "No address", message: "Who answers me?" }
          await fillForm(page, typed)
          await widget(page, "submit").click()
          await expect.poll(() => widget(page, "error-email").textContent()).toBe("Email is required")
          expect(await field(page, "email").getAttribute("required")).not.toBeNull()
          expect(await formValues(page, ["name", "email", "subject", "message"])).toEqual(typed)
          expect(session.requests.filter(isTicketPost)).toEqual([])
        })
      })

      browserTest("requests survive storage that throws or is corrupt; an entry of the old widget points to the email; one the service no longer shows drops out", async (server, { widgetKey }) => {
        const storageKey = `support-widget:${server.baseUrl}:${widgetKey}`
        const file = async (subject: string) => {
          const [created] = await call(server, widgetKey, (api) =>
            api.tickets.create({ payload: { subject, body: "x", sender_email: "ida@example.com" }, headers: {}, responseMode: "decoded-and-response" }))
          return created
        }
        // a ticket of the visitor's, one stored by the old widget (its email only), one that does not
        // exist, and one stored with another ticket's token
        const mine = await file("Mine")
        const old = await file("From the old widget")
        const other = await file("Not hers")
        const stored = [
          { ticket_id: mine.ticket_id, ticket_number: mine.ticket_number, subject: "Mine", access_token: mine.access_token },
          { ticket_id: old.ticket_id, ticket_number: old.ticket_number, subject: "From the old widget", email: "ida@example.com" },
          { ticket_id: crypto.randomUUID(), ticket_number: 99, subject: "Deleted", access_token: "tat_nothing" },
          { ticket_id: other.ticket_id, ticket_number: other.ticket_number, subject: "Not hers", access_token: mine.access_token },
          { unrelated: true }
        ]
        await withPage(suite.browser, {}, async (session) => {
          const { page } = session
          await page.addInitScript(([k, v]) => localStorage.setItem(k!, v!), [storageKey, JSON.stringify(stored)])
          await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) })))
          await openPanel(page)
          expect(await widget(page, "requests-entry").textContent()).toBe("Your requests (4)")
          await widget(page, "requests-entry").click()
          await expect.poll(() => widget(page, "request").count()).toBe(1)
          expect(await widget(page, "request").textContent()).toContain(`#${mine.ticket_number} Mine`)
          // the old entry: shown, not opened, with a plain way to read it; not an error
          expect(await widget(page, "request-note").count()).toBe(1)
          expect(await widget(page, "request-note").textContent()).toBe("To read this request, open the link in the email we sent you.")
          expect(await widget(page, "request-list").textContent()).toContain(`#${old.ticket_number} From the old widget`)
          expect(await widget(page, "requests-error").textContent()).toBe("")
          expect(session.requests.filter((r) => r.url().includes(old.ticket_id)), "the old entry is not read").toEqual([])
          await expect.poll(async () =>
            (await page.evaluate((k) => JSON.parse(localStorage.getItem(k)!), storageKey)).map((r: { ticket_id: string }) => r.ticket_id)
          ).toEqual([mine.ticket_id, old.ticket_id])
          // another project's key on the same page would not see them
          expect(await page.evaluate(() => Object.keys(localStorage))).toEqual([storageKey])
          expect(session.pageErrors).toEqual([])
        })

        for (const breakStorage of [
          (k: string) => localStorage.setItem(k, "{not json"),
          () => Object.defineProperty(window, "localStorage", { get: () => { throw new DOMException("denied", "SecurityError") } })
        ]) {
          await withPage(suite.browser, {}, async (session) => {
            const { page } = session
            await page.addInitScript(breakStorage, storageKey)
            await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) })))
            await openPanel(page)
            expect(await widget(page, "requests-entry").isHidden()).toBe(true)
            await fillForm(page, { name: "Ida", email: "ida@example.com", subject: "Storage", message: "Broken storage" })
            await widget(page, "submit").click()
            const number = await shownTicketNumber(session)
            // without storage, the form still keeps the visitor's name and email for the next ticket
            expect(await formValues(page, ["name", "email", "subject"])).toEqual({ name: "Ida", email: "ida@example.com", subject: "" })
            // and the conversation opens, and is in the list of the page
            await expect.poll(() => widget(page, "conversation-status").textContent()).toBe("Status: Open")
            await widget(page, "conversation-back").click()
            expect(await widget(page, "request").textContent()).toContain(`#${number} Storage`)
            await widget(page, "request").click()
            await expect.poll(() => widget(page, "message").count()).toBe(1)
            expect(session.pageErrors).toEqual([])
          })
        }
      })
    })
  })
})
