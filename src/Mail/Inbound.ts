import { Context, Data, DateTime, Duration, Effect, Layer, Option, Result } from "effect"
import * as Grouped from "../Database/Grouped.ts"
import { Attachments } from "../Attachments/Attachments.ts"
import { AppConfig } from "../Config.ts"
import type { NewFile } from "../Domain/Attachment.ts"
import { isEmail } from "../Domain/Fields.ts"
import type { MessageId, ProjectId, TicketId } from "../Domain/Ids.ts"
import type { InboundResult } from "../Domain/Mail.ts"
import { AgentsRepo } from "../Admin/Repo.ts"
import { Tickets } from "../Tickets/Tickets.ts"
import { MalformedMail, newText, type ParsedMail, parseMail, splitAddress } from "./Parse.ts"
import { MailRepo, type Thread } from "./Repo.ts"

/**
 * Why a mail is refused, in terms both doors answer in: SMTP with its reply code, HTTP with its
 * status. A temporary refusal (`retry`) tells the sender to try again later; nothing is written.
 */
export class MailRefused extends Data.TaggedError("MailRefused")<{
  readonly reason: "malformed" | "too_large" | "unknown_recipient" | "sender_limit"
  readonly message: string
}> {}

/** Where a mail came from: the SMTP envelope, or the project whose key posted it over HTTP. */
export interface Arrival {
  /** the project, when the door already knows it (HTTP) */
  readonly projectId?: ProjectId | undefined
  /** the envelope's recipients (SMTP); HTTP has the headers' instead */
  readonly recipients?: ReadonlyArray<string> | undefined
  /** the envelope's sender: null is the null return path `<>` of bounces; undefined, not known */
  readonly mailFrom?: string | null | undefined
}

const maxSubject = 200
const maxBody = 50_000

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Text as a ticket keeps it: within the API's own limits, with no lone surrogate (a cut pair included). */
const fit = (text: string, max: number) => text.slice(0, max).replace(loneSurrogate, "\uFFFD")

const filesOf = (mail: ParsedMail): ReadonlyArray<NewFile> =>
  mail.attachments.map((file) => ({ filename: file.filename, contentType: file.contentType, content: file.content }))

class AlreadyFiled extends Data.TaggedError("AlreadyFiled")<{}> {}

const ignored = (reason: string): InboundResult => ({
  outcome: "ignored",
  reason,
  ticket_id: null,
  ticket_number: null,
  message_id: null
})

/**
 * Mail in: a new ticket with `source: "email"`, or a message on the ticket its reply address or
 * its In-Reply-To/References name. Machine mail (auto-replies, bounces, lists) and the service's
 * own files nothing; a mail delivered twice (one Message-ID) files once; one sender filing too
 * many new tickets an hour is refused for a while. Everything of one mail commits together.
 */
