import { Schema } from "effect"
import { Email, OneOf, optional, OptionalText, RequiredText } from "./Fields.ts"

export const KeyScope = OneOf("scope", ["full", "widget"])
export type KeyScope = typeof KeyScope.Type

export const CreateProjectInput = Schema.Struct({ name: RequiredText("name", 200) })
export const ProjectCreated = Schema.Struct({
  project_id: Schema.UUID,
  name: Schema.String,
  api_key: Schema.String,
  key_id: Schema.UUID
})
export type ProjectCreated = typeof ProjectCreated.Type

export const ProjectSummary = Schema.Struct({ project_id: Schema.UUID, name: Schema.String, created_at: Schema.String })
export const ProjectList = Schema.Struct({ projects: Schema.Array(ProjectSummary) })

export const CreateKeyInput = Schema.Struct({
  name: optional(OptionalText("name", 200)),
  scope: optional(KeyScope)
})
export const KeyCreated = Schema.Struct({ key_id: Schema.UUID, api_key: Schema.String, scope: KeyScope })
export type KeyCreated = typeof KeyCreated.Type

export const CreateAgentInput = Schema.Struct({
  email: Email("email"),
  name: RequiredText("name", 200)
})
export const AgentCreated = Schema.Struct({ agent_id: Schema.UUID, email: Schema.String, name: Schema.String })
export type AgentCreated = typeof AgentCreated.Type
