import { Context, DateTime, Effect, Layer, Option } from "effect"
import { Buffer } from "node:buffer"
import { AppConfig } from "../Config.ts"
import { Conflict, NotFound, ValidationError } from "../Domain/Errors.ts"
import * as Events from "../Domain/Events.ts"
import { isEmail } from "../Domain/Fields.ts"
import type { ProjectId, RatingToken, TicketId } from "../Domain/Ids.ts"
import { type ClaimedJob, eventJobs, JobFailed } from "../Domain/Jobs.ts"
import {
  misfit,
  type RateInput,
  type RatingRecorded,
  type RatingRequest,
  ratingOf,
  type SatisfactionSettings,
  type SatisfactionSummary,
  storedRating,
  type UpdateSatisfactionSettings
} from "../Domain/Satisfaction.ts"
import type { TicketGuard } from "../Domain/Ticket.ts"
import { MailRepo, newReplyToken } from "../Mail/Repo.ts"
import { Mailer } from "../Notifier/Mailer.ts"
import { domainOf, oneLine, threaded } from "../Notifier/Notifier.ts"
import { recordRating } from "../Observability/Metrics.ts"
import { sha256 } from "../Projects/Secrets.ts"
import { type AskRow, type RequestRow, SatisfactionRepo } from "./Repo.ts"

const ratingNotFound = new NotFound({ message: "rating not found" })
const ticketNotFound = new NotFound({ message: "ticket not found" })
const projectNotFound = new NotFound({ message: "project not found" })
const alreadyRated = new Conflict({ message: "this ticket was already rated: a rating is recorded once" })
const notAsked = new Conflict({ message: "this ticket's contact has not been asked to rate it" })

/** `csat_` and 32 random bytes: the link's secret, shown only in the mail; its hash is kept. */
const newRatingToken = () => `csat_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`

const nowIso = Effect.map(DateTime.now, DateTime.formatIso)

const requestOf = (row: RequestRow): RatingRequest => ({
  ticket_number: row.ticket_number,
  subject: row.subject,
  scale: row.scale,
  rating: row.rating === null ? null : ratingOf(row.rating),
  comment: row.comment,
  rated_at: row.rated_at
})

const askMail = (ask: AskRow, link: string) => {
  const ticket = `#${ask.ticket_number}`
  const question = ask.scale === "five"
    ? "How would you rate the help you got, from 1 (poor) to 5 (great)?"
    : "Were you happy with the help you got?"
  return {
    subject: `[${ticket}] How did we do? Re: ${oneLine(ask.subject)}`,
    text: `Your request ${ticket} (${oneLine(ask.subject)}) is resolved.\n\n${question}\nAnswer here, it takes one click: ${link}\n\n` +
      "The link is yours alone and takes one answer.\n"
  }
}

/**
 * Satisfaction surveys: a resolved ticket's contact is asked once (a job, after the project's
 * delay), by mail and in the widget, and rates through a link or the widget, once; the rating
 * goes out as `ticket_rated` and counts in the project's summary and the metrics.
 */
