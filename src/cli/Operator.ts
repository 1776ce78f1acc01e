import { Context, Data, type Effect, type Option } from "effect"
import type { ImportedFile, InvalidArticleFiles } from "../Articles/Import.ts"
import type { DemoProject } from "../Demo/Demo.ts"
import type { ApiError } from "../Domain/Errors.ts"
import type { ApiKeyId, CustomFieldId, ProjectId, TicketId, WebhookId } from "../Domain/Ids.ts"
import type { ContactErasure, ContactExport } from "../Domain/Privacy.ts"
import type { Replay, ReplayInput, ReplayList, WebhookList, WebhookSummary } from "../Domain/Webhook.ts"
import type { CreateCustomFieldInput, CustomField, CustomFieldList } from "../Domain/CustomField.ts"
import type { MailSettings } from "../Domain/Mail.ts"
import type { BusinessHours } from "../Domain/BusinessHours.ts"
import type { CreatePolicyInput, Policy, PolicyList } from "../Domain/Sla.ts"
import type { SlaPolicyId } from "../Domain/Ids.ts"
import type { MailSettingsInput } from "../Mail/Api.ts"
import type { SatisfactionSettings, SatisfactionSummary, UpdateSatisfactionSettings } from "../Domain/Satisfaction.ts"
import type {
  AgentCreated,
  AgentList,
  ApiKeySummary,
  CreateAgentInput,
  CreateKeyInput,
  CreateProjectInput,
  IdentitySecretCreated,
  KeyCreated,
  ProjectCreated,
  ProjectIdentity,
  ProjectSummary,
  UpdateIdentityInput,
  UpdateKeyInput
} from "../Domain/Project.ts"
import type {
  AdminTicket,
  AgentMessageInput,
  MessageCreated,
  TicketList,
  TicketListQuery,
  UpdateTicketInput
} from "../Domain/Ticket.ts"

/**
 * Why a command cannot be done where the CLI runs it, in one line that says what to do: the
 * service that holds the embedded database does not answer, refuses the admin token, or the
 * command needs the database itself.
 */
export class OperatorRefusal extends Data.TaggedError("OperatorRefusal")<{ readonly message: string }> {}

/** What an operation can fail with: the operator API's own errors, or a refusal. */
export type OperatorError = ApiError | OperatorRefusal

/**
 * The operations behind the CLI's commands, with the operator API's inputs, answers and errors.
 * Two implementations: over the app's services on the database itself (`DirectOperator`), and
 * over the operator API of the service that holds the embedded database (`RemoteOperator`).
 */
