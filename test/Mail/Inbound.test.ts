/**
 * Mail in and out, black-box: the whole service with its live pipeline and SMTP listener, a
 * loopback SMTP sink as the outgoing mail server, and mail sent the way a mail server sends it
 * (nodemailer over SMTP) or posted as raw bytes to the HTTP door.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { AppConfig } from "../../src/Config.ts"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import { createTransport } from "nodemailer"
import MailComposer from "nodemailer/lib/mail-composer/index.js"
import PostalMime from "postal-mime"
import { adminRead, agentMessage, createAgent, settled, updateTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { freePort } from "../support/Process.ts"
import { startStub } from "../support/StubServer.ts"
import { SmtpSink, smtpSink } from "../support/SmtpSink.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

/** The SMTP listener's port, as the service's settings hold it. */
const listenerPort = Effect.map(Effect.service(AppConfig), (config) => Option.getOrThrow(config.smtpListenPort))

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

interface Outgoing {
  readonly from: string
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly messageId?: string
  readonly inReplyTo?: string
  readonly references?: Array<string>
  readonly headers?: Record<string, string>
  readonly attachments?: Array<{ filename: string; content: Buffer; contentType: string }>
}

/** The raw bytes of a mail, as a mail client writes it. */
const compose = (mail: Outgoing) =>
  Effect.promise(() => new MailComposer(mail).compile().build()).pipe(Effect.map((raw) => new Uint8Array(raw)))

/** Sends over SMTP to the listener; the server's answer: ok, or the error with its response code. */
const sendSmtp = (port: number, mail: Outgoing, envelope?: { from: string; to: Array<string> }) =>
  Effect.promise(async () => {
    const transport = createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true })
    try {
      await transport.sendMail({ ...mail, ...(envelope === undefined ? {} : { envelope }) })
      return { ok: true as const, code: 250 }
    } catch (error) {
      return { ok: false as const, code: (error as { responseCode?: number }).responseCode ?? 0, message: String(error) }
    } finally {
      transport.close()
    }
  })

/** Posts raw mail as a provider's webhook does: the key as Bearer, or as a Basic password (`basic`). */
const postMail = (server: TestServerShape, key: string, raw: Uint8Array, type = "message/rfc822", basic = false) =>
  Effect.promise(async () => {
    const authorization = basic ? `Basic ${btoa(`inbound:${key}`)}` : `Bearer ${key}`
    const response = await fetch(`${server.baseUrl}/v1/inbound/mail`, {
      method: "POST",
      headers: { authorization, "content-type": type },
      body: raw as Uint8Array<ArrayBuffer>
    })
    return { status: response.status, body: await response.json() as any }
  })

const setAddress = (server: TestServerShape, projectId: string, address: string | null) =>
  Effect.promise(() =>
    server.request("PUT", `/v1/admin/projects/${projectId}/mail`, { key: adminToken, body: { inbound_address: address } })
  )

const emailTickets = (projectId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ id: string; ticket_number: number; subject: string; body: string; status: string }>`
      SELECT id, ticket_number, subject, body, status FROM tickets WHERE project_id = ${projectId} AND source = 'email'
      ORDER BY ticket_number`
  ).pipe(Effect.orDie)

const messagesOf = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ body: string; author_type: string }>`SELECT body, author_type FROM messages WHERE ticket_id = ${ticketId} ORDER BY seq`
  ).pipe(Effect.orDie)