export class InboundMail extends Context.Service<InboundMail>()("app/Mail/Inbound", {
  make: Effect.gen(function*() {
    const repo = yield* MailRepo
    const tickets = yield* Tickets
    const agents = yield* AgentsRepo
    const attachments = yield* Attachments
    const config = yield* AppConfig
    // mails that arrive together file their tickets together: one lock of the project's numbering
    // and one commit for all of them, where one by one each waited for the one before
    const fileTogether = yield* Grouped.statements({
      inFlight: 2,
      maxBatch: 50,
      one: (create: Parameters<typeof tickets.createTogether<AlreadyFiled>>[0][number]) =>
        Effect.map(tickets.createTogether([create]), (results) => results[0]!),
      many: (creates) => tickets.createTogether(creates)
    })
    const ownAddress = splitAddress(/<([^>]+)>/.exec(config.mailFrom)?.[1] ?? config.mailFrom).base

    /** The project of the first recipient that is a project's inbound address (a reply address included). */
    const projectOf = Effect.fnUntraced(function*(recipients: ReadonlyArray<string>) {
      for (const recipient of recipients) {
        const found = yield* repo.projectByAddress(splitAddress(recipient).base)
        if (Option.isSome(found)) return Option.some(found.value)
      }
      return Option.none()
    })

    /** Whether mail to `recipient` reaches a project: the SMTP door asks at RCPT TO, before the mail is sent. */
    const knowsRecipient = (recipient: string) =>
      Effect.map(repo.projectByAddress(splitAddress(recipient).base), Option.isSome)

    /** The reply address's thread, when one of the recipients is a reply address of the project. */
    const threadOf = Effect.fnUntraced(function*(projectId: ProjectId, address: string, recipients: ReadonlyArray<string>) {
      const base = splitAddress(address).base
      for (const recipient of recipients) {
        const { base: recipientBase, tag } = splitAddress(recipient)
        if (recipientBase !== base || tag === null) continue
        const thread = yield* repo.threadByToken(projectId, tag)
        if (Option.isSome(thread)) return thread
      }
      return Option.none<Thread>()
    })

    const refuseWhenFlooding = Effect.fnUntraced(function*(projectId: ProjectId, sender: string) {
      const since = DateTime.toDateUtc(DateTime.subtractDuration(yield* DateTime.now, Duration.hours(1)))
      const filed = yield* repo.ticketsFiledSince(projectId, sender, since)
      if (filed >= config.mailSenderLimitPerHour) {
        return yield* new MailRefused({
          reason: "sender_limit",
          message: `${sender} filed ${filed} tickets by mail in the last hour, the most one sender may; try again later`
        })
      }
    })

    const receive = Effect.fn("InboundMail.receive")(function*(raw: Uint8Array, arrival: Arrival) {
      if (raw.byteLength > config.mailMaxBytes) {
        return yield* new MailRefused({ reason: "too_large", message: `the mail is larger than ${config.mailMaxBytes} bytes` })
      }
      const mail = yield* parseMail(raw, { mailFrom: arrival.mailFrom }).pipe(
        Effect.mapError((error: MalformedMail) => new MailRefused({ reason: "malformed", message: error.message }))
      )
      if (mail.loop !== null) return ignored(mail.loop)
      const recipients = arrival.recipients ?? mail.to
      const project = arrival.projectId !== undefined
        ? Option.some({ id: arrival.projectId, inbound_address: Option.getOrNull(yield* repo.addressOf(arrival.projectId)) })
        : yield* projectOf(recipients)
      if (Option.isNone(project)) {
        return yield* new MailRefused({ reason: "unknown_recipient", message: "no project receives mail at this address" })
      }
      const projectId = project.value.id
      const inbound = project.value.inbound_address
      const sender = mail.from.address
      if (!isEmail(sender)) return yield* new MailRefused({ reason: "malformed", message: "the From address is not valid" })
      // the service's own mail come back (a forward loop, a misrouted copy) is never filed
      if (sender === ownAddress || (inbound !== null && splitAddress(sender).base === splitAddress(inbound).base)) {
        return ignored("own_mail")
      }
      const known = mail.messageId === null ? Option.none() : yield* repo.ticketOfMessageIds(projectId, [mail.messageId])
      if (Option.isSome(known)) {
        return known.value.direction === "out" ? ignored("own_mail") : {
          outcome: "duplicate",
          reason: null,
          ticket_id: known.value.ticket_id,
          ticket_number: null,
          message_id: null
        } satisfies InboundResult
      }
      const files = filesOf(mail)
      yield* attachments.checkFiles(files).pipe(
        Effect.mapError((error) => new MailRefused({ reason: "too_large", message: error.message }))
      )
      const thread = inbound === null ? Option.none<Thread>() : yield* threadOf(projectId, inbound, recipients)
      const answered: Option.Option<TicketId> = Option.isSome(thread)
        ? Option.some(thread.value.ticket_id)
        : Option.map(yield* repo.ticketOfMessageIds(projectId, [...mail.inReplyTo, ...mail.references]), (row) => row.ticket_id)
      const body = fit(newText(mail.text) || mail.subject || "(no text)", maxBody)
      const record = (written: { readonly ticketId: TicketId; readonly messageId: MessageId | null }) =>
        mail.messageId === null ? Effect.void : Effect.flatMap(
          repo.recordMessage(projectId, mail.messageId, written.ticketId, written.messageId, "in"),
          (recorded) => recorded ? Effect.void : Effect.fail(new AlreadyFiled())
        )
      const extras = { files, within: record }

      const fileNew = Effect.gen(function*() {
        yield* refuseWhenFlooding(projectId, sender)
        const created = yield* fileTogether({
          projectId,
          input: {
            subject: fit(mail.subject || body.split("\n", 1)[0]!, maxSubject) || "(no subject)",
            body,
            sender_email: sender,
            sender_name: mail.from.name === null ? undefined : fit(mail.from.name, 200),
            source: "email"
          },
          options: { senderVerified: false, ...extras }
        })
        if (Result.isFailure(created)) return yield* Effect.fail(created.failure)
        return {
          outcome: "ticket_created" as const,
          ticketId: created.success.ticket_id,
          messageId: null,
          number: created.success.ticket_number
        }
      })

      const answer = (ticketId: TicketId) =>
        Effect.gen(function*() {
          const agentThread = Option.isSome(thread) && thread.value.agent_id !== null ? thread.value.agent_id : null
          const agent = agentThread === null ? Option.none() : yield* agents.findByEmail(projectId, sender)
          // an agent answering their notification replies as themselves; anyone else writes as a contact
          if (Option.isSome(agent) && agent.value.id === agentThread) {
            const created = yield* tickets.addAgentMessage(projectId, ticketId, { body, author_email: sender }, extras)
            return { outcome: "message_added" as const, ticketId, messageId: created.message_id, number: null }
          }
          const created = yield* tickets.addMessage(projectId, ticketId, { body, contact_email: sender }, () => true, extras)
          return { outcome: "message_added" as const, ticketId, messageId: created.message_id, number: null }
        }).pipe(
          // the ticket a reply names is gone: the mail files a new one rather than being lost
          Effect.catchTag("NotFound", () => fileNew)
        )

      const written = yield* (Option.isSome(answered) ? answer(answered.value) : fileNew).pipe(
        Effect.catchTag("AlreadyFiled", () => Effect.succeed(undefined)),
        Effect.catchTag("PayloadTooLarge", (error) => Effect.fail(new MailRefused({ reason: "too_large", message: error.message }))),
        // only named uploads fail validation, and a mail names none
        Effect.catchTag("ValidationError", (error) => Effect.fail(new MailRefused({ reason: "malformed", message: error.message })))
      )
      if (written === undefined) {
        return { outcome: "duplicate", reason: null, ticket_id: null, ticket_number: null, message_id: null } satisfies InboundResult
      }
      return {
        outcome: written.outcome,
        reason: null,
        ticket_id: written.ticketId,
        ticket_number: written.number,
        message_id: written.messageId
      } satisfies InboundResult
    })

    return { receive, knowsRecipient }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([MailRepo.layer, AgentsRepo.layer, Attachments.layer, Tickets.layer])
  )
}
