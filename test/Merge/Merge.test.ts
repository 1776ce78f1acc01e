/**
 * Merging a ticket into another, through the server on both databases: the conversation moves in
 * time order with its files, tags and links; the source closes and points at the target, for the
 * operator and for the widget that filed it; messages to the source land on the target; one
 * `ticket_merged` reaches an endpoint that takes every event; refusals change nothing.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import { adminRead, agentMessage, contactMessage, createTicket, settled } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { startStub } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const upload = (server: TestServerShape, key: string, content: Uint8Array, name: string, path = "/v1/uploads") =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("file", new Blob([content as Uint8Array<ArrayBuffer>], { type: "application/octet-stream" }), name)
    const response = await fetch(`${server.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: form
    })
    const body = await response.json() as { upload_id: string }
    expect(response.status).toBe(201)
    return body.upload_id
  })

const download = (server: TestServerShape, key: string, url: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(`${server.baseUrl}${url}`, { headers: { authorization: `Bearer ${key}`, ...headers } })
    return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) }
  })

const merge = (server: TestServerShape, projectId: string, ticketId: string, body: unknown) =>
  Effect.promise(() =>
    server.request("POST", `/v1/admin/projects/${projectId}/tickets/${ticketId}/merge`, { key: adminToken, body })
  )

/** The public read as a widget key sends it, with a ticket's secret. */
const widgetRead = (server: TestServerShape, widgetKey: string, ticketId: string, token: string) =>
  Effect.promise(() => server.request("GET", `/v1/tickets/${ticketId}`, { key: widgetKey, headers: { "x-ticket-token": token } }))

