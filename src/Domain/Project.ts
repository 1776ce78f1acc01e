import { Schema } from "effect"
import { Email, OneOf, optional, OptionalText, RequiredName, RequiredText, Uuid } from "./Fields.ts"

export const maxRateLimitPerMinute = 1_000_000

/**
 * A key's own budget, in requests a minute. Finite, because Number's JSON form also takes the
 * strings "NaN" and "Infinity", and a refused string would then read as that, not as this rule.
 */
export const RateLimitPerMinute = Schema.Finite.check(
  Schema.makeFilter((n: number) => Number.isInteger(n) || "rate_limit_per_minute must be an integer"),
  Schema.makeFilter((n: number) =>
    (n >= 1 && n <= maxRateLimitPerMinute) || "rate_limit_per_minute must be between 1 and 1,000,000"
  )
).annotate({ description: "requests a minute, 1 to 1,000,000" })

/** A key's own budget, or null for the service's RATE_LIMIT_PER_MINUTE. */
const RateLimitOrDefault = Schema.NullOr(RateLimitPerMinute).annotate({
  message: "rate_limit_per_minute must be an integer or null"
})

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
  scope: optional(KeyScope),
  rate_limit_per_minute: Schema.optionalKey(RateLimitOrDefault)
}).annotate({ message: "request body must be a JSON object" })

/** A key's budget as it is read back: null is the service's RATE_LIMIT_PER_MINUTE. */
const KeyLimit = Schema.NullOr(Schema.Int).annotate({
  description: "requests a minute for this key; null: the service's RATE_LIMIT_PER_MINUTE"
})

export const KeyCreated = Schema.Struct({
  key_id: Uuid,
  api_key: Schema.String,
  scope: KeyScope,
  rate_limit_per_minute: KeyLimit
})
export type KeyCreated = typeof KeyCreated.Type

/** `null` puts the key back on the service's RATE_LIMIT_PER_MINUTE. */
export const UpdateKeyInput = Schema.Struct({
  rate_limit_per_minute: RateLimitOrDefault
}).annotate({ message: "request body must be a JSON object" })
export type UpdateKeyInput = typeof UpdateKeyInput.Type

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
  rate_limit_per_minute: KeyLimit,
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

/** Made or rotated: the secret, shown this once. */
export const IdentitySecretCreated = Schema.Struct({
  identity_secret: Schema.String,
  created_at: Schema.String
}).annotate({ identifier: "IdentitySecretCreated" })
export type IdentitySecretCreated = typeof IdentitySecretCreated.Type

/** How the project's visitors are identified; never the secret itself. */
export const ProjectIdentity = Schema.Struct({
  has_identity_secret: Schema.Boolean,
  identity_secret_created_at: Schema.NullOr(Schema.String),
  require_verified_visitors: Schema.Boolean
}).annotate({ identifier: "ProjectIdentity" })
export type ProjectIdentity = typeof ProjectIdentity.Type

export const UpdateIdentityInput = Schema.Struct({
  require_verified_visitors: Schema.Boolean.annotate({ message: "require_verified_visitors must be true or false" })
}).annotate({ message: "request body must be a JSON object" })
export type UpdateIdentityInput = typeof UpdateIdentityInput.Type
