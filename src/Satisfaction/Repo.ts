import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Buffer } from "node:buffer"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow, Status, TimestampFromRow } from "../Domain/Fields.ts"
import { ContactIdFromRow, type ProjectId, ProjectIdFromRow, type TicketId, TicketIdFromRow } from "../Domain/Ids.ts"
import type { NewJob } from "../Domain/Jobs.ts"
import {
  type SatisfactionSettings,
  SatisfactionScale,
  type UpdateSatisfactionSettings
} from "../Domain/Satisfaction.ts"
import { enqueue } from "../Jobs/Outbox.ts"

const SettingsRow = Schema.Struct({
  enabled: Schema.Boolean,
  scale: SatisfactionScale,
  delay_minutes: IntFromRow
})

/** What the `satisfaction_request` job reads of its ticket, its project and an earlier request. */
const AskRow = Schema.Struct({
  project_id: ProjectIdFromRow,
  ticket_number: IntFromRow,
  subject: Schema.String,
  status: Status,
  enabled: Schema.Boolean,
  scale: SatisfactionScale,
  contact_id: Schema.NullOr(ContactIdFromRow),
  email: Schema.NullOr(Schema.String),
  requested: Schema.Boolean,
  mailed: Schema.Boolean,
  rated: Schema.Boolean
})
export type AskRow = typeof AskRow.Type

/** A request with its ticket, as the link and the widget reach it. */
const RequestRow = Schema.Struct({
  id: Schema.String,
  project_id: ProjectIdFromRow,
  ticket_id: TicketIdFromRow,
  ticket_number: IntFromRow,
  subject: Schema.String,
  sender_email: Schema.NullOr(Schema.String),
  visitor_sub: Schema.NullOr(Schema.String),
  scale: SatisfactionScale,
  rating: Schema.NullOr(Schema.String),
  comment: Schema.NullOr(Schema.String),
  rated_at: Schema.NullOr(TimestampFromRow)
})
export type RequestRow = typeof RequestRow.Type

const OwnerRow = Schema.Struct({ senderEmail: Schema.NullOr(Schema.String), visitorSub: Schema.NullOr(Schema.String) })

const RatedRow = Schema.Struct({ rated_at: TimestampFromRow })

const CountRow = Schema.Struct({ rating: Schema.String, n: IntFromRow })

const requestColumns = `r.id, r.project_id, r.ticket_id, t.ticket_number, t.subject, t.sender_email, t.visitor_sub,
  r.scale, r.rating, r.comment, r.rated_at`

