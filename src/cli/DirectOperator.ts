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
    // what the import and the demo seeding read and write with, captured once
    const context = yield* Effect.context<Projects | Articles | SqlClient.SqlClient | FileSystem.FileSystem | Path.Path>()

    return {
      listProjects: projects.list,
      createProject: (input) => projects.create(input.name),
      requireProject: (projectId) => Effect.asVoid(projects.requireProject(projectId)),
      createKey: projects.createKey,
      revokeKey: projects.revokeKey,
      updateKey: projects.updateKey,
      createIdentitySecret: projects.createIdentitySecret,
      getIdentity: projects.getIdentity,
      updateIdentity: projects.updateIdentity,
      removeIdentitySecret: projects.removeIdentitySecret,
      getMail: addresses.get,
      updateMail: (projectId, input) => addresses.set(projectId, input.inbound_address),
      satisfactionSummary: (projectId) => satisfaction.summary(projectId, {}),
      getSatisfactionSettings: satisfaction.settings,
      updateSatisfactionSettings: satisfaction.updateSettings,
      createAgent: (projectId, input) => agents.create(projectId, input.email, input.name),
      listAgents: agents.list,
      listTickets: tickets.list,
      findTicket: tickets.findId,
      getTicket: tickets.adminGet,
      updateTicket: tickets.adminUpdate,
      addAgentMessage: tickets.addAgentMessage,
      mergeTicket: (projectId, ticketId, intoId) => merges.merge(projectId, ticketId, { into_id: intoId }),
      importArticles: (projectId, folder, options) => importFolder(projectId, folder, options).pipe(Effect.provideContext(context)),
      // the demo's own articles are valid: a file of them that is not is a defect of ours
      listCustomFields: customFields.list,
      createCustomField: customFields.create,
      deleteCustomField: customFields.remove,
      getBusinessHours: sla.getHours,
      setBusinessHours: sla.putHours,
      listSlaPolicies: sla.list,
      createSlaPolicy: sla.create,
      deleteSlaPolicy: sla.remove,
      listWebhooks: webhooks.list,
      enableWebhook: webhooks.enable,
      replayWebhook: webhooks.replay,
      listReplays: webhooks.replays,
      seedDemo: seedDemo().pipe(Effect.catchTag("InvalidArticleFiles", Effect.die), Effect.provideContext(context)),
      adminToken: Effect.succeed(admin.token)
    }
  })
)
