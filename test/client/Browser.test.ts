// The client unchanged in a browser (Debian's Chromium through playwright-core): bundled from
// src/client as a page would load it, on another origin than the service, so every call goes
// through CORS. PGlite only: what is under test is the browser side.
import type { Effect } from "effect"
import { build } from "esbuild"
import { createHmac } from "node:crypto"
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { chromiumPath, type HostSite, startHostSite } from "../Widget/Harness.ts"
import { describeNeeding } from "../support/Requires.ts"
import { type createProject, startTestServer } from "../support/TestServer.ts"

const missing = existsSync(chromiumPath)
  ? undefined
  : `no Chromium at ${chromiumPath} (CI installs Debian's chromium package)`

describeNeeding(missing, "the client in Chromium", () => {
  let browser: Browser
  let site: HostSite
  let service: Awaited<ReturnType<typeof startTestServer>>
  let project: Effect.Success<ReturnType<typeof createProject>>
  let bundle: string

  beforeAll(async () => {
    const built = await build({
      entryPoints: ["src/client/index.ts"],
      bundle: true,
      format: "iife",
      globalName: "SupportClient",
      target: "es2020",
      write: false,
      logLevel: "silent"
    })
    bundle = built.outputFiles[0]!.text
    browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] })
    site = await startHostSite()
    service = await startTestServer("pglite")
    project = await service.createProject("Browser")
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await site?.close()
    await service?.close()
  })

  it("every method works from another origin, errors are typed, and webhooks verify with the page's WebCrypto", async () => {
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      const problems: Array<string> = []
      page.on("console", (message) => message.type() === "error" && problems.push(message.text()))
      page.on("pageerror", (error) => problems.push(error.message))
      await page.goto(site.add(`<!doctype html><title>client</title><script>${bundle.replace(/<\/script/gi, "<\\/script")}</script>`))
      expect(new URL(page.url()).origin).not.toBe(new URL(service.baseUrl).origin)

      const secret = "whsec_browser_test_secret"
      const body = JSON.stringify({
        event: "ticket_created",
        timestamp: "2026-11-22T10:00:00.000Z",
        data: { id: "t", project_id: "p", subject: "From a browser", status: "open", priority: "p3_medium", sender_email: null, created_at: "2026-11-22T10:00:00.000Z" }
      })
      const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

      const seen = await page.evaluate(
        async ({ baseUrl, widgetKey, fullKey, secret, body, signature }) => {
          const { ApiError, createClient, verifyWebhook } = (window as any).SupportClient
          const visitor = createClient({ apiKey: widgetKey, baseUrl })
          const agent = createClient({ apiKey: fullKey, baseUrl })
          const health = await visitor.health()
          const created = await visitor.createTicket({ subject: "Browser ticket", body: "Sent from a page", sender_email: "page@example.com", source: "widget" })
          const ticketToken = created.access_token
          const added = await visitor.addMessage(created.ticket_id, { body: "And a follow-up", contact_email: "page@example.com" }, { ticketToken })
          const ticket = await visitor.getTicket(created.ticket_id, { contactEmail: "page@example.com", ticketToken })
          // the ticket's stream from its start, through CORS (Last-Event-ID, X-Ticket-Token) and a streamed fetch body
          const stream = visitor.streamTicketEvents(created.ticket_id, { ticketToken, lastEventId: "0" })
          const streamed = (await stream.next()).value
          await stream.return()
          const articles = await visitor.searchArticles("browser", { limit: 3 })
          const found = await agent.search("browser", { types: ["tickets"] })
          let refused: unknown
          try {
            await visitor.search("browser")
          } catch (error: any) {
            refused = { isApiError: error instanceof ApiError, status: error.status, code: error.code, requestId: error.requestId }
          }
          const event = await verifyWebhook({ secret, body, signature })
          let tampered: unknown
          try {
            await verifyWebhook({ secret, body: body.replace("From a", "From no"), signature })
          } catch (error: any) {
            tampered = error.name
          }
          return {
            health: health.status,
            created,
            added,
            ticket: { subject: ticket.subject, messages: ticket.messages.map((m: any) => m.body) },
            streamed: { event: streamed.event, messageId: streamed.data.data.message_id, id: streamed.id },
            articles: articles.total,
            found: found.results.map((r: any) => r.id),
            refused,
            event: event.data.subject,
            tampered
          }
        },
        { baseUrl: service.baseUrl, widgetKey: project.widgetKey, fullKey: project.key, secret, body, signature }
      )

      expect(seen).toMatchObject({
        health: "ok",
        added: { message_id: expect.any(String) },
        ticket: { subject: "Browser ticket", messages: ["And a follow-up"] },
        streamed: { event: "ticket_replied", id: expect.stringMatching(/^\d+$/) },
        articles: 0,
        refused: { isApiError: true, status: 403, code: "FORBIDDEN", requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
        event: "From a browser",
        tampered: "WebhookVerificationError"
      })
      expect(seen.found).toEqual([seen.created.ticket_id])
      expect(seen.streamed.messageId).toBe(seen.added.message_id)
      // the 403 above is logged by the browser as a failed resource; nothing else may be
      expect(problems.filter((p) => !p.includes("403"))).toEqual([])
    } finally {
      await context.close()
    }
  })

  it("uploads a File through CORS, and downloads it with the ticket token: the same bytes, the attachment's name", async () => {
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      const problems: Array<string> = []
      page.on("pageerror", (error) => problems.push(error.message))
      await page.goto(site.add(`<!doctype html><title>client</title><script>${bundle.replace(/<\/script/gi, "<\\/script")}</script>`))
      const seen = await page.evaluate(async ({ baseUrl, widgetKey }) => {
        const { createClient } = (window as any).SupportClient
        const hex = async (bytes: Uint8Array) =>
          Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)), (b) => b.toString(16).padStart(2, "0")).join("")
        const bytes = new Uint8Array(200 * 1024)
        for (let at = 0; at < bytes.length; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536))
        const visitor = createClient({ apiKey: widgetKey, baseUrl })
        const upload = await visitor.uploadFile(new File([bytes], "picked.png", { type: "image/png" }), { filename: "picked.png" })
        const created = await visitor.createTicket({ subject: "With a file", body: "x", attachment_ids: [upload.upload_id] })
        const ticket = await visitor.getTicket(created.ticket_id, { ticketToken: created.access_token })
        const got = await visitor.downloadAttachment(ticket.attachments[0], { ticketToken: created.access_token })
        return {
          sent: await hex(bytes),
          uploaded: upload.sha256,
          listed: ticket.attachments[0].sha256,
          got: await hex(got.bytes),
          filename: got.filename,
          contentType: got.contentType
        }
      }, { baseUrl: service.baseUrl, widgetKey: project.widgetKey })
      expect(seen).toEqual({
        sent: seen.sent,
        uploaded: seen.sent,
        listed: seen.sent,
        got: seen.sent,
        filename: "picked.png",
        contentType: "image/png"
      })
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})