/** Satisfaction settings of projects, requests of tickets, and the ratings recorded on them. */
export class SatisfactionRepo extends Context.Service<SatisfactionRepo>()("app/Satisfaction/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(requestColumns)

    const settings = (projectId: ProjectId) =>
      sql`SELECT satisfaction_enabled AS enabled, satisfaction_scale AS scale, satisfaction_delay_minutes AS delay_minutes
          FROM projects WHERE id = ${projectId}`.pipe(Rows.first(SettingsRow))

    /** Changes the settings given; none when the project does not exist. */
    const updateSettings = (projectId: ProjectId, change: UpdateSatisfactionSettings) =>
      sql`UPDATE projects SET
            satisfaction_enabled = coalesce(${change.enabled ?? null}::boolean, satisfaction_enabled),
            satisfaction_scale = coalesce(${change.scale ?? null}::text, satisfaction_scale),
            satisfaction_delay_minutes = coalesce(${change.delay_minutes ?? null}::int, satisfaction_delay_minutes)
          WHERE id = ${projectId}
          RETURNING satisfaction_enabled AS enabled, satisfaction_scale AS scale,
            satisfaction_delay_minutes AS delay_minutes`.pipe(
        Rows.first(SettingsRow),
        Effect.map(Option.map((row): SatisfactionSettings => row))
      )

    const askContext = (ticketId: TicketId) =>
      sql`SELECT t.project_id, t.ticket_number, t.subject, t.status, p.satisfaction_enabled AS enabled,
            p.satisfaction_scale AS scale, t.contact_id, coalesce(c.email, t.sender_email) AS email,
            r.id IS NOT NULL AS requested, r.mailed_at IS NOT NULL AS mailed, r.rated_at IS NOT NULL AS rated
          FROM tickets t JOIN projects p ON p.id = t.project_id
            LEFT JOIN contacts c ON c.id = t.contact_id
            LEFT JOIN satisfaction_requests r ON r.ticket_id = t.id
          WHERE t.id = ${ticketId}`.pipe(Rows.first(AskRow))

    /** Makes the ticket's one request; false when it has one already. */
    const insertRequest = (request: {
      readonly projectId: ProjectId
      readonly ticketId: TicketId
      readonly tokenHash: Buffer
      readonly scale: SatisfactionSettings["scale"]
      readonly requestedAt: string
    }) =>
      sql`INSERT INTO satisfaction_requests (project_id, ticket_id, token_hash, scale, requested_at)
          VALUES (${request.projectId}, ${request.ticketId}, ${request.tokenHash}, ${request.scale}, ${request.requestedAt})
          ON CONFLICT (ticket_id) DO NOTHING
          RETURNING id`.pipe(Rows.some)

    /**
     * A new token for a request whose mail never went out (the attempt that made it failed): only
     * the hash was kept, so the retry mails a fresh link. False once it was mailed or rated.
     */
    const renewToken = (ticketId: TicketId, tokenHash: Buffer) =>
      sql`UPDATE satisfaction_requests SET token_hash = ${tokenHash}
          WHERE ticket_id = ${ticketId} AND mailed_at IS NULL AND rated_at IS NULL
          RETURNING id`.pipe(Rows.some)

    const markMailed = (ticketId: TicketId, at: string) =>
      sql`UPDATE satisfaction_requests SET mailed_at = ${at} WHERE ticket_id = ${ticketId}`.pipe(Rows.run)

    const byToken = (tokenHash: Buffer) =>
      sql`SELECT ${columns} FROM satisfaction_requests r JOIN tickets t ON t.id = r.ticket_id
          WHERE r.token_hash = ${tokenHash}`.pipe(Rows.first(RequestRow))

    /** Whose the ticket is, for the widget's proof. */
    const ownerOf = (projectId: ProjectId, ticketId: TicketId) =>
      sql`SELECT sender_email AS "senderEmail", visitor_sub AS "visitorSub" FROM tickets
          WHERE id = ${ticketId} AND project_id = ${projectId}`.pipe(Rows.first(OwnerRow))

    const byTicket = (projectId: ProjectId, ticketId: TicketId) =>
      sql`SELECT ${columns} FROM satisfaction_requests r JOIN tickets t ON t.id = r.ticket_id
          WHERE r.ticket_id = ${ticketId} AND r.project_id = ${projectId}`.pipe(Rows.first(RequestRow))

    /**
     * Records the rating and its jobs in one transaction, once: a second rating, even one racing
     * this one, finds it rated and changes nothing. Answers when it was recorded, or none.
     */
    const record = (rating: {
      readonly requestId: string
      readonly rating: string
      readonly comment: string | null
      readonly ratedAt: string
      readonly jobs: ReadonlyArray<NewJob>
    }) =>
      Rows.transaction(sql)(Effect.gen(function*() {
        const rated = yield* sql`
          UPDATE satisfaction_requests SET rating = ${rating.rating}, comment = ${rating.comment}, rated_at = ${rating.ratedAt}
          WHERE id = ${rating.requestId} AND rated_at IS NULL
          RETURNING rated_at`.pipe(Rows.first(RatedRow))
        if (Option.isSome(rated)) yield* enqueue(sql, rating.jobs)
        return Option.map(rated, (row) => row.rated_at)
      }))

    /** Ratings of the project recorded in [since, until), counted by value. */
    const counts = (projectId: ProjectId, since: string | undefined, until: string | undefined) =>
      sql`SELECT rating, count(*) AS n FROM satisfaction_requests
          WHERE project_id = ${projectId} AND rated_at IS NOT NULL
            ${since === undefined ? sql`` : sql`AND rated_at >= ${since}`}
            ${until === undefined ? sql`` : sql`AND rated_at < ${until}`}
          GROUP BY rating`.pipe(Rows.all(CountRow))

    return { settings, updateSettings, askContext, insertRequest, renewToken, markMailed, byToken, ownerOf, byTicket, record, counts }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