export class Operator extends Context.Service<Operator, {
  readonly listProjects: Effect.Effect<ReadonlyArray<ProjectSummary>, OperatorError>
  readonly createProject: (input: typeof CreateProjectInput.Type) => Effect.Effect<ProjectCreated, OperatorError>
  /** Fails with NotFound when there is no such project. */
  readonly requireProject: (projectId: ProjectId) => Effect.Effect<void, OperatorError>
  readonly createKey: (projectId: ProjectId, input: typeof CreateKeyInput.Type) => Effect.Effect<KeyCreated, OperatorError>
  readonly revokeKey: (projectId: ProjectId, keyId: ApiKeyId) => Effect.Effect<void, OperatorError>
  readonly updateKey: (projectId: ProjectId, keyId: ApiKeyId, input: UpdateKeyInput) => Effect.Effect<ApiKeySummary, OperatorError>
  /** Made or rotated; the only time the secret is seen. */
  readonly createIdentitySecret: (projectId: ProjectId) => Effect.Effect<IdentitySecretCreated, OperatorError>
  readonly getIdentity: (projectId: ProjectId) => Effect.Effect<ProjectIdentity, OperatorError>
  /** Fails with Conflict when verified visitors are required of a project without an identity secret. */
  readonly updateIdentity: (projectId: ProjectId, input: UpdateIdentityInput) => Effect.Effect<ProjectIdentity, OperatorError>
  readonly removeIdentitySecret: (projectId: ProjectId) => Effect.Effect<void, OperatorError>
  readonly getMail: (projectId: ProjectId) => Effect.Effect<MailSettings, OperatorError>
  /**
   * Sets the inbound address, or clears it (null). Fails with ValidationError for an address with
   * a +tag, and with Conflict when another project has it.
   */
  readonly updateMail: (projectId: ProjectId, input: typeof MailSettingsInput.Type) => Effect.Effect<MailSettings, OperatorError>
  readonly satisfactionSummary: (projectId: ProjectId) => Effect.Effect<SatisfactionSummary, OperatorError>
  readonly getSatisfactionSettings: (projectId: ProjectId) => Effect.Effect<SatisfactionSettings, OperatorError>
  readonly updateSatisfactionSettings: (
    projectId: ProjectId,
    input: UpdateSatisfactionSettings
  ) => Effect.Effect<SatisfactionSettings, OperatorError>
  readonly createAgent: (projectId: ProjectId, input: typeof CreateAgentInput.Type) => Effect.Effect<AgentCreated, OperatorError>
  readonly listAgents: (projectId: ProjectId) => Effect.Effect<typeof AgentList.Type, OperatorError>
  readonly listTickets: (projectId: ProjectId, query: TicketListQuery) => Effect.Effect<TicketList, OperatorError>
  /** A ticket by its id or its number (`12`, `#12`); NotFound when the project has none such. */
  readonly findTicket: (projectId: ProjectId, ticket: string) => Effect.Effect<TicketId, OperatorError>
  readonly getTicket: (projectId: ProjectId, ticketId: TicketId) => Effect.Effect<AdminTicket, OperatorError>
  readonly updateTicket: (
    projectId: ProjectId,
    ticketId: TicketId,
    input: UpdateTicketInput
  ) => Effect.Effect<AdminTicket, OperatorError>
  readonly addAgentMessage: (
    projectId: ProjectId,
    ticketId: TicketId,
    input: typeof AgentMessageInput.Type
  ) => Effect.Effect<MessageCreated, OperatorError>
  /** Merges the ticket into `intoId`, for good; answers the target's read. */
  readonly mergeTicket: (projectId: ProjectId, ticketId: TicketId, intoId: TicketId) => Effect.Effect<AdminTicket, OperatorError>
  /** All or nothing, in one transaction: only on the database itself. */
  readonly importArticles: (
    projectId: ProjectId,
    folder: string,
    options: { readonly publish?: boolean | undefined }
  ) => Effect.Effect<ReadonlyArray<ImportedFile>, OperatorError | InvalidArticleFiles>
  readonly listCustomFields: (projectId: ProjectId) => Effect.Effect<CustomFieldList, OperatorError>
  /** Fails with Conflict when the project has a field of that key. */
  readonly createCustomField: (projectId: ProjectId, input: CreateCustomFieldInput) => Effect.Effect<CustomField, OperatorError>
  /** The field and its values on every ticket of the project. */
  readonly deleteCustomField: (projectId: ProjectId, fieldId: CustomFieldId) => Effect.Effect<void, OperatorError>
  /** NotFound when the project has none set. */
  readonly getBusinessHours: (projectId: ProjectId) => Effect.Effect<BusinessHours, OperatorError>
  readonly setBusinessHours: (projectId: ProjectId, input: BusinessHours) => Effect.Effect<BusinessHours, OperatorError>
  readonly listSlaPolicies: (projectId: ProjectId) => Effect.Effect<typeof PolicyList.Type, OperatorError>
  readonly createSlaPolicy: (projectId: ProjectId, input: CreatePolicyInput) => Effect.Effect<Policy, OperatorError>
  readonly deleteSlaPolicy: (projectId: ProjectId, policyId: SlaPolicyId) => Effect.Effect<void, OperatorError>
  readonly listWebhooks: (projectId: ProjectId) => Effect.Effect<typeof WebhookList.Type, OperatorError>
  /** Turns a disabled endpoint back on. */
  readonly enableWebhook: (projectId: ProjectId, webhookId: WebhookId) => Effect.Effect<WebhookSummary, OperatorError>
  /** Fails with Conflict while the endpoint is disabled. */
  readonly replayWebhook: (projectId: ProjectId, webhookId: WebhookId, input: ReplayInput) => Effect.Effect<Replay, OperatorError>
  readonly listReplays: (projectId: ProjectId, webhookId: WebhookId) => Effect.Effect<typeof ReplayList.Type, OperatorError>
  /** Everything the project holds about the contact of this address; NotFound when none. */
  readonly exportContact: (projectId: ProjectId, email: string) => Effect.Effect<ContactExport, OperatorError>
  /** The same export as a zip with the files' bytes. */
  readonly exportContactZip: (projectId: ProjectId, email: string) => Effect.Effect<Uint8Array, OperatorError>
  /** Erases the contact everywhere in the project, for good; a second time changes nothing. */
  readonly eraseContact: (projectId: ProjectId, email: string) => Effect.Effect<ContactErasure, OperatorError>
  readonly seedDemo: Effect.Effect<DemoProject, OperatorError>
  /** The admin token of the database: ADMIN_TOKEN, or the one generated for the embedded database. */
  readonly adminToken: Effect.Effect<Option.Option<string>, OperatorError>
}>()("app/cli/Operator") {}
