/**
 * A contact's data, exported and erased, through the server on both databases with its live
 * pipeline, a loopback SMTP sink as the mail server and a stub as the webhook receiver: the export
 * holds every item of one contact and nothing of another, as JSON and as a zip; an erasure leaves
 * no read, search, stored event or delivery that names them or quotes their text, keeps numbers
 * and counts, fires `contact_erased` once, and is idempotent; bad input changes nothing.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { unzipSync } from "fflate"
import { createHash, randomBytes } from "node:crypto"
import { adminRead, agentMessage, contactMessage, createAgent, createTicket, settled, updateTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually, eventuallyDefined } from "../support/Eventually.ts"
import { SmtpSink, smtpSink } from "../support/SmtpSink.ts"
import { type Stub, stubServer } from "../support/StubServer.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex")

const ada = { email: "ada.lovelace@example.com", name: "Ada Lovelace" }
const bo = { email: "bo@example.com", name: "Bo Builder" }

/** Words that only Ada's data holds, so a search or a dump that finds one found her. */
const adaWords = ["Lovelace", "Zanzibar", "quixotic", "Marmalade", "pelican", "Gramophone", "Lovely"]

const call = (server: TestServerShape, method: string, path: string, options?: Parameters<TestServerShape["request"]>[2]) =>
  Effect.promise(() => server.request(method, path, options))

const admin = (server: TestServerShape, method: string, path: string, body?: unknown) =>
  call(server, method, path, { key: adminToken, ...(body === undefined ? {} : { body }) })

const upload = (server: TestServerShape, key: string, content: Uint8Array, name: string) =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("file", new Blob([content as Uint8Array<ArrayBuffer>], { type: "application/octet-stream" }), name)
    const response = await fetch(`${server.baseUrl}/v1/uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: form
    })
    expect(response.status).toBe(201)
    return (await response.json() as { upload_id: string }).upload_id
  })

const fetchBytes = (server: TestServerShape, path: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${adminToken}` } })
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
  })

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

const exportOf = (server: TestServerShape, projectId: string, email: string) =>
  admin(server, "GET", `/v1/admin/projects/${projectId}/contacts/export?email=${encodeURIComponent(email)}`)

const erase = (server: TestServerShape, projectId: string, body: unknown) =>
  admin(server, "POST", `/v1/admin/projects/${projectId}/contacts/erase`, body)

const unfolded = (raw: string) => raw.replace(/=\r?\n/g, "")

/**
 * A project where Ada filed a ticket by API (with metadata, tags and a file), one through the
 * widget and one by mail, wrote a message with a file on the first (assigned to an agent, who
 * answered her and left a note) and one on Bo's ticket, and rated the widget ticket; every
 * event went to a receiver that takes them all.
 */
