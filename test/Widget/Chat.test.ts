/**
 * The widget's conversation as a chat (issue 49, point 5), in Chromium against the whole service
 * on another origin: accessibility (axe-core) at a phone's and a desktop's width on light and dark
 * pages, the full-screen sheet that keeps keyboard focus, the unread badge fed by the ticket's
 * stream, and the client's side of the stream's protocol (resume, reset, reconnecting, fallback),
 * the 429 and the refused visitor token.
 *
 * Where a test answers a request itself (page.route), it says so: those check the widget's side of
 * the wire (what it sends back, what it shows), not the service.
 */
import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, statSync } from "node:fs"
import { join } from "node:path"
import type { Request } from "playwright-core"
import { expect } from "vitest"
import { createAgent } from "../support/Calls.ts"
import { describeNeeding } from "../support/Requires.ts"
import { adminToken, type ApiClient, type TestServerShape, testServer } from "../support/TestServer.ts"
import {
  artifactsDir,
  axeViolations,
  browserTestOf,
  chromiumSuite,
  chromiumSuiteMissing,
  coloursOf,
  contrast,
  fillForm,
  focusOf,
  hostPage,
  idle,
  openPanel,
  parseCssColour,
  type Session,
  widget,
  withPage
} from "./Harness.ts"

const missing = await chromiumSuiteMissing()

