import { Schema } from "effect"
import { Email, IsoTimestamp, Limit, OneOf, RequiredText, Uuid } from "./Fields.ts"

/** The User-Agent the CLI sends when it works through the service: its actions are the CLI's. */
export const cliUserAgentPrefix = "support-ticketing-cli/"

/**
 * Who acted: an agent the call named (by `X-Agent-Email`, or as a reply's author), else the CLI,
 * else a holder of the admin token through the operator API.
 */
export const AuditActors = ["admin_token", "agent", "cli"] as const
export type AuditActor = (typeof AuditActors)[number]

/** One operator action, as the log keeps it. */
export const AuditEntry = Schema.Struct({
  audit_id: Schema.String,
  at: Schema.String,
  project_id: Schema.NullOr(Schema.String),
  actor: Schema.Literals(AuditActors),
  /** the agent the action was done as; null when none was named */
  agent_email: Schema.NullOr(Schema.String),
  /** the operator API's group and endpoint, e.g. `webhooks.replay` or `admin.revokeKey` */
  action: Schema.String,
  /** the ids the action named, e.g. `{"webhook_id": "…"}` */
  target: Schema.Record(Schema.String, Schema.String),
  /** the HTTP status answered; null when the CLI worked on the database itself */
  status: Schema.NullOr(Schema.Int),
  /** the client's address (behind a trusted proxy, the one it reported); `local` for the CLI on the database */
  source_ip: Schema.NullOr(Schema.String),
  user_agent: Schema.NullOr(Schema.String)
}).annotate({ identifier: "AuditEntry" })
export type AuditEntry = typeof AuditEntry.Type

export const AuditQuery = {
  project_id: Schema.optionalKey(Uuid.annotate({ message: "project_id must be a project id (a UUID)" })),
  action: Schema.optionalKey(RequiredText("action", 100)),
  actor: Schema.optionalKey(OneOf("actor", AuditActors)),
  agent_email: Schema.optionalKey(Email("agent_email")),
  since: Schema.optionalKey(IsoTimestamp("since")),
  until: Schema.optionalKey(IsoTimestamp("until")),
  limit: Schema.optionalKey(Limit(200)),
  cursor: Schema.optionalKey(Schema.String)
}
const AuditQueryStruct = Schema.Struct(AuditQuery)
export type AuditQuery = typeof AuditQueryStruct.Type

export const AuditPage = Schema.Struct({
  entries: Schema.Array(AuditEntry),
  next_cursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "AuditPage" })
export type AuditPage = typeof AuditPage.Type