const setLinks = (ticketId: string, links: ReadonlyArray<{ readonly id: string }>) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql`UPDATE tickets SET linked_issues = ${
      JSON.stringify(links.map((link) => ({
        provider: "sentry",
        id: link.id,
        short_id: null,
        title: null,
        url: `https://sentry.test/issues/${link.id}/`,
        matched_by: "issue_url"
      })))
    }::jsonb WHERE id = ${ticketId}`).pipe(Effect.orDie)

const mail = (headers: Record<string, string>, text: string) =>
  new TextEncoder().encode(
    Object.entries({ Date: "Sun, 29 Nov 2026 10:00:00 +0000", "Content-Type": "text/plain; charset=utf-8", ...headers })
      .map(([name, value]) => `${name}: ${value}\r\n`).join("") + `\r\n${text}\r\n`
  )

const postMail = (server: TestServerShape, key: string, raw: Uint8Array) =>
  Effect.promise(async () => {
    const response = await fetch(`${server.baseUrl}/v1/inbound/mail`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "message/rfc822" },
      body: raw as Uint8Array<ArrayBuffer>
    })
    return { status: response.status, body: await response.json() as any }
  })

describe.each(databaseKinds)("merging tickets on %s", (kind) => {
  const service = testServer(kind, {
    RATE_LIMIT_PER_MINUTE: "10000",
    // the webhook receiver is on loopback, which a PostgreSQL server's service refuses by default
    WEBHOOK_ALLOW_PRIVATE_TARGETS: "true"
  }, undefined, { pipeline: "live" })

  layer(service, { excludeTestServices: true })((it) => {
    it.effect("moves every message in time order with its files, unions tags and links, and closes the source with a pointer", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId, widgetKey } = yield* createProject(server)
        const receiver = yield* Effect.acquireRelease(Effect.promise(() => startStub()), (stub) => Effect.promise(() => stub.close()))
        const hook = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/webhooks`, { key: adminToken, body: { url: `${receiver.url}/hook` } })
        )
        expect(hook.status).toBe(201)

        const targetFile = new Uint8Array(randomBytes(2048))
        const target = yield* createTicket(server, key, {
          subject: "Invoices do not export",
          body: "The export button spins forever.",
          sender_email: "ada@example.com",
          tags: ["billing"],
          attachment_ids: [yield* upload(server, key, targetFile, "target.log")]
        })
        const openingFile = new Uint8Array(randomBytes(4096))
        const source = yield* createTicket(server, key, {
          subject: "Export broken",
          body: "Cannot export my invoices since Monday.",
          sender_email: "bo@example.com",
          tags: ["Billing", "urgent"],
          attachment_ids: [yield* upload(server, key, openingFile, "opening.png")]
        })
        expect((yield* contactMessage(server, key, target.ticket_id, "t1: still spinning", "ada@example.com")).status).toBe(201)
        const replyFile = new Uint8Array(randomBytes(1024))
        const replyUpload = yield* upload(server, adminToken, replyFile, "reply.pdf", `/v1/admin/projects/${projectId}/uploads`)
        const reply = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/tickets/${source.ticket_id}/messages`, {
            key: adminToken,
            body: { body: "s1: we are looking into it", attachment_ids: [replyUpload] }
          })
        )
        expect(reply.status).toBe(201)
        expect((yield* agentMessage(server, projectId, source.ticket_id, "s2: note for the desk", true)).status).toBe(201)
        expect((yield* contactMessage(server, key, target.ticket_id, "t2: any news?", "ada@example.com")).status).toBe(201)
        yield* setLinks(target.ticket_id, [{ id: "11" }])
        yield* setLinks(source.ticket_id, [{ id: "11" }, { id: "22" }])
        yield* settled(source.ticket_id)
        yield* settled(target.ticket_id)

        const merged = yield* merge(server, projectId, source.ticket_id, { into_id: target.ticket_id })
        expect(merged.status).toBe(200)
        const read = merged.body
        expect(read.ticket_id).toBe(target.ticket_id)
        expect(read.merged_into_id).toBeNull()
        expect(read.messages.map((m: any) => [m.author_type, m.internal, m.body])).toEqual([
          ["contact", false, "Export broken\n\nCannot export my invoices since Monday."],
          ["contact", false, "t1: still spinning"],
          ["agent", false, "s1: we are looking into it"],
          ["agent", true, "s2: note for the desk"],
          ["contact", false, "t2: any news?"],
          ["system", false, `Ticket #${source.ticket_number} “Export broken” was merged into this ticket.`]
        ])
        const times = read.messages.map((m: any) => m.created_at)
        expect([...times].sort()).toEqual(times)
        const sourceRead = yield* Effect.promise(() =>
          server.request("GET", `/v1/tickets/${source.ticket_id}`, { key })
        )
        // the opening message keeps the time the source was filed
        expect(read.messages[0].created_at).toBe(sourceRead.body.created_at)
        expect(read.tags).toEqual(["billing", "urgent"])
        expect(read.linked_issues.map((issue: any) => issue.id)).toEqual(["11", "22"])
        expect(read.merge_suggestion).toBeNull()

        // every file is the target's now, and downloads as it was uploaded
        const files = [
          ...read.attachments.map((file: any) => ["opening", file]),
          ...read.messages.flatMap((m: any) => m.attachments.map((file: any) => [m.body.slice(0, 2), file]))
        ]
        expect(files.map(([where, file]: any) => [where, file.filename])).toEqual([
          ["opening", "target.log"],
          ["Ex", "opening.png"],
          ["s1", "reply.pdf"]
        ])
        const bytes = [targetFile, openingFile, replyFile]
        for (const [i, [, file]] of files.entries()) {
          expect(file.sha256).toBe(sha256(bytes[i]!))
          const got = yield* download(server, key, file.url)
          expect(got.status).toBe(200)
          expect(sha256(got.bytes)).toBe(file.sha256)
        }

        // the source: closed, emptied, pointing at the target, for the operator and for the key
        const sourceAdmin = yield* adminRead(server, projectId, source.ticket_id)
        expect(sourceAdmin).toMatchObject({ status: "closed", merged_into_id: target.ticket_id, messages: [], attachments: [] })
        expect(sourceRead.body).toMatchObject({ status: "closed", merged_into_id: target.ticket_id, messages: [], attachments: [] })
        const sourceToken = source.access_token
        const byWidget = yield* widgetRead(server, widgetKey, source.ticket_id, sourceToken)
        expect(byWidget.status).toBe(200)
        expect(byWidget.body.merged_into_id).toBe(target.ticket_id)
        // the widget that filed the source follows it with the source's secret, and sees no notes
        const followed = yield* widgetRead(server, widgetKey, target.ticket_id, sourceToken)
        expect(followed.status).toBe(200)
        expect(followed.body.messages.map((m: any) => m.body)).not.toContain("s2: note for the desk")
        expect(followed.body.messages).toHaveLength(5)
        const file = yield* download(server, widgetKey, followed.body.messages[0].attachments[0].url, { "x-ticket-token": sourceToken })
        expect(sha256(file.bytes)).toBe(sha256(openingFile))
        // a secret of an unrelated ticket still reaches nothing
        const stranger = yield* createTicket(server, key, { subject: "Something else", body: "Unrelated" })
        expect((yield* widgetRead(server, widgetKey, target.ticket_id, stranger.access_token)).status).toBe(404)

        // messages to the source land on the target; the source stays empty
        expect((yield* contactMessage(server, key, source.ticket_id, "t3: sent to the old ticket", "bo@example.com")).status).toBe(201)
        const answered = yield* Effect.promise(() =>
          server.request("POST", `/v1/tickets/${target.ticket_id}/messages`, {
            key: widgetKey,
            headers: { "x-ticket-token": sourceToken },
            body: { body: "t4: from the widget of the old ticket" }
          })
        )
        expect(answered.status).toBe(201)
        const after = yield* adminRead(server, projectId, target.ticket_id)
        expect(after.messages.slice(-2).map((m) => [m.author_type, m.body])).toEqual([
          ["contact", "t3: sent to the old ticket"],
          ["contact", "t4: from the widget of the old ticket"]
        ])
        expect((yield* adminRead(server, projectId, source.ticket_id)).messages).toEqual([])

        // one ticket_merged reached the endpoint that takes every event, with the source's closing
        yield* settled(source.ticket_id)
        const events = receiver.requests.map((request) => JSON.parse(request.body))
        const mergedEvents = events.filter((body) => body.event === "ticket_merged")
        expect(mergedEvents.map((body) => body.data)).toEqual([{
          id: source.ticket_id,
          project_id: projectId,
          into_id: target.ticket_id,
          merged_at: sourceAdmin.updated_at
        }])
        expect(events.filter((body) => body.event === "ticket_status_changed" && body.data.id === source.ticket_id)
          .map((body) => [body.data.previous_status, body.data.status])).toEqual([["open", "closed"]])
      }))

    it.effect("refuses another project's ticket (404), the ticket itself (400), and a merged one (409), changing nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const other = yield* createProject(server, "Other project")
        const a = yield* createTicket(server, key, { subject: "First", body: "One" })
        const b = yield* createTicket(server, key, { subject: "Second", body: "Two" })
        const c = yield* createTicket(server, key, { subject: "Third", body: "Three" })
        const foreign = yield* createTicket(server, other.key, { subject: "Elsewhere", body: "Not yours" })
        for (const ticket of [a, b, c, foreign]) yield* settled(ticket.ticket_id)
        const snapshot = Effect.all([
          adminRead(server, projectId, a.ticket_id),
          adminRead(server, projectId, b.ticket_id),
          adminRead(server, projectId, c.ticket_id),
          adminRead(server, other.projectId, foreign.ticket_id)
        ])
        const before = yield* snapshot

        const refusals: ReadonlyArray<readonly [string, string, unknown, number, RegExp]> = [
          [projectId, a.ticket_id, { into_id: foreign.ticket_id }, 404, /^into_id names no ticket of this project$/],
          [projectId, a.ticket_id, { into_id: crypto.randomUUID() }, 404, /^into_id names no ticket of this project$/],
          [projectId, foreign.ticket_id, { into_id: a.ticket_id }, 404, /^ticket not found$/],
          [other.projectId, a.ticket_id, { into_id: foreign.ticket_id }, 404, /^ticket not found$/],
          [projectId, a.ticket_id, { into_id: a.ticket_id.toUpperCase() }, 400, /^into_id must name another ticket/],
          [projectId, a.ticket_id, { into_id: "ticket-2" }, 400, /^into_id must be a ticket id/],
          [projectId, a.ticket_id, { into_id: 2 }, 400, /^into_id must be a string$/],
          [projectId, a.ticket_id, {}, 400, /^into_id is required$/],
          [projectId, a.ticket_id, [], 400, /^request body must be a JSON object$/]
        ]
        for (const [pid, id, body, status, message] of refusals) {
          const refused = yield* merge(server, pid, id, body)
          expect([JSON.stringify(body), refused.status, refused.body.error.code]).toEqual([
            JSON.stringify(body),
            status,
            status === 404 ? "NOT_FOUND" : "VALIDATION_ERROR"
          ])
          expect(refused.body.error.message).toMatch(message)
        }
        expect(yield* snapshot).toEqual(before)

        // a merged ticket is merged once, and nothing is merged into it
        expect((yield* merge(server, projectId, a.ticket_id, { into_id: b.ticket_id })).status).toBe(200)
        yield* settled(a.ticket_id)
        const afterFirst = yield* snapshot
        const again = yield* merge(server, projectId, a.ticket_id, { into_id: c.ticket_id })
        expect(again.status).toBe(409)
        expect(again.body.error).toEqual({
          code: "CONFLICT",
          message: `ticket #${a.ticket_number} was already merged into ticket ${b.ticket_id}; a merge cannot be undone`
        })
        const into = yield* merge(server, projectId, c.ticket_id, { into_id: a.ticket_id })
        expect(into.status).toBe(409)
        expect(into.body.error.message).toBe(`ticket #${a.ticket_number} was itself merged into ticket ${b.ticket_id}: merge into that one`)
        expect(yield* snapshot).toEqual(afterFirst)
      }))

    it.effect("merging the target on keeps every pointer one step long: the first source's secret reaches the last target", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId, widgetKey } = yield* createProject(server)
        const a = yield* createTicket(server, key, { subject: "A", body: "first" })
        const b = yield* createTicket(server, key, { subject: "B", body: "second" })
        const c = yield* createTicket(server, key, { subject: "C", body: "third" })
        expect((yield* merge(server, projectId, a.ticket_id, { into_id: b.ticket_id })).status).toBe(200)
        const last = yield* merge(server, projectId, b.ticket_id, { into_id: c.ticket_id })
        expect(last.status).toBe(200)
        expect(last.body.messages.map((m: any) => m.body)).toEqual([
          "A\n\nfirst",
          "B\n\nsecond",
          `Ticket #${a.ticket_number} “A” was merged into this ticket.`,
          `Ticket #${b.ticket_number} “B” was merged into this ticket.`
        ])
        const fromA = yield* widgetRead(server, widgetKey, a.ticket_id, a.access_token)
        expect(fromA.body.merged_into_id).toBe(c.ticket_id)
        expect((yield* widgetRead(server, widgetKey, c.ticket_id, a.access_token)).status).toBe(200)
        expect((yield* contactMessage(server, key, a.ticket_id, "to the first", "x@example.com")).status).toBe(201)
        expect((yield* adminRead(server, projectId, c.ticket_id)).messages.at(-1)!.body).toBe("to the first")
      }))

    it.effect("a mailed answer to the source's mail lands on the target", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const target = yield* createTicket(server, key, { subject: "Printer jams", body: "Tray 2 jams." })
        const filed = yield* postMail(server, key, mail({
          From: "Kai <kai@example.com>",
          To: "help@example.test",
          Subject: "Printer jam again",
          "Message-ID": "<first@mail.example.com>"
        }, "It jams on every page."))
        expect(filed.body.outcome).toBe("ticket_created")
        const source = filed.body.ticket_id as string
        expect((yield* merge(server, projectId, source, { into_id: target.ticket_id })).status).toBe(200)
        const answer = yield* postMail(server, key, mail({
          From: "Kai <kai@example.com>",
          To: "help@example.test",
          Subject: "Re: Printer jam again",
          "Message-ID": "<second@mail.example.com>",
          "In-Reply-To": "<first@mail.example.com>"
        }, "Still jamming."))
        expect(answer.body).toMatchObject({ outcome: "message_added", ticket_id: target.ticket_id })
        const read = yield* adminRead(server, projectId, target.ticket_id)
        expect(read.messages.map((m) => m.body)).toEqual([
          "Printer jam again\n\nIt jams on every page.",
          expect.stringMatching(/was merged into this ticket\.$/),
          "Still jamming."
        ])
      }))

    it.effect("offers a detected duplicate as a merge suggestion until one of the two is merged", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const first = yield* createTicket(server, key, {
          subject: "I was charged twice for my subscription this month",
          body: "My credit card was charged twice for the Pro plan. Please refund the duplicate payment of 49 euros.",
          sender_email: "marta@example.com"
        })
        // the second is compared with tickets that exist when its check runs: let the first settle
        yield* settled(first.ticket_id)
        const second = yield* createTicket(server, key, {
          subject: "I was charged twice for my subscription this month!",
          body: "My credit card was charged twice for the Pro plan. Could you refund the duplicate payment of 49 euros?",
          sender_email: "marta@example.com"
        })
        const marked = yield* eventually(
          "the duplicate to be marked",
          Effect.map(adminRead(server, projectId, second.ticket_id), (t) => ({ done: t.duplicate_of !== null, value: t }))
        )
        expect(marked.merge_suggestion).toEqual({
          ticket_id: first.ticket_id,
          ticket_number: first.ticket_number,
          subject: "I was charged twice for my subscription this month"
        })
        expect((yield* adminRead(server, projectId, first.ticket_id)).merge_suggestion).toBeNull()
        yield* settled(second.ticket_id)
        const merged = yield* merge(server, projectId, second.ticket_id, { into_id: marked.merge_suggestion!.ticket_id })
        expect(merged.status).toBe(200)
        expect((yield* adminRead(server, projectId, second.ticket_id)).merge_suggestion).toBeNull()
      }))
  })
})