const call = <A, E>(server: TestServerShape, token: string, request: (api: ApiClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(server.api(token), request))

const uniqueWord = () => `zq${Math.random().toString(36).slice(2, 10).replace(/\d/g, "x")}`

const config = (server: TestServerShape, key: string, extra: Record<string, unknown> = {}) => ({
  projectKey: key,
  baseUrl: server.baseUrl,
  ...extra
})

const LIGHT = "<h1>A customer's site</h1><p>Some content of the host page.</p><p><a id=\"page-link\" href=\"#x\">A link of the page</a></p>"
const DARK_HEAD = "<style>html,body{background:#0b0f19;color:#e5e7eb}a{color:#93c5fd}</style>"

const isRead = (request: Request) => request.method() === "GET" && /^\/v1\/tickets\/[^/]+$/.test(new URL(request.url()).pathname)
const isStream = (request: Request) => request.method() === "GET" && /^\/v1\/tickets\/[^/]+\/events$/.test(new URL(request.url()).pathname)

/** Files a ticket through the widget's form and waits for its conversation; returns its id and number. */
const fileThroughWidget = async (session: Session, subject: string, message: string) => {
  const { page } = session
  await openPanel(page)
  await fillForm(page, { name: "Vi Sitor", email: "vi@example.com", subject, message })
  await widget(page, "submit").click()
  await expect.poll(async () => (await focusOf(page)).widgetTestId, { timeout: 20_000 }).toBe("conversation-title")
  const post = session.requests.find((r) => r.method() === "POST" && new URL(r.url()).pathname === "/v1/tickets")!
  const created = await (await post.response())!.json()
  return { ticketId: created.ticket_id as string, number: created.ticket_number as number }
}

const agentSays = (server: TestServerShape, projectId: string, ticketId: string, body: string, authorEmail?: string) =>
  call(server, adminToken, (api) =>
    api.admin.addAgentMessage({ params: { pid: projectId, id: ticketId }, payload: authorEmail ? { body, author_email: authorEmail } : { body } }))

describeNeeding(missing, "widget conversation as a chat, in Chromium", () => {
  const suite = chromiumSuite()

  layer(testServer("pglite", {}, undefined), { excludeTestServices: true })((it) => {
    const browserTest = browserTestOf(it, 90_000)

    browserTest("axe-core finds its violations inside the shadow root (the check below can fail)", async (server, { widgetKey }) => {
      await withPage(suite.browser, {}, async ({ page }) => {
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) })))
        await openPanel(page)
        // a button without a name, put into the widget's shadow root
        await page.evaluate(() => {
          document.getElementById("support-widget-host")!.shadowRoot!.querySelector("[data-testid=panel]")!
            .append(Object.assign(document.createElement("button"), { className: "canary" }))
        })
        expect((await axeViolations(page)).join("\n")).toMatch(/button-name/)
      })
    })

    for (const [width, height] of [[375, 740], [1280, 800]] as const) {
      for (const scheme of ["light", "dark"] as const) {
        browserTest(`the conversation at ${width} px on a ${scheme} page: 0 axe violations, sides told apart, newest in view, reply box pinned; screenshot`, async (server, { widgetKey, projectId }) => {
          const word = uniqueWord()
          const agentEmail = `bo-${word}@support.example`
          await Effect.runPromise(createAgent(server, projectId, agentEmail, "Bo Agent"))
          const page_ = hostPage({
            scriptFrom: server.baseUrl,
            config: config(server, widgetKey, { color: "#7c3aed" }),
            head: scheme === "dark" ? DARK_HEAD : "",
            body: LIGHT
          })
          await withPage(suite.browser, { viewport: { width, height } }, async (session) => {
            const { page } = session
            await page.goto(suite.site.add(page_))
            const { ticketId } = await fileThroughWidget(session, `Chat ${word}`, `My opening message ${word}`)
            for (let i = 1; i <= 6; i++) await agentSays(server, projectId, ticketId, `Reply ${i} from support ${word}\nwith a second line`, agentEmail)
            await expect.poll(() => widget(page, "message").count(), { timeout: 10_000 }).toBe(7)

            // sides: the visitor's on the right in the site's colour, support's on the left with the agent's name
            const [mine, theirs] = [widget(page, "message").first(), widget(page, "message").last()]
            expect(await mine.getAttribute("data-author")).toBe("you")
            expect(await theirs.getAttribute("data-author")).toBe("support")
            expect(await theirs.locator("b").textContent()).toBe("Bo Agent")
            const [mineBox, theirsBox, threadBox] = await Promise.all(
              [mine.locator("div"), theirs.locator("div"), widget(page, "messages")].map(async (l) => (await l.boundingBox())!)
            )
            expect(mineBox.x + mineBox.width, "the visitor's bubble is on the right").toBeGreaterThan(threadBox.x + threadBox.width - 8)
            expect(theirsBox.x, "support's bubble is on the left").toBeLessThan(threadBox.x + 8)
            const bubble = await coloursOf(mine.locator("div"))
            expect(bubble.background, "the visitor's bubble is in the site's colour").toBe("rgb(124, 58, 237)")
            expect(contrast(parseCssColour(bubble.text), parseCssColour(bubble.background))).toBeGreaterThanOrEqual(4.5)
            const other = await coloursOf(theirs.locator("div"))
            expect(other.background).not.toBe(bubble.background)
            expect(contrast(parseCssColour(other.text), parseCssColour(other.background))).toBeGreaterThanOrEqual(4.5)

            // the newest message in view, and the reply box and its button in the panel, whole
            const panel = (await widget(page, "panel").boundingBox())!
            const within = async (id: string) => {
              const box = (await widget(page, id).boundingBox())!
              return box.x >= panel.x && box.x + box.width <= panel.x + panel.width + 0.5 &&
                box.y >= panel.y && box.y + box.height <= panel.y + panel.height + 0.5 &&
                box.x + box.width <= width
            }
            expect(await within("reply"), "reply box visible").toBe(true)
            expect(await within("reply-send"), "send button not cut off").toBe(true)
            const last = (await theirs.boundingBox())!
            const thread = (await widget(page, "messages").evaluate((el) => el.parentElement!.getBoundingClientRect().toJSON())) as DOMRect
            expect(await widget(page, "messages").evaluate((el) => el.parentElement!.scrollHeight > el.parentElement!.clientHeight), "the thread scrolls").toBe(true)
            expect(last.y + last.height, "the newest message is in view").toBeLessThanOrEqual(thread.y + thread.height + 1)
            expect(last.y).toBeGreaterThanOrEqual(thread.y - 1)
            const replyBox = (await widget(page, "reply").boundingBox())!
            expect(replyBox.y + replyBox.height, "the reply box is at the bottom of the panel").toBeGreaterThan(panel.y + panel.height - 80)
            if (width <= 480) {
              expect(panel, "a full-screen sheet").toEqual({ x: 0, y: 0, width, height })
            }

            expect(await axeViolations(page), `axe at ${width} px on a ${scheme} page`).toEqual([])
            mkdirSync(artifactsDir, { recursive: true })
            const path = join(artifactsDir, `widget-conversation-${width}-${scheme}.png`)
            await page.screenshot({ path })
            expect(statSync(path).size).toBeGreaterThan(1000)
            expect(session.pageErrors).toEqual([])
          })
        })
      }
    }

    browserTest("at 375 px the panel is a modal sheet: the page is inert, Tab and Shift+Tab cycle inside it; closing gives the page back", async (server, { widgetKey }) => {
      const word = uniqueWord()
      await withPage(suite.browser, { viewport: { width: 375, height: 740 } }, async (session) => {
        const { page } = session
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey), body: LIGHT })))
        await fileThroughWidget(session, `Sheet ${word}`, "On a phone")
        const panel = widget(page, "panel")
        expect(await panel.getAttribute("role")).toBe("dialog")
        expect(await panel.getAttribute("aria-modal")).toBe("true")
        expect(await page.evaluate(() => document.body.hasAttribute("inert")), "the page behind is inert").toBe(true)

        for (const key of ["Tab", "Shift+Tab"]) {
          const visited = new Set<string>()
          for (let step = 0; step < 16; step++) {
            await page.keyboard.press(key)
            const focus = await focusOf(page)
            expect(focus, `${key} #${step + 1} stays in the sheet`).toMatchObject({ pageId: "support-widget-host", inPanel: true })
            visited.add(focus.widgetTestId ?? "(none)")
          }
          // every control of the view was reached (the reply box's "Attach a file" input too), and then it went round again
          expect([...visited].sort()).toEqual(["close", "conversation-back", "reply", "reply-file", "reply-send", "thread"])
        }

        await page.keyboard.press("Escape")
        await panel.waitFor({ state: "hidden" })
        expect(await page.evaluate(() => document.body.hasAttribute("inert")), "the page is given back").toBe(false)
        expect(await focusOf(page)).toMatchObject({ widgetTestId: "launcher" })
        await page.keyboard.press("Shift+Tab")
        expect((await focusOf(page)).pageId, "the page's own link is reachable again").toBe("page-link")
      })
      // on a desktop the panel sits beside the page, which stays usable
      await withPage(suite.browser, {}, async ({ page }) => {
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey), body: LIGHT })))
        await openPanel(page)
        expect(await widget(page, "panel").getAttribute("aria-modal")).toBeNull()
        expect(await page.evaluate(() => document.body.hasAttribute("inert"))).toBe(false)
      })
    })

    browserTest("a reply while the panel is closed counts on the launcher, also after a reload; opening the conversation clears it", async (server, { widgetKey, projectId }) => {
      const word = uniqueWord()
      const url = suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) }))
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(url)
        const { ticketId } = await fileThroughWidget(session, `Badge ${word}`, "Waiting for an answer")
        const badge = widget(page, "unread")
        const launcher = widget(page, "launcher")
        await page.keyboard.press("Escape")
        expect(await badge.isHidden()).toBe(true)

        await agentSays(server, projectId, ticketId, `First answer ${word}`)
        await agentSays(server, projectId, ticketId, `Second answer ${word}`)
        await expect.poll(() => badge.textContent(), { timeout: 10_000 }).toBe("2")
        expect(await badge.isVisible()).toBe(true)
        expect(await launcher.getAttribute("aria-label")).toBe("Open support form, 2 new replies")

        await launcher.click()
        expect((await focusOf(page)).widgetTestId).toBe("conversation-title")
        await expect.poll(() => widget(page, "messages").textContent()).toContain(`Second answer ${word}`)
        expect(await badge.isHidden(), "seen: no longer counted").toBe(true)
        expect(await launcher.getAttribute("aria-label")).toBe("Open support form")

        // the next visit follows the open ticket before the panel is ever opened
        await page.reload()
        await launcher.waitFor({ state: "visible" })
        await expect.poll(() => session.requests.filter(isStream).length).toBeGreaterThan(1)
        await page.waitForTimeout(500)
        await agentSays(server, projectId, ticketId, `Third answer ${word}`)
        await expect.poll(() => badge.textContent(), { timeout: 10_000 }).toBe("1")
        expect(session.pageErrors).toEqual([])
      })
    })

    browserTest("stream protocol (stubbed endpoint): events parsed, resumed with Last-Event-ID after a drop, reset re-reads, 'Reconnecting…' while down", async (server, { widgetKey }) => {
      const word = uniqueWord()
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        const lastEventIds: Array<string | undefined> = []
        let readsBeforeReset = Infinity
        const sse = (body: string) => ({
          status: 200,
          headers: { "content-type": "text/event-stream", "access-control-allow-origin": "*", "cache-control": "no-store" },
          body
        })
        await page.route("**/v1/tickets/*/events", async (route) => {
          if (route.request().method() !== "GET") return route.continue()
          lastEventIds.push((await route.request().allHeaders())["last-event-id"])
          const n = lastEventIds.length
          const reply = {
            id: "t",
            project_id: "p",
            message_id: "11111111-1111-4111-8111-111111111111",
            author_type: "agent",
            author_name: "Stub Agent",
            body: `Stubbed reply ${word}`,
            created_at: new Date().toISOString()
          }
          // a comment, a reply in two data-less-safe lines with CRLF, then the stream ends (a drop)
          if (n === 1) return route.fulfill(sse(`: keep-alive\r\n\r\nid: 7\r\nevent: ticket_replied\r\ndata: ${JSON.stringify(reply)}\r\n\r\n`))
          if (n === 2) readsBeforeReset = session.requests.filter(isRead).length
          if (n === 2) return route.fulfill(sse(`id: 8\nevent: ticket_replied\ndata: ${JSON.stringify(reply)}\n\nid: 9\nevent: reset\ndata: {"reason":"too old"}\n\n`))
          return route.abort("connectionreset")
        })
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) })))
        await fileThroughWidget(session, `Stream ${word}`, "Opening")
        await expect.poll(() => widget(page, "messages").textContent(), { timeout: 10_000 }).toContain(`Stubbed reply ${word}`)
        expect(await widget(page, "message").last().locator("b").textContent()).toBe("Stub Agent")
        // the drop: resumed from the last id, and the same event again is shown once
        await expect.poll(() => lastEventIds.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2)
        expect(lastEventIds.slice(0, 2)).toEqual([undefined, "7"])
        // the reset: the ticket read again (a resumed stream reads nothing otherwise)
        await expect.poll(() => session.requests.filter(isRead).length, { timeout: 10_000 }).toBeGreaterThan(readsBeforeReset)
        expect(await widget(page, "message").count()).toBe(2)
        // then the stream is down: said quietly, not as an alert
        await expect.poll(() => widget(page, "reconnecting").isVisible(), { timeout: 10_000 }).toBe(true)
        expect(await widget(page, "reconnecting").textContent()).toBe("Reconnecting…")
        expect(await widget(page, "reconnecting").getAttribute("role")).toBeNull()
        await expect.poll(() => lastEventIds.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3)
        expect(lastEventIds[2]).toBe("9")
        // back up: the indicator goes
        await page.unroute("**/v1/tickets/*/events")
        await expect.poll(() => widget(page, "reconnecting").isHidden(), { timeout: 40_000 }).toBe(true)
        expect(session.pageErrors).toEqual([])
      })
    })

    browserTest("where the stream endpoint is missing (404, stubbed), it polls: the reply still arrives, two tries of the stream only", async (server, { widgetKey, projectId }) => {
      const word = uniqueWord()
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.route("**/v1/tickets/*/events", (route) =>
          route.fulfill({
            status: 404,
            headers: { "content-type": "application/json", "access-control-allow-origin": "*" },
            body: JSON.stringify({ error: { code: "NOT_FOUND", message: "no such route" } })
          }))
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) })))
        const { ticketId } = await fileThroughWidget(session, `Poll ${word}`, "Opening")
        await page.waitForTimeout(3_000)
        await agentSays(server, projectId, ticketId, `Polled answer ${word}`)
        await expect.poll(() => widget(page, "messages").textContent(), { timeout: 15_000 }).toContain(`Polled answer ${word}`)
        expect(session.requests.filter(isStream).length).toBe(2)
        expect(await widget(page, "reconnecting").isHidden()).toBe(true)
        // not a tight loop: the reads are 5 s apart at least
        const times: number[] = []
        page.on("request", (r) => isRead(r) && times.push(Date.now()))
        await page.waitForTimeout(11_000)
        expect(times.length).toBeGreaterThanOrEqual(1)
        expect(times.length).toBeLessThanOrEqual(2)
      })
    })

    browserTest("a 429 on reading the conversation says when to try again, without a tight loop (stubbed 429)", async (server, { widgetKey }) => {
      const word = uniqueWord()
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) })))
        await fileThroughWidget(session, `Busy ${word}`, "Opening")
        await page.route(/\/v1\/tickets\/[^/]+$/, (route) =>
          route.request().method() !== "GET" ? route.continue() : route.fulfill({
            status: 429,
            headers: {
              "content-type": "application/json",
              "retry-after": "20",
              "access-control-allow-origin": "*",
              "access-control-expose-headers": "Retry-After"
            },
            body: JSON.stringify({ error: { code: "RATE_LIMITED", message: "slow down" } })
          }))
        await widget(page, "conversation-back").click()
        await widget(page, "request").click()
        await expect.poll(() => widget(page, "reply-error").textContent()).toBe("Too many requests. Try again in 20 s.")
        await idle(page, session.requests, isRead)
        const reads = session.requests.filter(isRead).length
        await page.waitForTimeout(4_000)
        expect(session.requests.filter(isRead).length - reads, "no reads while Retry-After runs").toBe(0)
      })
    })

    browserTest("a refused visitor token: the console has the service's reason, the visitor one plain sentence", async (server, { widgetKey }) => {
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey, { identityToken: "not.a.jwt" }) })))
        await openPanel(page)
        const entry = widget(page, "requests-entry")
        expect(await entry.textContent()).toBe("Your requests")
        await entry.click()
        await expect.poll(() => widget(page, "requests-error").textContent(), { timeout: 10_000 })
          .toBe("We couldn't confirm who you are. Please reload the page.")
        const list = session.requests.find((r) => new URL(r.url()).pathname === "/v1/tickets" && r.method() === "GET")!
        expect((await list.allHeaders())["x-visitor-token"]).toBe("not.a.jwt")
        expect(session.consoleWarnings).toContainEqual(expect.stringMatching(/^\[support-widget\] SupportWidgetConfig\.identityToken was refused: \S/))
      })
    })
  })
})
