/**
 * The widget's live conversation and its verified visitors (issue 49), in Chromium against the
 * whole service, with the host page on another origin than the service. Nothing here is stubbed:
 * every answer the page gets comes from the service.
 *
 * - a reply reaches an open conversation through the ticket's stream, without a single read;
 * - the service restarts (same port, same database) with the conversation open: "Reconnecting…",
 *   then the stream resumed with Last-Event-ID, every reply shown exactly once;
 * - a verified visitor's requests on a second device, a claimed anonymous ticket, another visitor
 *   seeing none of it;
 * - a forged and an expired visitor token: one plain sentence, the service's reason in the console;
 * - one visitor's flood refused (429, "Try again in N s.") while another files a ticket.
 *
 * The service runs in-process on a database it keeps across a restart: a PGlite directory made
 * for this file, or a database on the PostgreSQL server of DATABASE_URL when that is set.
 */
import { Effect, Exit, ManagedRuntime, Scope } from "effect"
import { SignJWT } from "jose"
import type { Page, Request } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DatabaseKind, freshDatabase } from "../support/Databases.ts"
import { describeNeeding } from "../support/Requires.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"
import {
  chromiumSuite,
  chromiumSuiteMissing,
  fillForm,
  focusOf,
  hostPage,
  idle,
  openPanel,
  type Session,
  widget,
  withPage
} from "./Harness.ts"

const missing = await chromiumSuiteMissing("CI installs Debian's chromium package")

const kind: DatabaseKind = process.env.DATABASE_URL ? "postgres" : "pglite"

// ---- the service, stoppable and startable again on the same port and database ---------------------

interface Instance {
  readonly server: TestServerShape
  readonly port: number
  readonly stop: () => Promise<void>
}

/** One instance of the whole service on `database` (its env entries), on `port` or a free one. */
const startInstance = async (database: Record<string, string>, overrides: Record<string, string>, port?: number): Promise<Instance> => {
  const runtime = ManagedRuntime.make(testServer(kind, overrides, database, { port }))
  const server = await runtime.runPromise(Effect.service(TestServer))
  return { server, port: Number(new URL(server.baseUrl).port), stop: () => runtime.dispose() }
}

/** A database for the whole describe, kept across the restarts of its instances. */
const keptDatabase = () => {
  let scope: Scope.Closeable | undefined
  return {
    open: async () => {
      scope = Effect.runSync(Scope.make())
      return Effect.runPromise(freshDatabase(kind).pipe(Scope.provide(scope)))
    },
    close: () => (scope ? Effect.runPromise(Scope.close(scope, Exit.void)) : Promise.resolve())
  }
}

// ---- calls of the operator and public API --------------------------------------------------------

const ok = async (server: TestServerShape, method: string, path: string, options: Parameters<TestServerShape["request"]>[2] = {}) => {
  const response = await server.request(method, path, options)
  expect(response.status, `${method} ${path}: ${response.text}`).toBeLessThan(300)
  return response.body?.data ?? response.body
}

const project = (server: TestServerShape, name: string) => Effect.runPromise(createProject(server, name.slice(0, 60)))

const agentSays = (server: TestServerShape, projectId: string, ticketId: string, body: string, authorEmail?: string) =>
  ok(server, "POST", `/v1/admin/projects/${projectId}/tickets/${ticketId}/messages`, {
    key: adminToken,
    body: authorEmail ? { body, author_email: authorEmail } : { body }
  })

const identitySecret = async (server: TestServerShape, projectId: string) => {
  const response = await server.request("POST", `/v1/admin/projects/${projectId}/identity-secret`, { key: adminToken })
  expect(response.status, response.text).toBe(201)
  const secret = (response.body?.data ?? response.body).identity_secret
  expect(typeof secret).toBe("string")
  return secret as string
}

const encoder = new TextEncoder()

/** A visitor token as a site's backend signs it: HS256 with the UTF-8 bytes of the secret. */
const visitorToken = (secret: string, sub: string, options: { expired?: boolean; email?: string } = {}) => {
  const now = Math.floor(Date.now() / 1000)
  const jwt = new SignJWT(options.email ? { sub, email: options.email } : { sub }).setProtectedHeader({ alg: "HS256" })
  return (options.expired
    ? jwt.setIssuedAt(now - 7200).setExpirationTime(now - 3600)
    : jwt.setIssuedAt().setExpirationTime("1h")).sign(encoder.encode(secret))
}