const seed = (server: TestServerShape, sink: SmtpSink["Service"], receiver: Stub) =>
  Effect.gen(function*() {
    const { key, projectId, widgetKey } = yield* createProject(server)
    // the sink is the suite's: only mail sent from here on is this project's
    const mailedBefore = sink.received.length
    expect((yield* admin(server, "PUT", `/v1/admin/projects/${projectId}/mail`, {
      inbound_address: `help-${projectId.slice(0, 8)}@acme.test`
    })).status).toBe(200)
    expect((yield* admin(server, "POST", `/v1/admin/projects/${projectId}/webhooks`, { url: `${receiver.url}/hook` })).status)
      .toBe(201)
    expect((yield* createAgent(server, projectId, "ana@support.example", "Ana Agent")).status).toBe(201)

    const openingFile = new Uint8Array(randomBytes(3000))
    const byApi = yield* createTicket(server, key, {
      subject: "Zanzibar invoices vanished",
      body: "The quixotic exporter drops every row.",
      sender_email: ada.email,
      sender_name: ada.name,
      metadata: { plan: "pro", phone: "+44 20 7946 0000" },
      tags: ["billing"],
      attachment_ids: [yield* upload(server, key, openingFile, "invoice.pdf")]
    })
    const byWidget = yield* createTicket(server, widgetKey, {
      subject: "Marmalade login loop",
      body: "The widget keeps asking me to log in.",
      sender_email: ada.email,
      source: "widget"
    })
    const filed = yield* postMail(server, key, mail({
      From: `${ada.name} <${ada.email}>`,
      To: "help@acme.test",
      Subject: "Gramophone refund",
      "Message-ID": "<gramophone.ada.lovelace@mail.example.com>"
    }, "Please refund the gramophone."))
    expect(filed.body.outcome).toBe("ticket_created")
    const byMail = filed.body.ticket_id as string
    const bos = yield* createTicket(server, key, {
      subject: "Printer jam",
      body: "Tray two jams.",
      sender_email: bo.email,
      sender_name: bo.name
    })

    expect((yield* updateTicket(server, projectId, byApi.ticket_id, { assignee_email: "ana@support.example" })).status)
      .toBe(200)
    const messageFile = new Uint8Array(randomBytes(1500))
    const written = yield* call(server, "POST", `/v1/tickets/${byApi.ticket_id}/messages`, {
      key,
      body: {
        body: "Still seeing the pelican error.",
        contact_email: ada.email,
        attachment_ids: [yield* upload(server, key, messageFile, "screen.png")]
      }
    })
    expect(written.status).toBe(201)
    expect((yield* admin(server, "POST", `/v1/admin/projects/${projectId}/tickets/${byApi.ticket_id}/messages`, {
      body: "We are on it.",
      author_email: "ana@support.example"
    })).status).toBe(201)
    expect((yield* agentMessage(server, projectId, byApi.ticket_id, "Desk only: check her account", true)).status).toBe(201)
    expect((yield* contactMessage(server, key, bos.ticket_id, "Same pelican here, Bo.", ada.email)).status).toBe(201)
    expect((yield* contactMessage(server, key, bos.ticket_id, "Tray one is fine.", bo.email)).status).toBe(201)

    expect((yield* updateTicket(server, projectId, byWidget.ticket_id, { status: "resolved" })).status).toBe(200)
    const asked = yield* eventuallyDefined(
      "the rating mail",
      Effect.sync(() =>
        sink.received.slice(mailedBefore).find((m) => m.to.includes(ada.email) && /\/rate\/csat_/.test(unfolded(m.raw)))
      )
    )
    const token = /\/rate\/(csat_[A-Za-z0-9_-]{43})/.exec(unfolded(asked.raw))![1]!
    expect((yield* call(server, "POST", `/v1/ratings/${token}`, { body: { rating: 4, comment: "Lovely service" } })).status)
      .toBe(201)
    const tickets = [byApi.ticket_id, byWidget.ticket_id, byMail, bos.ticket_id]
    for (const id of tickets) yield* settled(id)
    return {
      key,
      projectId,
      byApi,
      byWidget,
      byMail,
      bos,
      tickets,
      files: { opening: openingFile, message: messageFile },
      messageId: written.body.message_id as string
    }
  })

