import { Schema } from "effect"
import { Uuid } from "./Fields.ts"

/** What became of an inbound mail. */
export const InboundOutcomes = ["ticket_created", "message_added", "ignored", "duplicate"] as const

export const InboundResult = Schema.Struct({
  outcome: Schema.Literals(InboundOutcomes),
  /** why a mail was ignored: a machine's mail (auto_submitted, precedence, autoreply_header, mailing_list, bounce, mailer_daemon) or the service's own */
  reason: Schema.NullOr(Schema.String),
  ticket_id: Schema.NullOr(Uuid),
  ticket_number: Schema.NullOr(Schema.Int),
  message_id: Schema.NullOr(Uuid)
}).annotate({ identifier: "InboundResult" })
export type InboundResult = typeof InboundResult.Type

/** A project's mail settings, as the operator API shows them. */
export const MailSettings = Schema.Struct({
  inbound_address: Schema.NullOr(Schema.String).annotate({
    description: "mail to this address files tickets in the project; replies go to it with +token added"
  })
}).annotate({ identifier: "MailSettings" })
export type MailSettings = typeof MailSettings.Type
