import { Schema } from "effect"
import { OneOf, optional, OptionalText } from "./Fields.ts"

/** How a project asks: a number from 1 (bad) to 5 (great), or good/bad. */
export const SatisfactionScales = ["five", "good_bad"] as const
export const SatisfactionScale = OneOf("scale", SatisfactionScales)
export type SatisfactionScale = typeof SatisfactionScale.Type

/** A rating as it is recorded and read: 1-5 on the five-point scale, `good` or `bad` on the other. */
export const Rating = Schema.Union([Schema.Int, Schema.Literals(["good", "bad"])])
export type Rating = typeof Rating.Type

const ratingRule = "rating must be an integer from 1 to 5, or good or bad, as the project asks"

/** The rating a contact sends; whether it fits the project's scale is checked against the scale. */
// each member carries the rule too: a value that fits neither is reported by the members' messages
const RatingInput = Schema.Union([
  Schema.Finite.annotate({ message: ratingRule })
    .check(Schema.makeFilter((n: number) => (Number.isInteger(n) && n >= 1 && n <= 5) || ratingRule)),
  Schema.Literals(["good", "bad"]).annotate({ message: ratingRule })
]).annotate({ message: ratingRule })

export const RateInput = Schema.Struct({
  rating: RatingInput,
  comment: optional(OptionalText("comment", 2_000))
}).annotate({ message: "request body must be a JSON object", identifier: "RateInput" })
export type RateInput = typeof RateInput.Type

/** Why a rating does not fit the scale `scale`, or undefined when it does. */
export const misfit = (scale: SatisfactionScale, rating: Rating): string | undefined =>
  scale === "five"
    ? typeof rating === "number" ? undefined : "rating must be an integer from 1 to 5 on this project's scale"
    : typeof rating === "string" ? undefined : "rating must be good or bad on this project's scale"

/** A rating as stored: text, one column for both scales. */
export const storedRating = (rating: Rating) => String(rating) as "1" | "2" | "3" | "4" | "5" | "good" | "bad"

/** A stored rating as the API shows it. */
export const ratingOf = (stored: string): Rating => stored === "good" || stored === "bad" ? stored : Number(stored)

/** The ticket's satisfaction as its contact sees it: null rating while not rated yet. */
export const Satisfaction = Schema.Struct({
  scale: SatisfactionScale,
  rating: Schema.NullOr(Rating),
  comment: Schema.NullOr(Schema.String),
  rated_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "Satisfaction" })
export type Satisfaction = typeof Satisfaction.Type

/** The operator's view adds when the contact was asked. */
export const AdminSatisfaction = Schema.Struct({
  ...Satisfaction.fields,
  requested_at: Schema.String
}).annotate({ identifier: "AdminSatisfaction" })
export type AdminSatisfaction = typeof AdminSatisfaction.Type

/** What the rating link shows: which ticket, on which scale, and the rating once given. */
export const RatingRequest = Schema.Struct({
  ticket_number: Schema.Int,
  subject: Schema.String,
  ...Satisfaction.fields
}).annotate({ identifier: "RatingRequest" })
export type RatingRequest = typeof RatingRequest.Type

/** A recorded rating. */
export const RatingRecorded = Schema.Struct({
  ticket_number: Schema.Int,
  subject: Schema.String,
  scale: SatisfactionScale,
  rating: Rating,
  comment: Schema.NullOr(Schema.String),
  rated_at: Schema.String
}).annotate({ identifier: "RatingRecorded" })
export type RatingRecorded = typeof RatingRecorded.Type

export const maxDelayMinutes = 525_600

export const SatisfactionSettings = Schema.Struct({
  enabled: Schema.Boolean,
  scale: SatisfactionScale,
  /** minutes between the resolution and the request */
  delay_minutes: Schema.Int
}).annotate({ identifier: "SatisfactionSettings" })
export type SatisfactionSettings = typeof SatisfactionSettings.Type

export const UpdateSatisfactionSettings = Schema.Struct({
  enabled: optional(Schema.Boolean.annotate({ message: "enabled must be true or false" })),
  scale: optional(SatisfactionScale),
  delay_minutes: optional(Schema.Finite.annotate({ message: "delay_minutes must be an integer from 0 to 525,600 (a year)" }).check(Schema.makeFilter((n: number) =>
    (Number.isInteger(n) && n >= 0 && n <= maxDelayMinutes) || "delay_minutes must be an integer from 0 to 525,600 (a year)"
  )).annotate({ message: "delay_minutes must be an integer from 0 to 525,600 (a year)" }))
}).annotate({ message: "request body must be a JSON object", identifier: "UpdateSatisfactionSettings" })
export type UpdateSatisfactionSettings = typeof UpdateSatisfactionSettings.Type

/** Ratings of a project in a period: how many, how they spread, and the share that were happy. */
export const SatisfactionSummary = Schema.Struct({
  ratings: Schema.Int,
  /** the mean of the 1-5 ratings; null when there are none */
  average: Schema.NullOr(Schema.Number),
  good: Schema.Int,
  bad: Schema.Int,
  /** ratings by value: "1".."5", "good", "bad" */
  distribution: Schema.Record(Schema.String, Schema.Int),
  /** the share of ratings of 4-5 or good, 0..1; null when there are none */
  score: Schema.NullOr(Schema.Number)
}).annotate({ identifier: "SatisfactionSummary" })
export type SatisfactionSummary = typeof SatisfactionSummary.Type

/** A ticket's request as the ticket reads select it (one JSON object, or null when never asked). */
export const SatisfactionRow = Schema.NullOr(Schema.Struct({
  scale: SatisfactionScale,
  rating: Schema.NullOr(Schema.String),
  comment: Schema.NullOr(Schema.String),
  rated_at: Schema.NullOr(Schema.String),
  requested_at: Schema.String
}))
export type SatisfactionRow = typeof SatisfactionRow.Type

export const adminSatisfaction = (row: SatisfactionRow): AdminSatisfaction | null =>
  row === null ? null : { ...row, rating: row.rating === null ? null : ratingOf(row.rating) }

export const publicSatisfaction = (row: SatisfactionRow): Satisfaction | null =>
  row === null ? null : { scale: row.scale, rating: row.rating === null ? null : ratingOf(row.rating), comment: row.comment, rated_at: row.rated_at }