describe.each(databaseKinds)("a contact's data on %s", (kind) => {
  const service = Layer.unwrap(Effect.map(Effect.service(SmtpSink), (sink) =>
    testServer(kind, {
      RATE_LIMIT_PER_MINUTE: "10000",
      SMTP_URL: sink.url,
      MAIL_FROM: "Support <support@acme.test>",
      PUBLIC_URL: "https://help.acme.test/",
      // the webhook receiver is on loopback, which a PostgreSQL server's service refuses by default
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true"
    }, undefined, { pipeline: "live" }))).pipe(Layer.provideMerge(smtpSink))

  layer(service, { excludeTestServices: true })((it) => {
    it.effect("exports every item of the contact, and nothing of another, as JSON and as a zip", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const receiver = yield* stubServer()
        const s = yield* seed(server, yield* SmtpSink, receiver)

        const exported = yield* exportOf(server, s.projectId, "Ada.Lovelace@Example.com")
        expect(exported.status).toBe(200)
        expect(exported.headers.get("content-type")).toMatch(/^application\/json/)
        const doc = exported.body
        expect(doc.project_id).toBe(s.projectId)
        expect(doc.contact).toMatchObject({ email: ada.email, name: ada.name })

        expect(doc.tickets.map((t: any) => [t.ticket_number, t.source, t.subject])).toEqual([
          [s.byApi.ticket_number, "api", "Zanzibar invoices vanished"],
          [s.byWidget.ticket_number, "widget", "Marmalade login loop"],
          [s.byApi.ticket_number + 2, "email", "Gramophone refund"]
        ])
        const [first, widget, mailed] = doc.tickets
        expect(first).toMatchObject({
          body: "The quixotic exporter drops every row.",
          sender_email: ada.email,
          sender_name: ada.name,
          metadata: { plan: "pro", phone: "+44 20 7946 0000" },
          tags: ["billing"],
          custom_fields: {},
          status: "open"
        })
        expect(mailed).toMatchObject({ body: "Please refund the gramophone.", sender_email: ada.email })
        expect(widget.status).toBe("resolved")
        // her message and the desk's public answer, which is which; never the internal note
        expect(first.conversation.map((m: any) => [m.author_type, m.by_contact, m.body, m.author_name])).toEqual([
          ["contact", true, "Still seeing the pelican error.", null],
          ["agent", false, "We are on it.", "Ana Agent"]
        ])
        expect(JSON.stringify(doc)).not.toContain("Desk only")

        // every message she wrote, her own tickets' and Bo's
        expect(doc.messages.map((m: any) => [m.ticket_number, m.on_own_ticket, m.body])).toEqual([
          [s.byApi.ticket_number, true, "Still seeing the pelican error."],
          [s.bos.ticket_number, false, "Same pelican here, Bo."]
        ])

        // the two files: the opening one and her message's, each downloadable where the export says
        expect(doc.attachments.map((f: any) => [f.filename, f.message_id, f.size])).toEqual([
          ["invoice.pdf", null, s.files.opening.length],
          ["screen.png", s.messageId, s.files.message.length]
        ])
        expect(first.attachment_ids).toEqual([doc.attachments[0].attachment_id])
        expect(first.conversation[0].attachment_ids).toEqual([doc.attachments[1].attachment_id])
        for (const [i, bytes] of [s.files.opening, s.files.message].entries()) {
          const file = doc.attachments[i]
          expect(file.sha256).toBe(sha256(bytes))
          expect(file.archive_path).toBe(`attachments/${file.attachment_id}-${file.filename}`)
          const downloaded = yield* fetchBytes(server, file.download_path)
          expect(downloaded.status).toBe(200)
          expect(sha256(downloaded.bytes)).toBe(file.sha256)
        }

        expect(doc.satisfaction).toEqual([expect.objectContaining({
          ticket_id: s.byWidget.ticket_id,
          scale: "five",
          rating: 4,
          comment: "Lovely service",
          rated_at: expect.stringMatching(/Z$/)
        })])
        // mail to her (the desk's answer, the rating link) and the agent's notice of her message
        expect(doc.notifications).toEqual(expect.arrayContaining([
          expect.objectContaining({ recipient: "contact", reason: "agent_replied", email_status: "sent", ticket_id: s.byApi.ticket_id }),
          expect.objectContaining({ recipient: "agent", reason: "ticket_replied", message_id: s.messageId })
        ]))
        expect(doc.mail.threads.map((t: any) => t.ticket_id)).toContain(s.byApi.ticket_id)
        expect(doc.mail.messages).toEqual(expect.arrayContaining([
          expect.objectContaining({ rfc_message_id: "gramophone.ada.lovelace@mail.example.com", direction: "in", ticket_id: s.byMail }),
          expect.objectContaining({ direction: "out", ticket_id: s.byApi.ticket_id })
        ]))

        // nothing of Bo's but the id and number of the ticket she wrote on
        const text = JSON.stringify(doc)
        for (const his of [bo.email, bo.name, "Printer jam", "Tray two jams", "Tray one is fine"]) expect(text).not.toContain(his)

        // the zip: the same document and the files' bytes
        const zipped = yield* fetchBytes(server, `/v1/admin/projects/${s.projectId}/contacts/export.zip?email=${ada.email}`)
        expect(zipped.status).toBe(200)
        expect(zipped.headers.get("content-type")).toBe("application/zip")
        expect(zipped.headers.get("content-disposition")).toBe(`attachment; filename="contact-${doc.contact.contact_id}.zip"`)
        expect(zipped.headers.get("cache-control")).toBe("private, no-store")
        const entries = unzipSync(zipped.bytes)
        expect(Object.keys(entries).sort()).toEqual(["contact.json", ...doc.attachments.map((f: any) => f.archive_path)].sort())
        const inZip = JSON.parse(new TextDecoder().decode(entries["contact.json"]))
        expect({ ...inZip, exported_at: null }).toEqual({ ...doc, exported_at: null })
        for (const file of doc.attachments) expect(sha256(entries[file.archive_path]!)).toBe(file.sha256)

        // the contract declares both answers
        const spec = (yield* call(server, "GET", "/openapi.json")).body
        expect(spec.paths["/v1/admin/projects/{pid}/contacts/export"].get.responses["200"].content["application/json"])
          .toBeDefined()
        expect(spec.paths["/v1/admin/projects/{pid}/contacts/export.zip"].get.responses["200"].content["application/zip"])
          .toBeDefined()
        expect(spec.paths["/v1/admin/projects/{pid}/contacts/erase"].post.security).toEqual([{ adminToken: [] }])
      }))

    it.effect("erases the contact from every read, search, event and delivery, once, and a second erase changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const receiver = yield* stubServer()
        const s = yield* seed(server, yield* SmtpSink, receiver)
        const search = (q: string) =>
          Effect.map(call(server, "GET", `/v1/search?q=${encodeURIComponent(q)}&types=tickets,contacts`, { key: s.key }), (r) => {
            expect(r.status).toBe(200)
            return r.body.results as Array<any>
          })
        const listed = (q: string) =>
          Effect.map(admin(server, "GET", `/v1/admin/projects/${s.projectId}/tickets?q=${encodeURIComponent(q)}`), (r) => {
            expect(r.status).toBe(200)
            return r.body.tickets as Array<any>
          })
        // found before, so finding nothing after means something
        for (const q of ["Lovelace", ada.email, "Zanzibar", "quixotic", "Marmalade", "Gramophone"]) {
          expect((yield* search(q)).length, q).toBeGreaterThan(0)
        }
        expect((yield* listed("Zanzibar")).length).toBe(1)

        const shape = Effect.gen(function*() {
          const all = yield* admin(server, "GET", `/v1/admin/projects/${s.projectId}/tickets?limit=50`)
          const reads = yield* Effect.forEach(s.tickets, (id) => adminRead(server, s.projectId, id))
          return {
            list: all.body.tickets.map((t: any) => [t.ticket_number, t.status, t.priority]),
            reads: reads.map((t) => [t.ticket_number, t.status, t.messages.length, t.tags, t.custom_fields])
          }
        })
        const before = yield* shape
        const exported = (yield* exportOf(server, s.projectId, ada.email)).body
        // failed attempts whose errors quote her address, as a mail server's refusal or a receiver's echo does
        yield* sql`UPDATE jobs SET last_error = ${`550 <${ada.email.toUpperCase()}>: no such user`}
          WHERE ticket_id = ${s.byApi.ticket_id}`
        yield* sql`UPDATE webhook_deliveries SET last_error = ${`HTTP 400: unknown customer ${ada.email}`}
          WHERE ticket_id = ${s.byMail}`

        const erased = yield* erase(server, s.projectId, { email: ada.email })
        expect(erased.status).toBe(200)
        expect(erased.body).toEqual({
          contact_id: exported.contact.contact_id,
          erased_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          already_erased: false,
          tickets: 3,
          messages: 2,
          attachments: 2
        })

        // numbers, statuses, counts of messages, tags and fields as they were
        expect(yield* shape).toEqual(before)

        // no read names her or quotes her
        const reads = yield* Effect.forEach([s.byApi.ticket_id, s.byWidget.ticket_id, s.byMail], (id) =>
          Effect.all([adminRead(server, s.projectId, id), call(server, "GET", `/v1/tickets/${id}`, { key: s.key })]))
        const texts = [
          ...reads.map(([adminView, publicView]) => JSON.stringify([adminView, publicView.body])),
          JSON.stringify(yield* adminRead(server, s.projectId, s.bos.ticket_id)),
          JSON.stringify((yield* admin(server, "GET", `/v1/admin/projects/${s.projectId}/tickets?limit=50`)).body),
          JSON.stringify((yield* call(server, "GET", `/v1/tickets?contact_email=${ada.email}`, { key: s.key })).body)
        ]
        for (const text of texts) {
          for (const word of [ada.email, ...adaWords]) expect(text).not.toContain(word)
        }
        const [[first]] = reads
        expect(first).toMatchObject({ subject: "[erased]", body: "[erased]", sender_email: null, sender_name: null, metadata: null, attachments: [] })
        expect(first!.messages.map((m) => [m.author_type, m.body, m.attachments.length])).toEqual([
          ["contact", "[erased]", 0],
          ["agent", "We are on it.", 0],
          ["agent", "Desk only: check her account", 0]
        ])
        expect(reads[1]![0].satisfaction).toMatchObject({ rating: 4, comment: null })
        // Bo's ticket keeps Bo; only her message on it is erased
        const bos = yield* adminRead(server, s.projectId, s.bos.ticket_id)
        expect([bos.subject, bos.sender_email, bos.messages.map((m) => m.body)]).toEqual([
          "Printer jam",
          bo.email,
          ["[erased]", "Tray one is fine."]
        ])
        expect((yield* call(server, "GET", `/v1/tickets?contact_email=${ada.email}`, { key: s.key })).body.tickets).toEqual([])
        for (const file of exported.attachments) expect((yield* fetchBytes(server, file.download_path)).status).toBe(404)

        // no search finds her
        for (const q of ["Lovelace", ada.email, "ada.lovelace", "Zanzibar", "quixotic", "Marmalade", "Gramophone"]) {
          expect(yield* search(q), q).toEqual([])
        }
        expect(yield* listed("Zanzibar")).toEqual([])
        expect(yield* listed("quixotic")).toEqual([])
        expect((yield* search("Printer")).map((r) => r.id)).toEqual([s.bos.ticket_id])

        // nothing stored names her: the contact row, the event log, deliveries, jobs, mail, notifications
        const stored = yield* sql<{ text: string }>`
          SELECT concat_ws(' ',
            (SELECT string_agg(email || ' ' || coalesce(name, ''), ' ') FROM contacts WHERE project_id = ${s.projectId}),
            (SELECT string_agg(body, ' ') FROM events WHERE project_id = ${s.projectId}),
            (SELECT string_agg(body || coalesce(last_error, ''), ' ') FROM webhook_deliveries WHERE project_id = ${s.projectId}),
            (SELECT string_agg(payload::text || coalesce(last_error, ''), ' ') FROM jobs WHERE project_id = ${s.projectId}),
            (SELECT string_agg(rfc_message_id, ' ') FROM mail_messages WHERE project_id = ${s.projectId}),
            (SELECT string_agg(coalesce(email_error, ''), ' ') FROM notifications WHERE project_id = ${s.projectId}),
            (SELECT string_agg(coalesce(comment, ''), ' ') FROM satisfaction_requests WHERE project_id = ${s.projectId}),
            (SELECT string_agg(subject || ' ' || body || coalesce(metadata::text, ''), ' ') FROM tickets WHERE project_id = ${s.projectId}),
            (SELECT string_agg(body, ' ') FROM messages WHERE project_id = ${s.projectId})
          ) AS text`
        for (const word of [ada.email, "ada.lovelace", ...adaWords, "+44 20"]) expect(stored[0]!.text.toLowerCase()).not.toContain(word.toLowerCase())
        expect(stored[0]!.text).toContain("550 <[erased]>: no such user")
        // Bo's data is still there
        expect(stored[0]!.text).toContain(bo.email)
        expect(stored[0]!.text).toContain("Tray one is fine.")
        const [row] = yield* sql<{ email: string; name: string | null; email_hash: string; erased: boolean }>`
          SELECT email, name, email_hash, erased_at IS NOT NULL AS erased FROM contacts WHERE id = ${erased.body.contact_id}`
        expect(row).toEqual({ email: `erased:${erased.body.contact_id}`, name: null, email_hash: sha256(ada.email), erased: true })

        // one contact_erased, with the hash of the address and nothing else of hers
        const notices = yield* eventually(
          "the contact_erased delivery",
          Effect.sync(() => {
            const found = receiver.requests.map((r) => JSON.parse(r.body)).filter((b) => b.event === "contact_erased")
            return { done: found.length >= 1, value: found }
          })
        )
        expect(notices).toEqual([{
          event: "contact_erased",
          timestamp: erased.body.erased_at,
          data: {
            id: erased.body.contact_id,
            project_id: s.projectId,
            contact_email_hash: sha256(ada.email),
            erased_at: erased.body.erased_at
          }
        }])

        // again, in any case: the same contact, nothing changed, no second event
        const snapshot = Effect.all([shape, Effect.map(sql<{ text: string }>`SELECT string_agg(body, ' ' ORDER BY id) AS text FROM events`, (r) => r[0]!.text)])
        const settledState = yield* snapshot
        for (const email of [ada.email, "  ADA.Lovelace@Example.COM "]) {
          const again = yield* erase(server, s.projectId, { email })
          expect(again.status).toBe(200)
          expect(again.body).toEqual({ ...erased.body, already_erased: true, tickets: 0, messages: 0, attachments: 0 })
        }
        expect(yield* snapshot).toEqual(settledState)
        const counts = yield* sql<{ events: number; deliveries: number }>`
          SELECT (SELECT count(*)::int FROM events WHERE project_id = ${s.projectId} AND kind = 'contact_erased') AS events,
            (SELECT count(*)::int FROM webhook_deliveries WHERE project_id = ${s.projectId} AND event = 'contact_erased') AS deliveries`
        expect(counts).toEqual([{ events: 1, deliveries: 1 }])
        expect(receiver.requests.filter((r) => JSON.parse(r.body).event === "contact_erased")).toHaveLength(1)
        // an erased contact has nothing to export
        expect((yield* exportOf(server, s.projectId, ada.email)).status).toBe(404)

        // the address may write in again, as a new contact whose export holds only what came after
        const later = yield* createTicket(server, s.key, { subject: "Back again", body: "New question.", sender_email: ada.email })
        yield* settled(later.ticket_id)
        const fresh = yield* exportOf(server, s.projectId, ada.email)
        expect(fresh.status).toBe(200)
        expect(fresh.body.contact.contact_id).not.toBe(erased.body.contact_id)
        expect(fresh.body.tickets.map((t: any) => t.ticket_id)).toEqual([later.ticket_id])
        expect(fresh.body.messages).toEqual([])
        expect(fresh.body.attachments).toEqual([])
        expect(later.ticket_number).toBe(s.bos.ticket_number + 1)

        // the operator's audit log has each erasure that changed something once, and each export
        const audited = yield* admin(server, "GET", `/v1/admin/audit-log?project_id=${s.projectId}`)
        const actions = (audited.body.entries as Array<{ action: string }>).map((entry) => entry.action)
        expect(actions.filter((action) => action === "privacy.eraseContact")).toHaveLength(3)
        expect(actions.filter((action) => action.startsWith("privacy.export")).length).toBeGreaterThan(0)
      }))

    it.effect("erases what a merge copied to another's ticket: the opening message, its file and the note quoting the subject", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const hers = yield* createTicket(server, key, {
          subject: "Zanzibar hinge",
          body: "The quixotic door squeaks.",
          sender_email: ada.email,
          attachment_ids: [yield* upload(server, key, new Uint8Array(randomBytes(512)), "door.jpg")]
        })
        const his = yield* createTicket(server, key, { subject: "Door squeaks", body: "Mine too.", sender_email: bo.email })
        const merged = yield* admin(server, "POST", `/v1/admin/projects/${projectId}/tickets/${hers.ticket_id}/merge`, {
          into_id: his.ticket_id
        })
        expect(merged.status).toBe(200)
        expect(merged.body.messages.map((m: any) => [m.body, m.attachments.length])).toEqual([
          ["Zanzibar hinge\n\nThe quixotic door squeaks.", 1],
          [`Ticket #${hers.ticket_number} “Zanzibar hinge” was merged into this ticket.`, 0]
        ])
        yield* settled(hers.ticket_id)
        yield* settled(his.ticket_id)

        const erased = yield* erase(server, projectId, { email: ada.email })
        expect(erased.body).toMatchObject({ tickets: 1, messages: 1, attachments: 1 })
        const target = yield* adminRead(server, projectId, his.ticket_id)
        expect([target.subject, target.sender_email, target.messages.map((m) => [m.body, m.attachments.length])]).toEqual([
          "Door squeaks",
          bo.email,
          [["[erased]", 0], [`Ticket #${hers.ticket_number} “[erased]” was merged into this ticket.`, 0]]
        ])
        expect(yield* adminRead(server, projectId, hers.ticket_id)).toMatchObject({
          subject: "[erased]",
          status: "closed",
          merged_into_id: his.ticket_id
        })
      }))

    it.effect("answers bad input with 400 and unknown contacts and projects with 404, changing nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const { key, projectId } = yield* createProject(server)
        const other = yield* createProject(server, "Other project")
        const ticket = yield* createTicket(server, key, { subject: "Kept", body: "Untouched", sender_email: ada.email })
        yield* createTicket(server, other.key, { subject: "Elsewhere", body: "Other project", sender_email: bo.email })
        yield* settled(ticket.ticket_id)
        const state = Effect.all([
          adminRead(server, projectId, ticket.ticket_id),
          sql`SELECT id, email, name, email_hash, erased_at FROM contacts ORDER BY id`,
          sql`SELECT count(*)::int AS n FROM events`,
          sql`SELECT count(*)::int AS n FROM jobs`
        ])
        const before = yield* state

        const base = `/v1/admin/projects/${projectId}/contacts`
        const refusals: ReadonlyArray<readonly [string, string, unknown, number, string]> = [
          ["GET", `${base}/export`, undefined, 400, "email is required"],
          ["GET", `${base}/export?email=`, undefined, 400, "email is required"],
          ["GET", `${base}/export?email=not-an-address`, undefined, 400, "email must be a valid email address"],
          ["GET", `${base}/export.zip`, undefined, 400, "email is required"],
          ["GET", `${base}/export?email=nobody@example.com`, undefined, 404, "no contact with that email in this project"],
          ["GET", `${base}/export.zip?email=nobody@example.com`, undefined, 404, "no contact with that email in this project"],
          // a contact of another project is no contact of this one
          ["GET", `${base}/export?email=${bo.email}`, undefined, 404, "no contact with that email in this project"],
          ["GET", `/v1/admin/projects/${crypto.randomUUID()}/contacts/export?email=${ada.email}`, undefined, 404, "project not found"],
          ["GET", `/v1/admin/projects/not-a-project/contacts/export?email=${ada.email}`, undefined, 404, "project not found"],
          ["POST", `${base}/erase`, {}, 400, "email is required"],
          ["POST", `${base}/erase`, { email: "  " }, 400, "email is required"],
          ["POST", `${base}/erase`, { email: 42 }, 400, "email must be a string"],
          ["POST", `${base}/erase`, { email: "ada@" }, 400, "email must be a valid email address"],
          ["POST", `${base}/erase`, [ada.email], 400, "request body must be a JSON object"],
          ["POST", `${base}/erase`, { email: "nobody@example.com" }, 404, "no contact with that email in this project"],
          ["POST", `${base}/erase`, { email: bo.email }, 404, "no contact with that email in this project"],
          ["POST", `/v1/admin/projects/${crypto.randomUUID()}/contacts/erase`, { email: ada.email }, 404, "project not found"]
        ]
        for (const [method, path, body, status, message] of refusals) {
          const refused = yield* admin(server, method, path, body)
          expect([method, path, JSON.stringify(body), refused.status, refused.body.error]).toEqual([
            method,
            path,
            JSON.stringify(body),
            status,
            { code: status === 404 ? "NOT_FOUND" : "VALIDATION_ERROR", message }
          ])
        }
        const malformed = yield* call(server, "POST", `${base}/erase`, {
          key: adminToken,
          rawBody: "{not json",
          headers: { "content-type": "application/json" }
        })
        expect([malformed.status, malformed.body.error.code]).toEqual([400, "VALIDATION_ERROR"])
        // a project key is no operator
        const byKey = yield* call(server, "GET", `${base}/export?email=${ada.email}`, { key })
        expect(byKey.status).toBe(401)
        expect((yield* call(server, "POST", `${base}/erase`, { key, body: { email: ada.email } })).status).toBe(401)
        expect(yield* state).toEqual(before)
      }))
  })
})
