/**
 * The widget's side of satisfaction ratings, in Chromium against the whole service (its pipeline
 * running, so resolving the ticket makes the request): the rating's buttons on a resolved ticket
 * that was asked, then thanks, and the rating recorded once.
 */
import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { expect } from "vitest"
import { adminRead, updateTicket } from "../support/Calls.ts"
import { describeNeeding } from "../support/Requires.ts"
import { testServer } from "../support/TestServer.ts"
import { browserTestOf, chromiumSuite, chromiumSuiteMissing, fillForm, focusOf, hostPage, openPanel, widget, withPage } from "./Harness.ts"

const missing = await chromiumSuiteMissing()

describeNeeding(missing, "widget rating, in Chromium", () => {
  const suite = chromiumSuite()

  layer(testServer("pglite", {}, undefined, { pipeline: "live" }), { excludeTestServices: true })((it) => {
    const browserTest = browserTestOf(it, 90_000)

    browserTest("a resolved ticket that was asked shows the rating's buttons; a click records it and says thanks", async (server, { widgetKey, projectId }) => {
      const url = suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: { projectKey: widgetKey, baseUrl: server.baseUrl } }))
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(url)
        await openPanel(page)
        await fillForm(page, { name: "Ra Ter", email: "rater@example.com", subject: "Rate the widget", message: "Please help" })
        await widget(page, "submit").click()
        await expect.poll(async () => (await focusOf(page)).widgetTestId, { timeout: 20_000 }).toBe("conversation-title")
        const post = session.requests.find((r) => r.method() === "POST" && new URL(r.url()).pathname === "/v1/tickets")!
        const ticketId: string = (await (await post.response())!.json()).ticket_id
        expect(await widget(page, "rating").isHidden(), "not asked before it is resolved").toBe(true)

        await Effect.runPromise(Effect.orDie(updateTicket(server, projectId, ticketId, { status: "resolved" })))
        await expect.poll(async () => (await Effect.runPromise(adminRead(server, projectId, ticketId))).satisfaction !== null, {
          timeout: 20_000
        }).toBe(true)

        // opened again, the conversation reads the ticket afresh
        await page.reload()
        await openPanel(page)
        await widget(page, "requests-entry").click()
        await widget(page, "request-list").locator("button").first().click()
        const rating = widget(page, "rating")
        await expect.poll(() => rating.locator("button").count(), { timeout: 10_000 }).toBe(5)
        expect(await rating.textContent()).toContain("How did we do?")
        await rating.locator("button", { hasText: "4" }).click()
        await expect.poll(() => rating.textContent(), { timeout: 10_000 }).toBe("Thanks for your rating!")
        const read = await Effect.runPromise(adminRead(server, projectId, ticketId))
        expect(read.satisfaction).toMatchObject({ rating: 4 })
        expect(session.pageErrors).toEqual([])
      })
    })
  })
})
