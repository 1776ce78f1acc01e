import { Effect, type FileSystem, Layer, Option, type Path } from "effect"
import type { SqlClient } from "effect/sql"
import { AdminToken } from "../Admin/AdminToken.ts"
import { Agents } from "../Admin/Agents.ts"
import type { Articles } from "../Articles/Articles.ts"
import { importFolder } from "../Articles/Import.ts"
import { seedDemo } from "../Demo/Demo.ts"
import { Conflict, ValidationError } from "../Domain/Errors.ts"
import type { ProjectId } from "../Domain/Ids.ts"
import type { MailSettingsInput } from "../Mail/Api.ts"
import { InboundAddresses } from "../Mail/Addresses.ts"
import { Merge } from "../Merge/Merge.ts"
import { Projects } from "../Projects/Projects.ts"
import { Satisfaction } from "../Satisfaction/Satisfaction.ts"
import { CustomFields } from "../Fields/CustomFields.ts"
import { Sla } from "../Sla/Sla.ts"
import { Tickets } from "../Tickets/Tickets.ts"
import { Webhooks } from "../Webhooks/Webhooks.ts"
import { Privacy } from "../Privacy/Privacy.ts"
import { Audit } from "../Audit/Audit.ts"
import { cliUserAgentPrefix } from "../Domain/Audit.ts"
import { serviceVersion } from "../Health/Version.ts"
import { Operator } from "./Operator.ts"

/** The operations over the app's services, on the database the settings name, as the operator API's handlers call them. */
export const DirectOperator = Layer.effect(
  Operator,
  Effect.gen(function*() {
    const projects = yield* Projects
    const tickets = yield* Tickets
    const merges = yield* Merge
    const agents = yield* Agents
    const admin = yield* AdminToken
    const addresses = yield* InboundAddresses
    const satisfaction = yield* Satisfaction
    const customFields = yield* CustomFields
    const sla = yield* Sla
    const webhooks = yield* Webhooks
    const privacy = yield* Privacy
    // what the import and the demo seeding read and write with, captured once
    const context = yield* Effect.context<Projects | Articles | SqlClient.SqlClient | FileSystem.FileSystem | Path.Path>()

    const audit = yield* Audit
    /**
     * An action of the CLI on the database itself, once done: in the audit log as the same
     * action through the operator API would be, with the CLI as its actor.
     */
    const logged = (
      action: string,
      projectId: ProjectId | null,
      target: Record<string, string> = {},
      agentEmail: string | null = null
    ) =>
    <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.tap(effect, () =>
        audit.record({
          projectId,
          actor: agentEmail === null ? "cli" : "agent",
          agentEmail,
          action,
          target,
          status: null,
          sourceIp: "local",
          userAgent: `${cliUserAgentPrefix}${serviceVersion}`
        }))

    return {
      listProjects: projects.list,
      createProject: (input) => projects.create(input.name).pipe(logged("admin.createProject", null)),
      requireProject: (projectId) => Effect.asVoid(projects.requireProject(projectId)),
      createKey: (projectId, input) => projects.createKey(projectId, input).pipe(logged("admin.createKey", projectId)),
      revokeKey: (projectId, keyId) =>
        projects.revokeKey(projectId, keyId).pipe(logged("admin.revokeKey", projectId, { key_id: keyId })),
      updateKey: (projectId, keyId, input) =>
        projects.updateKey(projectId, keyId, input).pipe(logged("admin.updateKey", projectId, { key_id: keyId })),
      createIdentitySecret: (projectId) =>
        projects.createIdentitySecret(projectId).pipe(logged("admin.createIdentitySecret", projectId)),
      getIdentity: projects.getIdentity,
      updateIdentity: (projectId, input) =>
        projects.updateIdentity(projectId, input).pipe(logged("admin.updateIdentity", projectId)),
      removeIdentitySecret: (projectId) =>
        projects.removeIdentitySecret(projectId).pipe(logged("admin.removeIdentitySecret", projectId)),
      getMail: addresses.get,
      updateMail: (projectId, input) =>
        addresses.set(projectId, input.inbound_address).pipe(logged("mailAdmin.updateMail", projectId)),
      satisfactionSummary: (projectId) => satisfaction.summary(projectId, {}),
      getSatisfactionSettings: satisfaction.settings,
      updateSatisfactionSettings: (projectId, input) =>
        satisfaction.updateSettings(projectId, input).pipe(logged("satisfactionAdmin.updateSettings", projectId)),
      createAgent: (projectId, input) =>
        agents.create(projectId, input.email, input.name).pipe(logged("admin.createAgent", projectId)),
      listAgents: agents.list,
      listTickets: tickets.list,
      findTicket: tickets.findId,
      getTicket: tickets.adminGet,
      updateTicket: (projectId, ticketId, input) =>
        tickets.adminUpdate(projectId, ticketId, input).pipe(logged("admin.updateTicket", projectId, { id: ticketId })),
      addAgentMessage: (projectId, ticketId, input) =>
        tickets.addAgentMessage(projectId, ticketId, input).pipe(
          logged("admin.addAgentMessage", projectId, { id: ticketId }, input.author_email ?? null)
        ),
      mergeTicket: (projectId, ticketId, intoId) =>
        merges.merge(projectId, ticketId, { into_id: intoId }).pipe(logged("merge.merge", projectId, { id: ticketId })),
      importArticles: (projectId, folder, options) =>
        importFolder(projectId, folder, options).pipe(Effect.provideContext(context), logged("articles.import", projectId)),
      // the demo's own articles are valid: a file of them that is not is a defect of ours
      listCustomFields: customFields.list,
      createCustomField: (projectId, input) =>
        customFields.create(projectId, input).pipe(logged("customFields.create", projectId)),
      deleteCustomField: (projectId, fieldId) =>
        customFields.remove(projectId, fieldId).pipe(logged("customFields.remove", projectId, { field_id: fieldId })),
      getBusinessHours: sla.getHours,
      setBusinessHours: (projectId, input) => sla.putHours(projectId, input).pipe(logged("sla.putHours", projectId)),
      listSlaPolicies: sla.list,
      createSlaPolicy: (projectId, input) => sla.create(projectId, input).pipe(logged("sla.create", projectId)),
      deleteSlaPolicy: (projectId, policyId) =>
        sla.remove(projectId, policyId).pipe(logged("sla.remove", projectId, { policy_id: policyId })),
      listWebhooks: webhooks.list,
      enableWebhook: (projectId, webhookId) =>
        webhooks.enable(projectId, webhookId).pipe(logged("webhooks.enable", projectId, { webhook_id: webhookId })),
      replayWebhook: (projectId, webhookId, input) =>
        webhooks.replay(projectId, webhookId, input).pipe(logged("webhooks.replay", projectId, { webhook_id: webhookId })),
      listReplays: webhooks.replays,
      exportContact: (projectId, email) => privacy.exportContact(projectId, email).pipe(logged("privacy.exportContact", projectId)),
      exportContactZip: (projectId, email) =>
        privacy.exportZip(projectId, email).pipe(
          Effect.map((archive) => archive.content),
          logged("privacy.exportContactZip", projectId)
        ),
      eraseContact: (projectId, email) => privacy.eraseContact(projectId, email).pipe(logged("privacy.eraseContact", projectId)),
      seedDemo: seedDemo().pipe(
        Effect.catchTag("InvalidArticleFiles", Effect.die),
        Effect.provideContext(context),
        Effect.tap((demo) => logged("demo.seed", demo.projectId)(Effect.void))
      ),
      adminToken: Effect.succeed(admin.token)
    }
  })
)