describe.each(databaseKinds)("mail on %s", (kind) => {
  const service = Layer.unwrap(Effect.gen(function*() {
    const sink = yield* SmtpSink
    const port = yield* Effect.promise(() => freePort())
    return testServer(kind, {
      SMTP_URL: sink.url,
      MAIL_FROM: "Acme Support <noreply@acme.test>",
      SMTP_LISTEN_PORT: String(port),
      SMTP_LISTEN_HOST: "127.0.0.1",
      MAIL_SENDER_LIMIT_PER_HOUR: "3",
      MAIL_MAX_BYTES: "2MiB",
      ATTACHMENT_MAX_BYTES: "1MiB",
      RATE_LIMIT_PER_MINUTE: "1000",
      // the webhook receiver is on loopback, which a PostgreSQL server's service refuses by default
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true"
    }, undefined, { pipeline: "live" })
  })).pipe(Layer.provideMerge(smtpSink))

  layer(service, { excludeTestServices: true })((it) => {
    /** A project taking mail at `address`, with an agent. */
    const mailProject = (address: string) =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const project = yield* createProject(server)
        const set = yield* setAddress(server, project.projectId, address)
        expect(set.status).toBe(200)
        expect(set.body).toEqual({ inbound_address: address })
        return project
      })

    it.effect("a mail over SMTP files a ticket; the agent's reply threads back; answering it reopens the ticket", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const port = yield* listenerPort
        const { projectId } = yield* mailProject("help@one.test")
        yield* createAgent(server, projectId, "ada@one.test", "Ada Agent")
        const receiver = yield* Effect.acquireRelease(Effect.promise(() => startStub()), (stub) => Effect.promise(() => stub.close()))
        const hook = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/webhooks`, {
            key: adminToken,
            body: { url: `${receiver.url}/hook`, events: ["ticket_created"] }
          })
        )
        expect(hook.status).toBe(201)
        const log = randomBytes(200 * 1024)
        const sent = yield* sendSmtp(port, {
          from: "Marta Contact <marta@example.com>",
          to: "help@one.test",
          subject: "Export is stuck",
          text: "My export has been running since Monday.\n\n-- \nMarta\nACME Corp",
          messageId: "<first-mail@example.com>",
          attachments: [{ filename: "export.log", content: log, contentType: "text/plain" }]
        })
        expect(sent).toEqual({ ok: true, code: 250 })
        const [ticket] = yield* emailTickets(projectId)
        expect(ticket).toMatchObject({ subject: "Export is stuck", body: "My export has been running since Monday." })
        const read = yield* adminRead(server, projectId, ticket!.id)
        expect(read).toMatchObject({ source: "email", sender_email: "marta@example.com", sender_name: "Marta Contact" })
        expect(read.attachments.map((a) => [a.filename, a.sha256])).toEqual([["export.log", sha256(log)]])
        // the API's background work follows a mailed ticket as it follows a created one
        const jobs = yield* settled(ticket!.id)
        expect(jobs.map((job) => job.kind)).toEqual(expect.arrayContaining(["triage", "duplicate_check"]))
        expect(jobs.every((job) => job.status === "done")).toBe(true)
        expect((yield* adminRead(server, projectId, ticket!.id)).triage.status).toBe("done")
        // and so do its webhooks: the receiver got ticket_created for the mailed ticket
        const created = receiver.requests.map((request) => JSON.parse(request.body))
        expect(created.map((body) => [body.event, body.data.id, body.data.subject])).toEqual([
          ["ticket_created", ticket!.id, "Export is stuck"]
        ])

        // the agent answers with a file of their own; the contact's mail carries it and threads
        const upload = yield* Effect.promise(async () => {
          const form = new FormData()
          form.append("file", new Blob([new Uint8Array([1, 2, 3, 4])], { type: "application/pdf" }), "invoice.pdf")
          const response = await fetch(`${server.baseUrl}/v1/admin/projects/${projectId}/uploads`, {
            method: "POST",
            headers: { authorization: `Bearer ${adminToken}` },
            body: form
          })
          return { status: response.status, body: await response.json() as any }
        })
        const reply = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/tickets/${ticket!.id}/messages`, {
            key: adminToken,
            body: { body: "It is moving again.", author_email: "ada@one.test", attachment_ids: [upload.body.upload_id] }
          })
        )
        expect(reply.status).toBe(201)
        const out = yield* eventually(
          "the reply's mail to reach the contact",
          Effect.sync(() => {
            const mail = sink.received.find((m) => m.to.includes("marta@example.com"))
            return { done: mail !== undefined, value: mail! }
          })
        )
        const parsed = yield* Effect.promise(() => PostalMime.parse(out.raw))
        expect(parsed.inReplyTo).toBe("<first-mail@example.com>")
        expect(parsed.references).toContain("<first-mail@example.com>")
        const replyTo = parsed.replyTo?.[0]?.address ?? ""
        expect(replyTo).toMatch(/^help\+[a-z2-7]{26}@one\.test$/)
        expect(parsed.messageId).toMatch(/^<[a-z2-7]{26}@one\.test>$/)
        expect(upload.status).toBe(201)
        expect(parsed.attachments.map((a) => a.filename)).toEqual(["invoice.pdf"])

        // the ticket is resolved; the contact's answer to that mail reopens it
        yield* updateTicket(server, projectId, ticket!.id, { status: "resolved" })
        const answer = yield* sendSmtp(port, {
          from: "marta@example.com",
          to: replyTo,
          subject: "Re: [#1] Re: Export is stuck",
          text: "Thanks, it finished.\n\nOn Mon, 30 Nov 2026 at 10:00, Acme Support <noreply@acme.test> wrote:\n> It is moving again.",
          inReplyTo: parsed.messageId!,
          references: [parsed.messageId!]
        })
        expect(answer.ok).toBe(true)
        expect(yield* emailTickets(projectId)).toHaveLength(1)
        const after = yield* adminRead(server, projectId, ticket!.id)
        expect(after.status).toBe("open")
        expect(after.messages.at(-1)).toMatchObject({ author_type: "contact", body: "Thanks, it finished." })
      }))

    it.effect("the same bytes posted to the HTTP door file a ticket, and once only when delivered twice", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { projectId, key, widgetKey } = yield* mailProject("help@two.test")
        const raw = yield* compose({
          from: "Lee <lee@example.com>",
          to: "help@two.test",
          subject: "Invoice question",
          text: "Where is my invoice?",
          messageId: "<http-door@example.com>"
        })
        const first = yield* postMail(server, key, raw)
        expect(first.status).toBe(202)
        expect(first.body).toMatchObject({ outcome: "ticket_created", ticket_number: 1 })
        // a provider configured with https://inbound:<key>@host/v1/inbound/mail sends the key as Basic
        const again = yield* postMail(server, key, raw, "application/octet-stream", true)
        expect(again.status).toBe(202)
        expect(again.body).toMatchObject({ outcome: "duplicate", ticket_id: first.body.ticket_id })
        expect((yield* postMail(server, "tf_wrong", raw, "message/rfc822", true)).status).toBe(401)
        expect(yield* emailTickets(projectId)).toHaveLength(1)
        // a widget key cannot post mail, and a body that is not mail is refused whole
        expect((yield* postMail(server, widgetKey, raw)).status).toBe(403)
        const noFrom = yield* postMail(server, key, new TextEncoder().encode("Subject: hi\r\n\r\nno sender\r\n"))
        expect(noFrom.status).toBe(400)
        expect(noFrom.body.error.message).toContain("From")
        expect((yield* postMail(server, key, raw, "text/plain")).status).toBe(415)
        expect(yield* emailTickets(projectId)).toHaveLength(1)
      }))

    it.effect("mails arriving together file together: each once, numbered without gaps, a repeated one once", () =>
      Effect.gen(function*() {
        const port = yield* listenerPort
        const { projectId } = yield* mailProject("help@together.test")
        const mails = Array.from({ length: 24 }, (_, i) => ({
          from: `sender${i % 8}@example.com`,
          to: "help@together.test",
          subject: `Together ${i}`,
          text: `Mail number ${i}`,
          // the last four repeat the first four's Message-IDs, as a sender that retries after a lost 250 does
          messageId: `<together-${i % 20}@example.com>`
        }))
        const sent = yield* Effect.forEach(mails, (mail) => sendSmtp(port, mail), { concurrency: "unbounded" })
        expect(sent.every((result) => result.ok)).toBe(true)
        const filed = yield* emailTickets(projectId)
        expect(filed).toHaveLength(20)
        expect(filed.map((t) => t.ticket_number)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
        expect(new Set(filed.map((t) => t.subject.replace(/^Together /, "")).map((n) => Number(n) % 20)).size).toBe(20)
      }))

    it.effect("an agent answering their notification by mail replies as themselves; a stranger with it writes as a contact", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const port = yield* listenerPort
        const { projectId } = yield* mailProject("help@agents.test")
        yield* createAgent(server, projectId, "bo@agents.test", "Bo Agent")
        expect((yield* sendSmtp(port, {
          from: "kai@example.com",
          to: "help@agents.test",
          subject: "Printer",
          text: "It jams.",
          messageId: "<printer-1@example.com>"
        })).ok)
          .toBe(true)
        const [ticket] = yield* emailTickets(projectId)
        yield* updateTicket(server, projectId, ticket!.id, { assignee_email: "bo@agents.test" })
        expect((yield* sendSmtp(port, {
          from: "kai@example.com",
          to: "help@agents.test",
          subject: "Re: Printer",
          text: "Still jams.",
          // the contact's own follow-up: it names their first mail, and so the ticket
          references: ["<printer-1@example.com>"]
        })).ok)
          .toBe(true)
        const notice = yield* eventually(
          "the agent's notification",
          Effect.sync(() => {
            const mail = sink.received.find((m) => m.to.includes("bo@agents.test"))
            return { done: mail !== undefined, value: mail! }
          })
        )
        const parsed = yield* Effect.promise(() => PostalMime.parse(notice.raw))
        const agentReplyTo = parsed.replyTo![0]!.address!
        expect(agentReplyTo).toMatch(/^help\+[a-z2-7]{26}@agents\.test$/)
        expect(parsed.headers.find((h) => h.key === "auto-submitted")?.value).toBe("auto-generated")
        const answer = { to: agentReplyTo, subject: "Re: Printer", inReplyTo: parsed.messageId! }
        expect((yield* sendSmtp(port, { ...answer, from: "bo@agents.test", text: "Try the rear tray." })).ok).toBe(true)
        expect((yield* sendSmtp(port, { ...answer, from: "eve@example.com", text: "I am Bo, honest." })).ok).toBe(true)
        const read = yield* adminRead(server, projectId, ticket!.id)
        expect(read.messages.map((m) => [m.author_type, m.author_name, m.body]).slice(-2)).toEqual([
          ["agent", "Bo Agent", "Try the rear tray."],
          ["contact", null, "I am Bo, honest."]
        ])
        // the agent's mailed answer is a public reply: the contact is mailed it
        yield* eventually(
          "the contact to get the agent's answer",
          Effect.sync(() => ({ done: sink.received.some((m) => m.to.includes("kai@example.com") && m.raw.includes("rear tray")), value: null }))
        )
      }))

    it.effect("the same bytes over SMTP and posted to the HTTP door file the same ticket", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const port = yield* listenerPort
        const bySmtp = yield* mailProject("help@same-a.test")
        const byHttp = yield* mailProject("help@same-b.test")
        const file = randomBytes(200 * 1024)
        const raw = yield* compose({
          from: "Ola Nordmann <ola@example.com>",
          to: "help@same-a.test",
          subject: "Kvittering mangler",
          text: "Hei, kvitteringen min mangler.\n\n-- \nOla",
          messageId: "<same-bytes@example.com>",
          attachments: [{ filename: "skjermbilde.png", content: file, contentType: "image/png" }]
        })
        const sent = yield* Effect.promise(async () => {
          const transport = createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true })
          try {
            return await transport.sendMail({ envelope: { from: "ola@example.com", to: ["help@same-a.test"] }, raw: Buffer.from(raw) })
          } finally {
            transport.close()
          }
        })
        expect(sent.accepted).toEqual(["help@same-a.test"])
        const posted = yield* postMail(server, byHttp.key, raw)
        expect(posted.body.outcome).toBe("ticket_created")
        const reads = yield* Effect.forEach([bySmtp.projectId, byHttp.projectId], (projectId) =>
          Effect.flatMap(emailTickets(projectId), ([ticket]) => adminRead(server, projectId, ticket!.id)))
        for (const read of reads) {
          expect(read).toMatchObject({
            subject: "Kvittering mangler",
            body: "Hei, kvitteringen min mangler.",
            source: "email",
            sender_email: "ola@example.com",
            sender_name: "Ola Nordmann"
          })
          expect(read.attachments.map((a) => [a.filename, a.content_type, a.sha256])).toEqual([
            ["skjermbilde.png", "image/png", sha256(file)]
          ])
        }
      }))

    it.effect("auto-replies, bounces, list mail and the service's own mail file nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const port = yield* listenerPort
        const { projectId, key } = yield* mailProject("help@three.test")
        const base = { to: "help@three.test", subject: "Out of office", text: "I am away until Monday." }
        expect((yield* sendSmtp(port, { ...base, from: "away@example.com", headers: { "Auto-Submitted": "auto-replied" } })).ok).toBe(true)
        expect((yield* sendSmtp(port, { ...base, from: "list@example.com", headers: { "List-Id": "<news.example.com>" } })).ok).toBe(true)
        expect((yield* sendSmtp(port, { ...base, from: "MAILER-DAEMON@example.com", subject: "Undelivered" })).ok).toBe(true)
        // a bounce: the null return path
        expect((yield* sendSmtp(port, { ...base, from: "postmaster@example.com" }, { from: "", to: ["help@three.test"] })).ok).toBe(true)
        expect((yield* sendSmtp(port, { ...base, from: "noreply@acme.test" })).ok).toBe(true)
        const auto = yield* postMail(server, key, yield* compose({ ...base, from: "away@example.com", headers: { "X-Autoreply": "yes" } }))
        expect(auto.body).toMatchObject({ outcome: "ignored", reason: "autoreply_header" })
        expect(yield* emailTickets(projectId)).toHaveLength(0)
      }))

    it.effect("a forged or another project's reply token files a new ticket and touches no other", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sink = yield* SmtpSink
        const port = yield* listenerPort
        const a = yield* mailProject("help@four-a.test")
        const b = yield* mailProject("help@four-b.test")
        // project B has a ticket whose contact got a reply address
        expect((yield* sendSmtp(port, { from: "kim@example.com", to: "help@four-b.test", subject: "B's ticket", text: "hello B" })).ok)
          .toBe(true)
        const [bTicket] = yield* emailTickets(b.projectId)
        yield* agentMessage(server, b.projectId, bTicket!.id, "Answer from B")
        const bMail = yield* eventually(
          "B's reply to reach kim",
          Effect.sync(() => {
            const mail = sink.received.find((m) => m.to.includes("kim@example.com"))
            return { done: mail !== undefined, value: mail! }
          })
        )
        const bReplyTo = (yield* Effect.promise(() => PostalMime.parse(bMail.raw))).replyTo![0]!.address!
        const token = bReplyTo.slice(bReplyTo.indexOf("+") + 1, bReplyTo.indexOf("@"))
        // B's token sent to A's address, and a token nobody was given
        for (const to of [`help+${token}@four-a.test`, "help+aaaaaaaaaaaaaaaaaaaaaaaaaa@four-a.test"]) {
          expect((yield* sendSmtp(port, { from: "mallory@example.com", to, subject: "Hijack", text: "let me in" })).ok).toBe(true)
        }
        expect((yield* emailTickets(a.projectId)).map((t) => t.subject)).toEqual(["Hijack", "Hijack"])
        expect((yield* messagesOf(bTicket!.id)).map((m) => m.body)).toEqual(["Answer from B"])
      }))

    it.effect("refuses mail for nobody, too large or malformed with SMTP codes, and one sender's flood", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const port = yield* listenerPort
        const { projectId, key } = yield* mailProject("help@five.test")
        const unknown = yield* sendSmtp(port, { from: "x@example.com", to: "nobody@nowhere.test", subject: "s", text: "t" })
        expect(unknown).toMatchObject({ ok: false, code: 550 })
        const big = yield* sendSmtp(port, {
          from: "x@example.com",
          to: "help@five.test",
          subject: "big",
          text: "t",
          attachments: [{ filename: "big.bin", content: randomBytes(3 * 1024 * 1024), contentType: "application/octet-stream" }]
        })
        expect(big).toMatchObject({ ok: false, code: 552 })
        // a mail with no sender, and bytes that are no mail at all: 550, and nothing filed
        for (const raw of ["Subject: who am I\r\n\r\nno From header\r\n", randomBytes(2048).toString("latin1")]) {
          const refused = yield* Effect.promise(async () => {
            const transport = createTransport({ host: "127.0.0.1", port, secure: false, ignoreTLS: true })
            try {
              await transport.sendMail({ envelope: { from: "x@example.com", to: ["help@five.test"] }, raw })
              return 250
            } catch (error) {
              return (error as { responseCode?: number }).responseCode ?? 0
            } finally {
              transport.close()
            }
          })
          expect(refused).toBe(550)
        }
        const largeFile = yield* postMail(server, key, yield* compose({
          from: "x@example.com",
          to: "help@five.test",
          subject: "file over the limit",
          text: "t",
          attachments: [{ filename: "big.bin", content: randomBytes(1100 * 1024), contentType: "application/octet-stream" }]
        }))
        expect(largeFile.status).toBe(413)
        for (let i = 0; i < 3; i++) {
          expect((yield* sendSmtp(port, { from: "flood@example.com", to: "help@five.test", subject: `n${i}`, text: "t" })).ok).toBe(true)
        }
        const fourth = yield* sendSmtp(port, { from: "flood@example.com", to: "help@five.test", subject: "n3", text: "t" })
        expect(fourth).toMatchObject({ ok: false, code: 451 })
        const overHttp = yield* postMail(server, key, yield* compose({ from: "flood@example.com", to: "help@five.test", subject: "n4", text: "t" }))
        expect(overHttp.status).toBe(429)
        expect((yield* emailTickets(projectId)).map((t) => t.subject)).toEqual(["n0", "n1", "n2"])
      }))
  })
})