export class Satisfaction extends Context.Service<Satisfaction>()("app/Satisfaction", {
  make: Effect.gen(function*() {
    const repo = yield* SatisfactionRepo
    const mail = yield* MailRepo
    const mailer = yield* Mailer
    const config = yield* AppConfig
    const publicUrl = (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, "")

    /** Mails the link of a request that has not gone out; the ticket's mail thread carries it on. */
    const mailLink = Effect.fnUntraced(function*(ticketId: TicketId, ask: AskRow & { readonly email: string }, token: string) {
      const projectId = ask.project_id
      const inbound = Option.getOrNull(yield* mail.addressOf(projectId))
      const messageId = `${newReplyToken()}@${domainOf(inbound ?? config.mailFrom)}`
      const references = yield* mail.messageIdsOf(ticketId)
      const replyTo = inbound === null || ask.contact_id === null ? null : yield* Effect.map(
        mail.threadToken(projectId, ticketId, { contactId: ask.contact_id }),
        (thread) => {
          const at = inbound.lastIndexOf("@")
          return `${inbound.slice(0, at)}+${thread}${inbound.slice(at)}`
        }
      )
      yield* mail.recordMessage(projectId, messageId, ticketId, null, "out")
      yield* mailer.send({
        to: ask.email,
        ...askMail(ask, `${publicUrl}/rate/${token}`),
        autoSubmitted: "auto-generated",
        ...threaded({ messageId, replyTo, references })
      }).pipe(Effect.mapError((error) => new JobFailed({ message: error.message, cause: error })))
      yield* repo.markMailed(ticketId, yield* nowIso)
    })

    /**
     * The `satisfaction_request` job: nothing when the project asks no more, the ticket is no
     * longer resolved, or it was asked before; else the request, and its mail when the contact
     * has an address and mail is configured. A retry after a failed mail sends a fresh link.
     */
    const ask = Effect.fn("Satisfaction.ask")(function*(job: ClaimedJob<"satisfaction_request">) {
      if (job.ticketId === null) return
      const ticketId = job.ticketId
      const found = yield* repo.askContext(ticketId)
      if (Option.isNone(found)) return
      const context = found.value
      if (!context.enabled || context.status !== "resolved" || context.rated) return
      const token = newRatingToken()
      const made = context.requested
        ? false
        : yield* repo.insertRequest({
          projectId: context.project_id,
          ticketId,
          tokenHash: sha256(token),
          scale: context.scale,
          requestedAt: yield* nowIso
        })
      const email = context.email
      if (!mailer.configured || email === null || !isEmail(email) || (context.requested && context.mailed)) return
      // made by an earlier attempt whose mail failed: only its hash is kept, so it gets a new link
      if (!made && !(yield* repo.renewToken(ticketId, sha256(token)))) return
      yield* mailLink(ticketId, { ...context, email }, token)
    })

    const rateRow = Effect.fnUntraced(function*(row: RequestRow, input: RateInput) {
      if (row.rated_at !== null) return yield* alreadyRated
      const why = misfit(row.scale, input.rating)
      if (why !== undefined) return yield* new ValidationError({ message: why })
      const ratedAt = yield* nowIso
      const comment = input.comment == null || input.comment === "" ? null : input.comment
      const stored = storedRating(input.rating)
      const recorded = yield* repo.record({
        requestId: row.id,
        rating: stored,
        comment,
        ratedAt,
        jobs: eventJobs(Events.ticketRated({
          ticket_id: row.ticket_id,
          project_id: row.project_id,
          rating: input.rating,
          comment,
          rated_at: ratedAt
        }))
      })
      if (Option.isNone(recorded)) return yield* alreadyRated
      recordRating(yield* Effect.context<never>(), stored)
      return {
        ticket_number: row.ticket_number,
        subject: row.subject,
        scale: row.scale,
        rating: input.rating,
        comment,
        rated_at: recorded.value
      } satisfies RatingRecorded
    })

    const byToken = (token: RatingToken) =>
      Effect.flatMap(repo.byToken(sha256(token)), Option.match({ onNone: () => Effect.fail(ratingNotFound), onSome: Effect.succeed }))

    /** What the link shows; reading it never records anything (mail scanners open links). */
    const getByToken = Effect.fn("Satisfaction.getByToken")(function*(token: RatingToken) {
      return requestOf(yield* byToken(token))
    })

    const rateByToken = Effect.fn("Satisfaction.rateByToken")(function*(token: RatingToken, input: RateInput) {
      return yield* rateRow(yield* byToken(token), input)
    })

    /** The widget's way: the ticket's own proof instead of the link's token. */
    const rateTicket = Effect.fn("Satisfaction.rateTicket")(function*(
      projectId: ProjectId,
      ticketId: TicketId,
      guard: TicketGuard,
      input: RateInput
    ) {
      const owner = yield* repo.ownerOf(projectId, ticketId)
      if (Option.isNone(owner) || !guard({ ticketId, ...owner.value })) return yield* ticketNotFound
      const found = yield* repo.byTicket(projectId, ticketId)
      if (Option.isNone(found)) return yield* notAsked
      const row = found.value
      return yield* rateRow(row, input)
    })

    const settings = Effect.fn("Satisfaction.settings")(function*(projectId: ProjectId) {
      const found = yield* repo.settings(projectId)
      if (Option.isNone(found)) return yield* projectNotFound
      return found.value satisfies SatisfactionSettings
    })

    const updateSettings = Effect.fn("Satisfaction.updateSettings")(function*(
      projectId: ProjectId,
      change: UpdateSatisfactionSettings
    ) {
      const updated = yield* repo.updateSettings(projectId, change)
      if (Option.isNone(updated)) return yield* projectNotFound
      return updated.value satisfies SatisfactionSettings
    })

    const summary = Effect.fn("Satisfaction.summary")(function*(
      projectId: ProjectId,
      period: { readonly since?: string | undefined; readonly until?: string | undefined }
    ) {
      if (Option.isNone(yield* repo.settings(projectId))) return yield* projectNotFound
      const counts = yield* repo.counts(projectId, period.since, period.until)
      const distribution: Record<string, number> = { "1": 0, "2": 0, "3": 0, "4": 0, "5": 0, good: 0, bad: 0 }
      for (const { n, rating } of counts) distribution[rating] = n
      const fives = ["1", "2", "3", "4", "5"].reduce((sum, value) => sum + distribution[value]!, 0)
      const ratings = fives + distribution.good! + distribution.bad!
      const happy = distribution["4"]! + distribution["5"]! + distribution.good!
      const total = ["1", "2", "3", "4", "5"].reduce((sum, value) => sum + Number(value) * distribution[value]!, 0)
      return {
        ratings,
        average: fives === 0 ? null : Math.round((total / fives) * 100) / 100,
        good: distribution.good!,
        bad: distribution.bad!,
        distribution,
        score: ratings === 0 ? null : Math.round((happy / ratings) * 10_000) / 10_000
      } satisfies SatisfactionSummary
    })

    return { ask, getByToken, rateByToken, rateTicket, settings, updateSettings, summary }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([SatisfactionRepo.layer, MailRepo.layer, Mailer.layer])
  )
}