// ---- the page ---------------------------------------------------------------------------------------

const uniqueWord = () => `zq${Math.random().toString(36).slice(2, 10).replace(/\d/g, "x")}`

const pathOf = (request: Request) => new URL(request.url()).pathname
const isRead = (request: Request) => request.method() === "GET" && /^\/v1\/tickets\/[^/]+$/.test(pathOf(request))
const isStream = (request: Request) => request.method() === "GET" && /^\/v1\/tickets\/[^/]+\/events$/.test(pathOf(request))
const isList = (request: Request) => request.method() === "GET" && pathOf(request) === "/v1/tickets"

/** Files a ticket through the widget's form and waits for its conversation; returns its id and number. */
const fileThroughWidget = async (session: Session, subject: string, message: string) => {
  const { page } = session
  await openPanel(page)
  await fillForm(page, { name: "Vi Sitor", email: "vi@example.com", subject, message })
  await widget(page, "submit").click()
  await expect.poll(async () => (await focusOf(page)).widgetTestId, { timeout: 20_000 }).toBe("conversation-title")
  const post = session.requests.find((r) => r.method() === "POST" && pathOf(r) === "/v1/tickets")!
  const response = (await post.response())!
  expect(response.status()).toBe(202)
  const created = await response.json()
  return { ticketId: created.ticket_id as string, number: created.ticket_number as number }
}

/** The texts of the conversation's messages, in order. */
const messageTexts = (page: Page) => widget(page, "message").locator("div").allTextContents()

/** How many messages of the conversation read exactly `text`. */
const countOf = async (page: Page, text: string) => (await messageTexts(page)).filter((t) => t === text).length

/** Requests that have ended (answered in full, or failed), to tell a stream still open. */
const trackEnded = (page: Page) => {
  const ended = new Set<Request>()
  page.on("requestfinished", (request) => ended.add(request))
  page.on("requestfailed", (request) => ended.add(request))
  return ended
}

/** The stream is up: a stream request answered 200, and the read the widget makes on a fresh stream done. */
const streamUp = async (session: Session) => {
  await expect.poll(async () => {
    for (const request of session.requests.filter(isStream)) {
      if ((await request.response())?.status() === 200) return true
    }
    return false
  }, { timeout: 15_000 }).toBe(true)
  await idle(session.page, session.requests, isRead)
}

/** The visitor's requests, opened from the form: the titles of the list once it has loaded. */
const openRequests = async (session: Session) => {
  const { page } = session
  const lists = session.requests.filter(isList).length
  const entry = widget(page, "requests-entry")
  await entry.waitFor({ state: "visible" })
  expect(await entry.textContent()).toBe("Your requests")
  await entry.click()
  await expect.poll(() => session.requests.filter(isList).length, { timeout: 10_000 }).toBeGreaterThan(lists)
  await idle(page, session.requests, isList)
  return {
    titles: () => widget(page, "request").locator("b").allTextContents(),
    error: () => widget(page, "requests-error").textContent()
  }
}

const WHO = "We couldn't confirm who you are. Please reload the page."

