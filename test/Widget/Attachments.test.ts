/**
 * Files in the widget, in Chromium against the whole service on another origin: a screenshot
 * attached on the new-ticket form and on a reply (uploaded to /v1/uploads, then named in
 * `attachment_ids`), checked byte for byte through the API; an agent's file listed in the
 * conversation and downloaded with the ticket's token (fetch, then a blob URL with `download`,
 * since a plain link cannot send the header); the 10 MB limit kept before anything is sent; and
 * no axe-core violations with a file chosen or listed.
 */
import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { readFile } from "node:fs/promises"
import { crc32, deflateSync } from "node:zlib"
import type { Request } from "playwright-core"
import { expect } from "vitest"
import { describeNeeding } from "../support/Requires.ts"
import { adminToken, type TestServerShape, testServer } from "../support/TestServer.ts"
import {
  axeViolations,
  browserTestOf,
  chromiumSuite,
  chromiumSuiteMissing,
  decodePng,
  fillForm,
  focusOf,
  hostPage,
  openPanel,
  type Session,
  widget,
  withPage
} from "./Harness.ts"

const missing = await chromiumSuiteMissing()

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const pngChunk = (type: string, data: Buffer) => {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, "latin1"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** A real PNG of `width`×`height` RGBA noise (so it does not compress to nothing). */
const noisePng = (width: number, height: number) => {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 6 // RGBA
  const rows = Buffer.concat(Array.from({ length: height }, () => Buffer.concat([Buffer.from([0]), randomBytes(width * 4)])))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(rows)),
    pngChunk("IEND", Buffer.alloc(0))
  ])
}

/** How the widget shows a size: whole KB below 1 MB. */
const kb = (bytes: number) => `${Math.ceil(bytes / 1024)} KB`

const uniqueWord = () => `zq${Math.random().toString(36).slice(2, 10).replace(/\d/g, "x")}`

const config = (server: TestServerShape, key: string) => ({ projectKey: key, baseUrl: server.baseUrl })

const pathOf = (request: Request) => new URL(request.url()).pathname
const isUpload = (request: Request) => request.method() === "POST" && pathOf(request) === "/v1/uploads"

/** Fills the form, submits it and waits for the new conversation; the create's request and answer. */
const fileThroughWidget = async (session: Session, subject: string, message: string) => {
  const { page } = session
  await fillForm(page, { name: "Vi Sitor", email: "vi@example.com", subject, message })
  await widget(page, "submit").click()
  await expect.poll(async () => (await focusOf(page)).widgetTestId, { timeout: 20_000 }).toBe("conversation-title")
  const post = session.requests.find((r) => r.method() === "POST" && pathOf(r) === "/v1/tickets")!
  return { post, created: await (await post.response())!.json() as { ticket_id: string; access_token: string } }
}

