import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** Uploads `content` as a browser's form does; the raw answer. */
const upload = (server: TestServerShape, key: string, content: Uint8Array, name: string, type: string, path = "/v1/uploads") =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("file", new Blob([content as Uint8Array<ArrayBuffer>], { type }), name)
    const response = await fetch(`${server.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: form
    })
    return { status: response.status, body: await response.json() as any }
  })

const download = (server: TestServerShape, key: string, url: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(`${server.baseUrl}${url}`, { headers: { authorization: `Bearer ${key}`, ...headers } })
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
  })

describe.each(databaseKinds)("attachments on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "1000", ATTACHMENT_MAX_BYTES: "300KiB" }), { excludeTestServices: true })((it) => {
    it.effect("an uploaded file named by a create and a message round-trips byte for byte, listed in the read", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const screenshot = new Uint8Array(randomBytes(200 * 1024))
        const uploaded = yield* upload(server, key, screenshot, "screen shot é.png", "image/png")
        expect(uploaded.status).toBe(201)
        expect(uploaded.body).toMatchObject({
          filename: "screen shot é.png",
          content_type: "image/png",
          size: screenshot.byteLength,
          sha256: sha256(screenshot)
        })
        const created = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key,
            body: { subject: "Broken page", body: "See the screenshot", attachment_ids: [uploaded.body.upload_id] }
          })
        )
        expect(created.status).toBe(202)
        const id = created.body.ticket_id
        const log = new TextEncoder().encode("line 1\nline 2\n")
        const logUpload = yield* upload(server, key, log, "app.log", "text/plain")
        const added = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${id}/messages`, {
            key,
            body: { body: "and the log", attachment_ids: [logUpload.body.upload_id] }
          })
        )
        expect(added.status).toBe(201)
        const read = yield* Effect.promise(() => server.request("GET", `/v1/tickets/${id}`, { key }))
        expect(read.body.attachments).toEqual([{
          id: uploaded.body.upload_id,
          filename: "screen shot é.png",
          content_type: "image/png",
          size: screenshot.byteLength,
          sha256: sha256(screenshot),
          url: `/v1/attachments/${uploaded.body.upload_id}`
        }])
        expect(read.body.messages[0].attachments.map((a: any) => a.filename)).toEqual(["app.log"])
        // the reply's event (webhooks, streams) names its files, so a live conversation shows them at once
        const sql = yield* SqlClient.SqlClient
        const [replied] = yield* sql<{ body: string }>`SELECT body FROM events WHERE ticket_id = ${id} AND kind = 'ticket_replied'`
        expect(JSON.parse(replied!.body).data.attachments).toEqual(read.body.messages[0].attachments)
        const got = yield* download(server, key, read.body.attachments[0].url)
        expect(got.status).toBe(200)
        expect(sha256(got.bytes)).toBe(sha256(screenshot))
        expect(got.headers.get("content-type")).toBe("image/png")
        expect(got.headers.get("content-disposition")).toBe(
          `attachment; filename="screen shot _.png"; filename*=UTF-8''screen%20shot%20%C3%A9.png`
        )
        expect(got.headers.get("x-content-type-options")).toBe("nosniff")
        // the operator's read lists them too
        const adminRead = yield* Effect.promise(() =>
          server.request("GET", `/v1/admin/projects/${projectId}/tickets/${id}`, { key: adminToken })
        )
        expect(adminRead.body.attachments.map((a: any) => a.sha256)).toEqual([sha256(screenshot)])
        expect(adminRead.body.messages[0].attachments.map((a: any) => a.size)).toEqual([log.byteLength])
      }))

    it.effect("a hostile HTML or SVG file downloads as bytes in a sandbox and never renders", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* createProject(server)
        for (const [name, type, text] of [
          ["page.html", "text/html", "<script>alert(document.cookie)</script>"],
          ["image.svg", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`]
        ] as const) {
          const bytes = new TextEncoder().encode(text)
          const uploaded = yield* upload(server, key, bytes, name, type)
          expect(uploaded.body.content_type).toBe(type)
          const created = yield* Effect.promise(() =>
            server.request("POST", "/v1/tickets", { key, body: { subject: name, body: "x", attachment_ids: [uploaded.body.upload_id] } })
          )
          expect(created.status).toBe(202)
          const got = yield* download(server, key, `/v1/attachments/${uploaded.body.upload_id}`)
          expect(got.status).toBe(200)
          expect(got.headers.get("content-type")).toBe("application/octet-stream")
          expect(got.headers.get("content-disposition")).toMatch(/^attachment;/)
          expect(got.headers.get("content-security-policy")).toBe("sandbox")
          expect(got.headers.get("x-content-type-options")).toBe("nosniff")
          expect(new TextDecoder().decode(got.bytes)).toBe(text)
        }
      }))

    it.effect("another project's key, a widget key without the ticket's proof, and an unattached upload get 404 or 403", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const mine = yield* createProject(server, "mine")
        const theirs = yield* createProject(server, "theirs")
        const bytes = new Uint8Array(randomBytes(1000))
        const waiting = yield* upload(server, mine.widgetKey, bytes, "shot.png", "image/png")
        expect(waiting.status).toBe(201)
        // nobody downloads an upload before a ticket names it
        expect((yield* download(server, mine.key, `/v1/attachments/${waiting.body.upload_id}`)).status).toBe(404)
        const created = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key: mine.widgetKey,
            body: { subject: "From the widget", body: "x", attachment_ids: [waiting.body.upload_id] }
          })
        )
        expect(created.status).toBe(202)
        const url = `/v1/attachments/${waiting.body.upload_id}`
        expect((yield* download(server, theirs.key, url)).status).toBe(404)
        expect((yield* download(server, mine.widgetKey, url)).status).toBe(403)
        const other = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key: mine.widgetKey, body: { subject: "Other", body: "y" } })
        )
        expect((yield* download(server, mine.widgetKey, url, { "x-ticket-token": other.body.access_token })).status).toBe(404)
        const own = yield* download(server, mine.widgetKey, url, { "x-ticket-token": created.body.access_token })
        expect(own.status).toBe(200)
        expect(sha256(own.bytes)).toBe(sha256(bytes))
        expect((yield* download(server, mine.key, url)).status).toBe(200)
      }))

    it.effect("an internal note's file is the desk's: the public download is 404, the operator's is 200", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const created = yield* Effect.promise(() => server.request("POST", "/v1/tickets", { key, body: { subject: "s", body: "b" } }))
        const note = yield* upload(server, adminToken, new TextEncoder().encode("internal"), "note.txt", "text/plain", `/v1/admin/projects/${projectId}/uploads`)
        expect(note.status).toBe(201)
        const added = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/tickets/${created.body.ticket_id}/messages`, {
            key: adminToken,
            body: { body: "for the desk", internal: true, attachment_ids: [note.body.upload_id] }
          })
        )
        expect(added.status).toBe(201)
        expect((yield* download(server, key, `/v1/attachments/${note.body.upload_id}`)).status).toBe(404)
        const desk = yield* download(server, adminToken, `/v1/admin/projects/${projectId}/attachments/${note.body.upload_id}`)
        expect(desk.status).toBe(200)
        expect(new TextDecoder().decode(desk.bytes)).toBe("internal")
      }))

    it.effect("an upload older than a day can no longer be named", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const { key } = yield* createProject(server)
        const old = yield* upload(server, key, new Uint8Array([7]), "old.bin", "application/octet-stream")
        yield* sql`UPDATE attachments SET created_at = now() - interval '25 hours' WHERE id = ${old.body.upload_id}`
        const refused = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { subject: "x", body: "y", attachment_ids: [old.body.upload_id] } })
        )
        expect(refused.status).toBe(400)
        expect(refused.body.error.message).toContain(old.body.upload_id)
      }))

    it.effect("refuses a file over the limit, an unknown or spent upload id, and writes nothing then", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const sql = yield* SqlClient.SqlClient
        const tooLarge = yield* upload(server, key, new Uint8Array(301 * 1024), "big.bin", "application/octet-stream")
        expect(tooLarge.status).toBe(413)
        expect(tooLarge.body.error.code).toBe("PAYLOAD_TOO_LARGE")
        // a file just under the limit arrives whole: the form's parts are read to their end
        const nearLimit = new Uint8Array(randomBytes(299 * 1024))
        const whole = yield* upload(server, key, nearLimit, "near.bin", "application/octet-stream")
        expect(whole.body).toMatchObject({ size: nearLimit.byteLength, sha256: sha256(nearLimit) })
        const count = () =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM tickets WHERE project_id = ${projectId}`.pipe(
            Effect.map((rows) => rows[0]!.n)
          )
        const unknown = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key,
            body: { subject: "x", body: "y", attachment_ids: ["00000000-0000-4000-8000-000000000000"] }
          })
        )
        expect(unknown.status).toBe(400)
        expect(unknown.body.error.message).toContain("attachment_ids")
        expect(yield* count()).toBe(0)
        const file = yield* upload(server, key, new Uint8Array([1, 2, 3]), "a.bin", "application/octet-stream")
        const first = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { subject: "x", body: "y", attachment_ids: [file.body.upload_id] } })
        )
        expect(first.status).toBe(202)
        const again = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { subject: "x", body: "y", attachment_ids: [file.body.upload_id] } })
        )
        expect(again.status).toBe(400)
        expect(yield* count()).toBe(1)
        const notAForm = yield* Effect.promise(() =>
          server.request("POST", "/v1/uploads", { key, rawBody: "hello", headers: { "content-type": "text/plain" } })
        )
        expect(notAForm.status).toBe(415)
      }))
  })
})
