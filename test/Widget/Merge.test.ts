/**
 * A ticket the widget filed is merged into another: in Chromium against the whole service, the
 * widget reads the filed ticket, learns where it went (`merged_into_id`), and switches to that
 * ticket with the secret it holds, showing its conversation and sending replies there.
 */
import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { expect } from "vitest"
import { createTicket } from "../support/Calls.ts"
import { describeNeeding } from "../support/Requires.ts"
import { adminToken, testServer } from "../support/TestServer.ts"
import {
  browserTestOf,
  chromiumSuite,
  chromiumSuiteMissing,
  fillForm,
  focusOf,
  hostPage,
  openPanel,
  widget,
  withPage
} from "./Harness.ts"

const missing = await chromiumSuiteMissing()

describeNeeding(missing, "widget following a merged ticket, in Chromium", () => {
  const suite = chromiumSuite()

  layer(testServer("pglite", {}, undefined), { excludeTestServices: true })((it) => {
    const browserTest = browserTestOf(it, 90_000)

    browserTest("a merged request opens as the ticket it went into, and a reply lands there", async (server, { key, projectId, widgetKey }) => {
      const url = suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: { projectKey: widgetKey, baseUrl: server.baseUrl } }))
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(url)
        await openPanel(page)
        await fillForm(page, { name: "Vi Sitor", email: "vi@example.com", subject: "Export broken", message: "Cannot export since Monday" })
        await widget(page, "submit").click()
        await expect.poll(async () => (await focusOf(page)).widgetTestId, { timeout: 20_000 }).toBe("conversation-title")
        const post = session.requests.find((r) => r.method() === "POST" && new URL(r.url()).pathname === "/v1/tickets")!
        const filed = await (await post.response())!.json()

        const kept = await Effect.runPromise(createTicket(server, key, { subject: "Invoices do not export", body: "Spins forever" }))
        await server.request("POST", `/v1/admin/projects/${projectId}/tickets/${kept.ticket_id}/messages`, {
          key: adminToken,
          body: { body: "We are fixing the export" }
        })
        const merged = await server.request("POST", `/v1/admin/projects/${projectId}/tickets/${filed.ticket_id}/merge`, {
          key: adminToken,
          body: { into_id: kept.ticket_id }
        })
        expect(merged.status).toBe(200)

        // the next visit: the stored request is read, found merged, and followed
        await page.reload()
        await openPanel(page)
        await widget(page, "requests-entry").click()
        await widget(page, "request").first().click()
        await expect.poll(() => widget(page, "conversation-title").textContent(), { timeout: 10_000 })
          .toBe(`#${kept.ticket_number} Invoices do not export`)
        await expect.poll(() => widget(page, "messages").textContent()).toContain("We are fixing the export")
        expect(await widget(page, "messages").textContent()).toContain("Cannot export since Monday")
        const stored = await page.evaluate(() => JSON.stringify(Object.entries(localStorage)))
        expect(stored).toContain(kept.ticket_id)
        expect(stored).not.toContain(filed.ticket_id)

        await widget(page, "reply").fill("Thanks, waiting")
        await widget(page, "reply-send").click()
        await expect.poll(async () => {
          const read = await server.request("GET", `/v1/admin/projects/${projectId}/tickets/${kept.ticket_id}`, { key: adminToken })
          return read.body.messages.at(-1).body
        }, { timeout: 10_000 }).toBe("Thanks, waiting")
        expect(session.pageErrors).toEqual([])
      })
    })
  })
})
