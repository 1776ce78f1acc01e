import { Schema } from "effect"
import { Email, OneOf, optional, OptionalText, RequiredName, RequiredText, Uuid } from "./Fields.ts"

export const KeyScopes = ["full", "widget"] as const
export const KeyScope = OneOf("scope", KeyScopes)
export type KeyScope = typeof KeyScope.Type

export const CreateProjectInput = Schema.Struct({ name: RequiredText("name", 200) })
  .annotate({ message: "request body must be a JSON object" })
export const ProjectCreated = Schema.Struct({
  project_id: Uuid,
  name: Schema.String,
  api_key: Schema.String,
  key_id: Uuid
})
export type ProjectCreated = typeof ProjectCreated.Type

export const ProjectSummary = Schema.Struct({ project_id: Uuid, name: Schema.String, created_at: Schema.String })
export type ProjectSummary = typeof ProjectSummary.Type
export const ProjectList = Schema.Struct({ projects: Schema.Array(ProjectSummary) })

export const CreateKeyInput = Schema.Struct({
  name: optional(OptionalText("name", 200)),
  scope: optional(KeyScope)
}).annotate({ message: "request body must be a JSON object" })
export const KeyCreated = Schema.Struct({ key_id: Uuid, api_key: Schema.String, scope: KeyScope })
export type KeyCreated = typeof KeyCreated.Type

export const CreateAgentInput = Schema.Struct({
  email: Email("email"),
  name: RequiredName("name", 200)
}).annotate({ message: "request body must be a JSON object" })
export const AgentCreated = Schema.Struct({ agent_id: Uuid, email: Schema.String, name: Schema.String })
export type AgentCreated = typeof AgentCreated.Type

/** A key as the operator sees it later: never the key, nor its hash. */
export const ApiKeySummary = Schema.Struct({
  key_id: Uuid,
  name: Schema.NullOr(Schema.String),
  scope: KeyScope,
  created_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ApiKeySummary" })
export type ApiKeySummary = typeof ApiKeySummary.Type
export const ApiKeyList = Schema.Struct({ api_keys: Schema.Array(ApiKeySummary) }).annotate({ identifier: "ApiKeyList" })

export const AgentSummary = Schema.Struct({
  agent_id: Uuid,
  email: Schema.String,
  name: Schema.String,
  created_at: Schema.String
}).annotate({ identifier: "AgentSummary" })
export type AgentSummary = typeof AgentSummary.Type
export const AgentList = Schema.Struct({ agents: Schema.Array(AgentSummary) }).annotate({ identifier: "AgentList" })