/** Uploads `content` with a key, as the service's other clients do; the upload. */
const uploadWithKey = async (server: TestServerShape, key: string, content: Uint8Array, name: string, type: string) => {
  const form = new FormData()
  form.append("file", new Blob([content as Uint8Array<ArrayBuffer>], { type }), name)
  const response = await fetch(`${server.baseUrl}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })
  expect(response.status).toBe(201)
  return await response.json() as { upload_id: string; sha256: string }
}

const downloadWithKey = async (server: TestServerShape, key: string, url: string) => {
  const response = await fetch(`${server.baseUrl}${url}`, { headers: { authorization: `Bearer ${key}` } })
  expect(response.status).toBe(200)
  return new Uint8Array(await response.arrayBuffer())
}

describeNeeding(missing, "widget attachments, in Chromium", () => {
  const suite = chromiumSuite()

  layer(testServer("pglite", {}, undefined), { excludeTestServices: true })((it) => {
    const browserTest = browserTestOf(it, 90_000)

    browserTest("a PNG attached on the new-ticket form is uploaded, named by the ticket, and the API has the same sha256", async (server, { widgetKey, key }) => {
      const png = noisePng(96, 64)
      const word = uniqueWord()
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) })))
        expect((await decodePng(page, png)).length, "a PNG the browser decodes").toBe(96 * 64 * 4)
        await openPanel(page)

        // a file input, named by its visible label "Attach a file"
        const input = widget(page, "ticket-file")
        expect(await input.getAttribute("type")).toBe("file")
        expect(await input.getAttribute("accept")).toContain("image/*")
        const label = page.locator("#support-widget-host label[for=sw-ticket-file]")
        expect(await label.textContent()).toBe("Attach a file")
        expect(await label.isVisible()).toBe(true)
        expect(await page.getByLabel("Attach a file", { exact: true }).and(input).count(), "the input's name is its label").toBe(1)

        await input.setInputFiles({ name: "screenshot.png", mimeType: "image/png", buffer: png })
        await expect.poll(() => widget(page, "ticket-file-name").textContent()).toBe(`screenshot.png (${kb(png.length)})`)
        expect(await widget(page, "ticket-file-remove").isVisible()).toBe(true)
        expect(await widget(page, "ticket-file-remove").getAttribute("aria-label")).toBe("Remove screenshot.png")
        await fillForm(page, { subject: `Screenshot ${word}`, message: "The page looks like this" })
        expect(await axeViolations(page), "axe with a file chosen").toEqual([])

        const { post, created } = await fileThroughWidget(session, `Screenshot ${word}`, "The page looks like this")
        // uploaded first, then named by the create
        const uploads = session.requests.filter(isUpload)
        expect(uploads).toHaveLength(1)
        expect(session.requests.indexOf(uploads[0]!)).toBeLessThan(session.requests.indexOf(post))
        expect((await uploads[0]!.allHeaders())["content-type"]).toMatch(/^multipart\/form-data; boundary=/)
        const upload = await (await uploads[0]!.response())!.json()
        expect(upload).toMatchObject({ filename: "screenshot.png", content_type: "image/png", size: png.length, sha256: sha256(png) })
        expect(post.postDataJSON()).toMatchObject({ subject: `Screenshot ${word}`, attachment_ids: [upload.upload_id] })

        // through the API: the ticket's file is the chosen one, byte for byte
        const read = await server.request("GET", `/v1/tickets/${created.ticket_id}`, { key })
        expect(read.status).toBe(200)
        expect(read.body.attachments).toEqual([{
          id: upload.upload_id,
          filename: "screenshot.png",
          content_type: "image/png",
          size: png.length,
          sha256: sha256(png),
          url: `/v1/attachments/${upload.upload_id}`
        }])
        expect(sha256(await downloadWithKey(server, key, read.body.attachments[0].url))).toBe(sha256(png))

        // the opening message of the new conversation lists it; the form's file is cleared for the next ticket
        const opening = widget(page, "message").first()
        expect(await opening.locator("[data-testid=attachment]").textContent()).toBe(`Download screenshot.png (${kb(png.length)})`)
        expect(await input.evaluate((el) => (el as HTMLInputElement).files!.length)).toBe(0)
        expect(await widget(page, "ticket-file-remove").isHidden()).toBe(true)
        expect(session.pageErrors).toEqual([])
      })
    })

    browserTest("an agent's reply with a file is listed in the conversation and downloads, with the ticket token, with the same bytes", async (server, { widgetKey, key, projectId }) => {
      const word = uniqueWord()
      const report = new Uint8Array(randomBytes(150 * 1024))
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) })))
        await openPanel(page)
        const { created } = await fileThroughWidget(session, `Invoice ${word}`, "Where is my invoice?")

        const { upload_id } = await uploadWithKey(server, key, report, "invoice é.pdf", "application/pdf")
        await Effect.runPromise(Effect.flatMap(server.api(adminToken), (api) =>
          api.admin.addAgentMessage({
            params: { pid: projectId, id: created.ticket_id },
            payload: { body: `Here it is ${word}`, attachment_ids: [upload_id] }
          })))
        await expect.poll(() => widget(page, "messages").textContent(), { timeout: 10_000 }).toContain(`Here it is ${word}`)

        // the stream's event brings the reply's text; the conversation's read brings its files
        await widget(page, "conversation-back").click()
        await widget(page, "request").click()
        const file = widget(page, "message").last().locator("[data-testid=attachment]")
        await expect.poll(() => file.count(), { timeout: 10_000 }).toBe(1)
        expect(await file.textContent()).toBe(`Download invoice é.pdf (${kb(report.length)})`)
        expect(await file.evaluate((el) => el.tagName)).toBe("BUTTON")
        expect(await axeViolations(page), "axe with a file listed").toEqual([])

        const [download] = await Promise.all([page.waitForEvent("download"), file.click()])
        expect(download.suggestedFilename()).toBe("invoice é.pdf")
        const saved = await readFile((await download.path())!)
        expect(saved.length).toBe(report.length)
        expect(sha256(saved)).toBe(sha256(report))

        // fetched by the widget with its key and the ticket's token, from a blob URL
        const get = session.requests.find((r) => r.method() === "GET" && pathOf(r) === `/v1/attachments/${upload_id}`)!
        expect(get).toBeDefined()
        const headers = await get.allHeaders()
        expect(headers.authorization).toBe(`Bearer ${widgetKey}`)
        expect(headers["x-ticket-token"]).toBe(created.access_token)
        expect(download.url()).toMatch(/^blob:/)
        expect(session.pageErrors).toEqual([])
      })
    })

    browserTest("the reply box: a file over 10 MB is refused before anything is sent, a chosen one can be removed, and one sent is named by the message", async (server, { widgetKey, key }) => {
      const word = uniqueWord()
      await withPage(suite.browser, {}, async (session) => {
        const { page } = session
        await page.goto(suite.site.add(hostPage({ scriptFrom: server.baseUrl, config: config(server, widgetKey) })))
        await openPanel(page)
        const { created } = await fileThroughWidget(session, `Reply with a file ${word}`, "Opening")
        const input = widget(page, "reply-file")
        expect(await page.locator("#support-widget-host label[for=sw-reply-file]").textContent()).toBe("Attach a file")

        // over the limit: said at once, nothing chosen, nothing sent
        await input.setInputFiles({ name: "huge.mov", mimeType: "video/quicktime", buffer: Buffer.alloc(10 * 1024 * 1024 + 1) })
        await expect.poll(() => widget(page, "reply-file-error").textContent()).toBe("The file is too large: choose one of at most 10 MB.")
        expect(await widget(page, "reply-file-error").getAttribute("role")).toBe("alert")
        expect(await widget(page, "reply-file-name").isHidden()).toBe(true)
        expect(await input.evaluate((el) => (el as HTMLInputElement).files!.length)).toBe(0)

        // chosen, then removed: focus back on the input, the message gone
        await input.setInputFiles({ name: "wrong.txt", mimeType: "text/plain", buffer: Buffer.from("not this one") })
        await expect.poll(() => widget(page, "reply-file-name").textContent()).toBe("wrong.txt (1 KB)")
        expect(await widget(page, "reply-file-error").textContent()).toBe("")
        await widget(page, "reply-file-remove").click()
        expect(await widget(page, "reply-file-name").isHidden()).toBe(true)
        expect((await focusOf(page)).widgetTestId).toBe("reply-file")
        expect(session.requests.filter(isUpload)).toEqual([])

        // sent with a reply: uploaded, named by the message, listed under it
        const log = Buffer.from(`log of ${word}\n`.repeat(2000))
        await input.setInputFiles({ name: "console.log", mimeType: "text/plain", buffer: log })
        await widget(page, "reply").fill(`The log ${word}`)
        await widget(page, "reply-send").click()
        const isMessage = (r: Request) => r.method() === "POST" && pathOf(r) === `/v1/tickets/${created.ticket_id}/messages`
        await expect.poll(() => session.requests.filter(isMessage).length, { timeout: 10_000 }).toBe(1)
        const upload = await (await session.requests.filter(isUpload)[0]!.response())!.json()
        expect(session.requests.find(isMessage)!.postDataJSON()).toEqual({ body: `The log ${word}`, attachment_ids: [upload.upload_id] })
        const mine = widget(page, "message").last()
        await expect.poll(() => mine.locator("[data-testid=attachment]").textContent(), { timeout: 10_000 })
          .toBe(`Download console.log (${kb(log.length)})`)
        expect(await widget(page, "reply-file-name").isHidden(), "the reply box is empty again").toBe(true)

        const read = await server.request("GET", `/v1/tickets/${created.ticket_id}`, { key })
        const [message] = read.body.messages
        expect(message.body).toBe(`The log ${word}`)
        expect(message.attachments.map((a: any) => [a.filename, a.size, a.sha256])).toEqual([["console.log", log.length, sha256(log)]])
        expect(sha256(await downloadWithKey(server, key, message.attachments[0].url))).toBe(sha256(log))
        expect(session.pageErrors).toEqual([])
      })
    })
  })
})