describeNeeding(missing, `widget live against the whole service (${kind}), in Chromium`, () => {
  const suite = chromiumSuite()

  const pageOf = (server: TestServerShape, widgetKey: string, extra: Record<string, unknown> = {}) =>
    suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: { projectKey: widgetKey, baseUrl: server.baseUrl, ...extra } }))

  describe("one service, restarted in the last test", () => {
    const database = keptDatabase()
    let env: Record<string, string>
    let instance: Instance | undefined
    beforeAll(async () => {
      env = await database.open()
      instance = await startInstance(env, {})
    })
    afterAll(async () => {
      await instance?.stop()
      await database.close()
    })

    it("an open conversation gets the agent's reply through its one stream: no read of the ticket from the reply sent to it shown", async () => {
      const { server } = instance!
      const { projectId, widgetKey } = await project(server, "stream, no polling")
      const word = uniqueWord()
      await ok(server, "POST", `/v1/admin/projects/${projectId}/agents`, { key: adminToken, body: { email: `ana-${word}@support.example`, name: "Ana Agent" } })
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        const ended = trackEnded(page)
        await page.goto(pageOf(server, widgetKey))
        const { ticketId } = await fileThroughWidget(session, `Live ${word}`, `Opening ${word}`)
        await streamUp(session)
        // a moment with the conversation open and nothing happening: nothing is asked either
        const before = session.requests.length
        await page.waitForTimeout(1_000)
        expect(session.requests.slice(before).map((r) => `${r.method()} ${pathOf(r)}`), "idle conversation").toEqual([])

        const from = session.requests.length
        const sent = Date.now()
        await agentSays(server, projectId, ticketId, `Reply ${word}`, `ana-${word}@support.example`)
        // sooner than the fallback's first poll (5 s) could bring it
        await expect.poll(() => countOf(page, `Reply ${word}`), { timeout: 4_500, interval: 50 }).toBe(1)
        const shownAfter = Date.now() - sent
        const during = session.requests.slice(from)
        expect(during.filter(isRead).map((r) => r.url()), "no GET /v1/tickets/:id between the reply and its display").toEqual([])
        expect(during.map((r) => `${r.method()} ${pathOf(r)}`), "no request at all: the reply came over the open stream").toEqual([])
        expect(shownAfter).toBeLessThan(4_500)
        expect(await widget(page, "message").last().locator("b").textContent()).toBe("Ana Agent")
        expect(await widget(page, "message").last().getAttribute("data-author")).toBe("support")

        // exactly one stream was ever asked for, and it is still open
        const streams = session.requests.filter(isStream)
        expect(streams).toHaveLength(1)
        expect(pathOf(streams[0]!)).toBe(`/v1/tickets/${ticketId}/events`)
        expect((await streams[0]!.response())!.status()).toBe(200)
        expect(ended.has(streams[0]!), "the stream is still open").toBe(false)
        expect(await messageTexts(page)).toEqual([`Opening ${word}`, `Reply ${word}`])
        expect(session.pageErrors).toEqual([])
      })
    }, 90_000)

    it("a verified visitor's requests on a second device, with a claimed anonymous one; another visitor sees none of it", async () => {
      const { server } = instance!
      const { projectId, widgetKey } = await project(server, "verified visitors")
      const secret = await identitySecret(server, projectId)
      const word = uniqueWord()
      const first = `Printer ${word}`
      const anonymous = `Before signing in ${word}`
      const url = async (sub?: string) => pageOf(server, widgetKey, sub ? { identityToken: await visitorToken(secret, sub) } : {})
      const storageOf = (page: Page) => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("support-widget")))

      // device A: signed in, files a ticket; support answers it
      let ticketId = ""
      let number = 0
      await withPage(suite.browser, {}, async (session) => {
        await session.page.goto(await url("user-42"))
        ;({ ticketId, number } = await fileThroughWidget(session, first, `Opening ${word}`))
        const post = session.requests.find((r) => r.method() === "POST" && pathOf(r) === "/v1/tickets")!
        expect((await post.allHeaders())["x-visitor-token"]).toMatch(/^ey/)
      })
      await agentSays(server, projectId, ticketId, `Answer ${word}`)

      // device C, not signed in yet: an anonymous ticket, kept by this browser only
      await withPage(suite.browser, {}, async (c) => {
        await c.page.goto(await url())
        const filed = await fileThroughWidget(c, anonymous, `Anonymous opening ${word}`)

        // device B: a second profile, nothing stored; a fresh token for the same user
        await withPage(suite.browser, {}, async (b) => {
          const { page } = b
          await page.goto(await url("user-42"))
          expect(await storageOf(page), "a fresh profile").toEqual([])
          await openPanel(page)
          const list = await openRequests(b)
          expect(await list.titles()).toEqual([`#${number} ${first}`])
          expect(await list.error()).toBe("")
          await widget(page, "request").click()
          await expect.poll(() => messageTexts(page), { timeout: 10_000 }).toEqual([`Opening ${word}`, `Answer ${word}`])
          expect(await widget(page, "conversation-title").textContent()).toBe(`#${number} ${first}`)
          // read as the verified visitor: this browser has no ticket token
          const read = b.requests.filter(isRead).at(-1)!
          const headers = await read.allHeaders()
          expect(headers["x-ticket-token"]).toBeUndefined()
          expect(headers["x-visitor-token"]).toMatch(/^ey/)
          expect((await read.response())!.status()).toBe(200)

          // back on C: the page reloaded signed in; its anonymous ticket joins the visitor's list
          await c.page.goto(await url("user-42"))
          await openPanel(c.page)
          const onC = await openRequests(c)
          const claim = c.requests.find((r) => r.method() === "POST" && pathOf(r) === `/v1/tickets/${filed.ticketId}/claim`)
          expect(claim, "the anonymous ticket is claimed").toBeDefined()
          expect((await claim!.response())!.status()).toBe(200)
          const claimHeaders = await claim!.allHeaders()
          expect(claimHeaders["x-ticket-token"]).toMatch(/^tat_/)
          expect(claimHeaders["x-visitor-token"]).toMatch(/^ey/)
          expect((await onC.titles()).sort()).toEqual([`#${filed.number} ${anonymous}`, `#${number} ${first}`].sort())

          // and B, with nothing stored of it, lists it too
          await widget(page, "conversation-back").click()
          await expect.poll(() => widget(page, "request").locator("b").allTextContents(), { timeout: 10_000 })
            .toEqual(expect.arrayContaining([`#${filed.number} ${anonymous}`, `#${number} ${first}`]))
          expect(await widget(page, "request").count()).toBe(2)
          expect(b.pageErrors).toEqual([])
        })
        expect(c.pageErrors).toEqual([])
      })

      // another user: an empty list, and neither ticket readable nor streamable with their token
      await withPage(suite.browser, {}, async (d) => {
        await d.page.goto(await url("user-77"))
        await openPanel(d.page)
        const list = await openRequests(d)
        expect(await list.titles()).toEqual([])
        expect(await list.error()).toBe("")
        expect((await d.requests.filter(isList).at(-1)!.response())!.status()).toBe(200)
      })
      const other = await visitorToken(secret, "user-77")
      for (const path of [`/v1/tickets/${ticketId}`, `/v1/tickets/${ticketId}/events`]) {
        const response = await server.request("GET", path, { key: widgetKey, headers: { "x-visitor-token": other } })
        expect(response.status, `${path} for another visitor`).toBe(404)
      }
      const mine = await server.request("GET", "/v1/tickets?limit=50", {
        key: widgetKey,
        headers: { "x-visitor-token": await visitorToken(secret, "user-42") }
      })
      expect(mine.status).toBe(200)
      expect((mine.body.data ?? mine.body).tickets.map((t: any) => t.subject).sort()).toEqual([anonymous, first].sort())
    }, 120_000)

    it("a forged and an expired visitor token: one plain sentence for the visitor, the service's reason in console.warn", async () => {
      const { server } = instance!
      const { projectId, widgetKey } = await project(server, "refused tokens")
      const secret = await identitySecret(server, projectId)
      const word = uniqueWord()
      const cases = [
        { what: "forged", token: await visitorToken(`${secret}-but-not-quite`, "user-42"), reason: /signature/ },
        { what: "expired", token: await visitorToken(secret, "user-42", { expired: true }), reason: /expired/ }
      ]
      for (const { what, token, reason } of cases) {
        await withPage(suite.browser, {}, async (session) => {
          const { page } = session
          await page.goto(pageOf(server, widgetKey, { identityToken: token }))
          await openPanel(page)

          // filing a ticket
          await fillForm(page, { name: "Vi Sitor", email: "vi@example.com", subject: `Refused ${word}`, message: "Hello" })
          await widget(page, "submit").click()
          await expect.poll(() => widget(page, "error").textContent(), { timeout: 10_000 }).toBe(WHO)
          const post = session.requests.find((r) => r.method() === "POST" && pathOf(r) === "/v1/tickets")!
          const refusal = (await post.response())!
          expect(refusal.status(), `${what}: the service refuses it`).toBe(401)
          const message: string = (await refusal.json()).error.message
          expect(message).toMatch(reason)
          const said = `[support-widget] SupportWidgetConfig.identityToken was refused: ${message}`
          expect(session.consoleWarnings.filter((w) => w === said || w.startsWith(`${said} (request id `)), session.consoleWarnings.join("\n"))
            .toHaveLength(1)
          // the visitor reads no developer's detail
          expect(await widget(page, "panel").textContent()).not.toMatch(/X-Visitor-Token|HS256|signature|expired/)

          // the visitor's requests
          await widget(page, "requests-entry").click()
          await expect.poll(() => widget(page, "requests-error").textContent(), { timeout: 10_000 }).toBe(WHO)
          const list = session.requests.find(isList)!
          expect((await list.response())!.status()).toBe(401)
          expect(session.consoleWarnings.filter((w) => w.includes("identityToken was refused")).length, "said once a page").toBe(1)
          expect(session.pageErrors).toEqual([])
        })
      }
      // nothing was filed
      const tickets = await ok(server, "GET", `/v1/admin/projects/${projectId}/tickets`, { key: adminToken })
      expect(JSON.stringify(tickets)).not.toContain(`Refused ${word}`)
    }, 90_000)

    it("the service restarts with the conversation open: 'Reconnecting…', then resumed with Last-Event-ID, each reply once", async () => {
      const first = instance!
      const { projectId, widgetKey } = await project(first.server, "restart")
      const word = uniqueWord()
      const opening = `Opening ${word}`
      const [before, lastBefore, during] = [`Before ${word}`, `Just before the stop ${word}`, `While restarting ${word}`]
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(pageOf(first.server, widgetKey))
        const { ticketId } = await fileThroughWidget(session, `Restart ${word}`, opening)
        await streamUp(session)
        await agentSays(first.server, projectId, ticketId, before)
        await expect.poll(() => countOf(page, before), { timeout: 5_000 }).toBe(1)

        // a reply committed, and at once the instance stops
        await agentSays(first.server, projectId, ticketId, lastBefore)
        const streamsBefore = session.requests.filter(isStream).length
        const readsBefore = session.requests.filter(isRead).length
        const stopping = Date.now()
        const ended = trackEnded(page)
        const stream = session.requests.filter(isStream).at(-1)!
        await first.stop()
        instance = undefined
        // the server ends the stream when it shuts down (checked softly: the rest goes on either way)
        expect.soft(Date.now() - stopping, "the open stream does not hold up the shutdown").toBeLessThan(10_000)
        expect.soft(stream.failure()?.errorText, "the stream ended cleanly, not cut off").toBeUndefined()
        // Chromium reports the end over its protocol, a moment after the server closed it
        await expect.poll(() => ended.has(stream), { timeout: 2_000 }).toBe(true)

        // down: said so
        const reconnecting = widget(page, "reconnecting")
        await expect.poll(() => reconnecting.isVisible(), { timeout: 10_000 }).toBe(true)
        expect(await reconnecting.textContent()).toBe("Reconnecting…")
        // the id the widget resumes from, now that the stream is gone
        const storageKey = `support-widget:${first.server.baseUrl}:${widgetKey}`
        const stored = await page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? "[]"), storageKey)
        const lastEventId: string | undefined = stored.find((r: any) => r.ticket_id === ticketId)?.last_event_id
        expect(lastEventId, "an event id was kept").toMatch(/\S/)
        // a try against the stopped port fails, and the widget goes on trying
        await expect.poll(() => session.requests.filter(isStream).length, { timeout: 15_000 }).toBeGreaterThan(streamsBefore)

        // so that the reply below is written before the widget is back, its next stream requests
        // are held here until then, and passed on to the service unchanged (not answered here)
        let release!: () => void
        const released = new Promise<void>((resolve) => (release = resolve))
        const held: Array<Request> = []
        await page.route("**/v1/tickets/*/events", async (route) => {
          held.push(route.request())
          await released
          await route.continue()
        })

        const second = await startInstance(env, {}, first.port)
        instance = second
        expect(second.server.baseUrl).toBe(first.server.baseUrl)
        await agentSays(second.server, projectId, ticketId, during)
        release()

        await expect.poll(() => countOf(page, during), { timeout: 45_000 }).toBe(1)
        await page.unroute("**/v1/tickets/*/events")
        expect(await reconnecting.isHidden(), "back up").toBe(true)

        // the stream that came back resumed where the first one stopped
        const after = session.requests.filter(isStream).slice(streamsBefore)
        const answered: Array<Request> = []
        for (const r of after) if ((await r.response().catch(() => null))?.status() === 200) answered.push(r)
        expect(answered, "one stream to the new instance").toHaveLength(1)
        expect(held, "it was held until the reply was in").toContain(answered[0])
        expect((await answered[0]!.allHeaders())["last-event-id"]).toBe(lastEventId)
        expect(pathOf(answered[0]!)).toBe(`/v1/tickets/${ticketId}/events`)
        // replayed by the stream, not re-read
        expect(session.requests.filter(isRead).length - readsBefore, "no GET of the ticket since the stop").toBe(0)

        // nothing lost, nothing twice; also a moment later
        await page.waitForTimeout(1_500)
        expect(await messageTexts(page)).toEqual([opening, before, lastBefore, during])
        expect(session.pageErrors).toEqual([])
      })
      // the new instance has the conversation, on the same database
      const ticket = await ok(instance!.server, "GET", `/v1/admin/projects/${projectId}/tickets`, { key: adminToken })
      expect(JSON.stringify(ticket)).toContain(`Restart ${word}`)
    }, 150_000)
  })

  describe("a visitor's budget of 5 requests a minute", () => {
    const database = keptDatabase()
    let instance: Instance | undefined
    beforeAll(async () => {
      instance = await startInstance(await database.open(), { WIDGET_VISITOR_RATE_LIMIT_PER_MINUTE: "5" })
    })
    afterAll(async () => {
      await instance?.stop()
      await database.close()
    })

    it("one verified visitor flooding gets 429 and 'Try again in N s.'; another visitor files a ticket meanwhile", async () => {
      const { server } = instance!
      const { projectId, widgetKey } = await project(server, "flood")
      const secret = await identitySecret(server, projectId)
      const word = uniqueWord()
      await withPage(suite.browser, {}, async (flooder) => {
        const { page } = flooder
        await page.goto(pageOf(server, widgetKey, { identityToken: await visitorToken(secret, "flood-1") }))
        await openPanel(page)
        // "Your requests", again and again, as a visitor who keeps reloading it
        let refused: Request | undefined
        for (let i = 0; i < 12 && refused === undefined; i++) {
          await openRequests(flooder)
          const last = flooder.requests.filter(isList).at(-1)!
          if ((await last.response())!.status() === 429) refused = last
          else await widget(page, "requests-back").click()
        }
        expect(refused, "refused within 12 lists").toBeDefined()
        const listsBeforeRefusal = flooder.requests.filter(isList).length - 1
        expect(listsBeforeRefusal, "the budget is the visitor's 5, not the key's").toBeLessThanOrEqual(5)
        const retryAfter = (await refused!.response())!.headers()["retry-after"]
        expect(retryAfter).toMatch(/^\d+$/)
        expect(await widget(page, "requests-error").textContent()).toBe(`Too many requests. Try again in ${Number(retryAfter)} s.`)
        // no retrying by itself
        const count = flooder.requests.length
        await page.waitForTimeout(3_000)
        expect(flooder.requests.slice(count).map((r) => `${r.method()} ${pathOf(r)}`)).toEqual([])

        // the other visitor, in another profile from the same address, is not refused
        await withPage(suite.browser, {}, async (other) => {
          await other.page.goto(pageOf(server, widgetKey, { identityToken: await visitorToken(secret, "flood-2") }))
          const { ticketId, number } = await fileThroughWidget(other, `Not refused ${word}`, `Opening ${word}`)
          expect(await widget(other.page, "conversation-title").textContent()).toBe(`#${number} Not refused ${word}`)
          await expect.poll(() => messageTexts(other.page)).toEqual([`Opening ${word}`])
          await idle(other.page, other.requests, () => true)
          const statuses = await Promise.all(other.requests.map(async (r) => (await r.response().catch(() => null))?.status()))
          expect(statuses.filter((s) => s === 429), "no 429 for the second visitor").toEqual([])
          expect(await widget(other.page, "reply-error").textContent()).toBe("")
          const ticket = await ok(server, "GET", `/v1/admin/projects/${projectId}/tickets/${ticketId}`, { key: adminToken })
          expect(ticket.subject).toBe(`Not refused ${word}`)
        })

        // and the first visitor is still held back
        await widget(page, "requests-back").click()
        await openRequests(flooder)
        expect((await flooder.requests.filter(isList).at(-1)!.response())!.status()).toBe(429)
        expect(await widget(page, "requests-error").textContent()).toMatch(/^Too many requests\. Try again in \d+ s\.$/)
      })
    }, 90_000)
  })
})
