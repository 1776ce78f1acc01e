import { Cause, Duration, Effect, Layer, Option, Schema } from "effect"
import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { Api } from "../Api.ts"
import { AdminAuth } from "../Auth/Api.ts"
import { cliUserAgentPrefix } from "../Domain/Audit.ts"
import { serviceVersion } from "../Health/Version.ts"
import type { AnnouncedService } from "../Database/DataDirLock.ts"
import { isApiError, NotFound, Unauthorized } from "../Domain/Errors.ts"
import { type ProjectId, TicketId } from "../Domain/Ids.ts"
import type { TicketList, TicketListQuery } from "../Domain/Ticket.ts"
import { rootMessage } from "../Startup.ts"
import { Operator, type OperatorError, OperatorRefusal } from "./Operator.ts"

/** Loopback answers in milliseconds: a service that takes this long is stuck, and the person is told so. */
const requestTimeout = Duration.seconds(10)

const isTicketId = Schema.is(TicketId)

/** Why a call got no answer the operator API declares, for a person. */
const whyNoAnswer = (error: unknown) => {
  if (Cause.isTimeoutError(error)) return `no answer within ${Duration.format(requestTimeout)}`
  if (HttpClientError.isHttpClientError(error)) {
    const reason = error.reason
    switch (reason._tag) {
      case "TransportError":
        return rootMessage(reason.cause ?? reason)
      case "StatusCodeError":
        return `it answered HTTP ${reason.response.status}`
      default:
        return `its answer could not be read: ${reason.message}`
    }
  }
  if (Schema.isSchemaError(error)) return "its answer is not what this CLI's operator API expects: are the CLI and the service the same version?"
  return rootMessage(error)
}

/**
 * The operations over the operator API of the service that holds the embedded database, through
 * the contract's own typed client, so this mode cannot drift from the API. The API's answers and
 * errors are the services' own, so the commands print the same either way.
 */
export const RemoteOperator = (options: {
  readonly service: AnnouncedService
  /** DATA_DIR as a path, for the messages */
  readonly dataDir: string
  /** ADMIN_TOKEN, when it is set where the CLI runs */
  readonly adminToken: string | undefined
}) =>
  Layer.effect(
    Operator,
    Effect.gen(function*() {
      const { service } = options
      const holder = `the service (pid ${service.pid}) that holds DATA_DIR ${options.dataDir}`
      const token = options.adminToken ?? service.adminToken
      if (token === undefined) {
        return yield* new OperatorRefusal({
          message: `${holder} was started with its own ADMIN_TOKEN: set ADMIN_TOKEN to the same value here, or stop the service first`
        })
      }
      const refusedToken = new OperatorRefusal({
        message: service.adminToken === undefined
          ? `${holder} refused the admin token in ADMIN_TOKEN: set it to the one the service was started with`
          : `${holder} refused the admin token in ADMIN_TOKEN: unset it to use the service's own, or set it to that one`
      })
      const needsDatabase = (command: string, instead: string) =>
        Effect.fail(
          new OperatorRefusal({ message: `${command} needs the database itself: stop the service (pid ${service.pid}) first${instead}` })
        )

      const httpClient = yield* HttpClient.HttpClient
      // the service's audit log names the CLI as the actor of what it does through the operator API
      const withToken = HttpApiMiddleware.layerClient(AdminAuth, ({ next, request }) =>
        next(request.pipe(
          HttpClientRequest.bearerToken(token),
          HttpClientRequest.setHeader("user-agent", `${cliUserAgentPrefix}${serviceVersion}`)
        )))
      const admin = yield* HttpApiClient.group(Api, { group: "admin", httpClient, baseUrl: service.url }).pipe(Effect.provide(withToken))
      const mailAdmin = yield* HttpApiClient.group(Api, { group: "mailAdmin", httpClient, baseUrl: service.url }).pipe(
        Effect.provide(withToken)
      )
      const merges = yield* HttpApiClient.group(Api, { group: "merge", httpClient, baseUrl: service.url }).pipe(Effect.provide(withToken))
      const customFields = yield* HttpApiClient.group(Api, { group: "customFields", httpClient, baseUrl: service.url }).pipe(
        Effect.provide(withToken)
      )
      const satisfaction = yield* HttpApiClient.group(Api, { group: "satisfactionAdmin", httpClient, baseUrl: service.url }).pipe(
        Effect.provide(withToken)
      )
      const sla = yield* HttpApiClient.group(Api, { group: "sla", httpClient, baseUrl: service.url }).pipe(Effect.provide(withToken))
      const webhooks = yield* HttpApiClient.group(Api, { group: "webhooks", httpClient, baseUrl: service.url }).pipe(
        Effect.provide(withToken)
      )
      const privacy = yield* HttpApiClient.group(Api, { group: "privacy", httpClient, baseUrl: service.url }).pipe(
        Effect.provide(withToken)
      )

      /** One call of the API: its declared errors as they are, anything else as one line that says what to do. */
      const call = <A, E>(request: Effect.Effect<A, E>): Effect.Effect<A, OperatorError> =>
        request.pipe(
          Effect.timeout(requestTimeout),
          Effect.mapError((error): OperatorError =>
            error instanceof Unauthorized
              ? refusedToken
              : isApiError(error)
              ? error
              : new OperatorRefusal({
                message: `${holder} does not answer at ${service.url} (${whyNoAnswer(error)}): check that it runs, or stop it to use the database directly`
              })
          )
        )

      const listProjects = call(admin.listProjects()).pipe(Effect.map((list) => list.projects))
      const listTickets = (projectId: ProjectId, query: TicketListQuery): Effect.Effect<TicketList, OperatorError> =>
        call(admin.listTickets({ params: { pid: projectId }, query }))
      const ticketNotFound = new NotFound({ message: "ticket not found" })

      /** The operator API finds tickets by id: a number is looked for in the list, newest first, a page at a time. */
      const findByNumber = (projectId: ProjectId, number: number, cursor?: string): Effect.Effect<TicketId, OperatorError> =>
        Effect.flatMap(
          listTickets(projectId, { sort: "created", limit: 100, ...(cursor === undefined ? {} : { cursor }) }),
          (page) => {
            const found = page.tickets.find((ticket) => ticket.ticket_number === number)
            if (found !== undefined) return Effect.succeed(TicketId.make(found.ticket_id))
            const last = page.tickets.at(-1)
            // numbers go down the pages: once past it, there is none
            return last === undefined || last.ticket_number < number || page.next_cursor === null
              ? Effect.fail(ticketNotFound)
              : findByNumber(projectId, number, page.next_cursor)
          }
        )

      return {
        listProjects,
        createProject: (payload) => call(admin.createProject({ payload })),
        requireProject: (projectId) =>
          Effect.flatMap(listProjects, (projects) =>
            projects.some((project) => project.project_id === projectId)
              ? Effect.void
              : Effect.fail(new NotFound({ message: "project not found" }))),
        createKey: (projectId, payload) => call(admin.createKey({ params: { pid: projectId }, payload })),
        revokeKey: (projectId, keyId) => call(admin.revokeKey({ params: { pid: projectId, key_id: keyId } })),
        updateKey: (projectId, keyId, payload) => call(admin.updateKey({ params: { pid: projectId, key_id: keyId }, payload })),
        createIdentitySecret: (projectId) => call(admin.createIdentitySecret({ params: { pid: projectId } })),
        getIdentity: (projectId) => call(admin.getIdentity({ params: { pid: projectId } })),
        updateIdentity: (projectId, payload) => call(admin.updateIdentity({ params: { pid: projectId }, payload })),
        removeIdentitySecret: (projectId) => call(admin.removeIdentitySecret({ params: { pid: projectId } })),
        getMail: (projectId) => call(mailAdmin.getMail({ params: { pid: projectId } })),
        updateMail: (projectId, payload) => call(mailAdmin.updateMail({ params: { pid: projectId }, payload })),
        satisfactionSummary: (projectId) => call(satisfaction.summary({ params: { pid: projectId }, query: {} })),
        getSatisfactionSettings: (projectId) => call(satisfaction.settings({ params: { pid: projectId } })),
        updateSatisfactionSettings: (projectId, payload) =>
          call(satisfaction.updateSettings({ params: { pid: projectId }, payload })),
        createAgent: (projectId, payload) => call(admin.createAgent({ params: { pid: projectId }, payload })),
        listAgents: (projectId) => call(admin.listAgents({ params: { pid: projectId } })),
        listTickets,
        findTicket: (projectId, ticket) =>
          isTicketId(ticket)
            ? Effect.succeed(ticket)
            : /^#?\d{1,9}$/.test(ticket)
            ? findByNumber(projectId, Number(ticket.replace("#", "")))
            : Effect.fail(ticketNotFound),
        getTicket: (projectId, ticketId) => call(admin.getTicket({ params: { pid: projectId, id: ticketId } })),
        updateTicket: (projectId, ticketId, payload) =>
          call(admin.updateTicket({ params: { pid: projectId, id: ticketId }, payload })),
        addAgentMessage: (projectId, ticketId, payload) =>
          call(admin.addAgentMessage({ params: { pid: projectId, id: ticketId }, payload })),
        mergeTicket: (projectId, ticketId, intoId) =>
          call(merges.merge({ params: { pid: projectId, id: ticketId }, payload: { into_id: intoId } })),
        // the operator API writes an article at a time: an import through it would not be all or nothing
        importArticles: () =>
          needsDatabase("articles import", `, or create the articles one by one through the operator API at ${service.url}/v1/admin`),
        listCustomFields: (projectId) => call(customFields.list({ params: { pid: projectId } })),
        createCustomField: (projectId, payload) => call(customFields.create({ params: { pid: projectId }, payload })),
        deleteCustomField: (projectId, fieldId) =>
          call(customFields.remove({ params: { pid: projectId, field_id: fieldId } })),
        getBusinessHours: (projectId) => call(sla.getHours({ params: { pid: projectId } })),
        setBusinessHours: (projectId, payload) => call(sla.putHours({ params: { pid: projectId }, payload })),
        listSlaPolicies: (projectId) => call(sla.list({ params: { pid: projectId } })),
        createSlaPolicy: (projectId, payload) => call(sla.create({ params: { pid: projectId }, payload })),
        deleteSlaPolicy: (projectId, policyId) => call(sla.remove({ params: { pid: projectId, policy_id: policyId } })),
        listWebhooks: (projectId) => call(webhooks.list({ params: { pid: projectId } })),
        enableWebhook: (projectId, webhookId) => call(webhooks.enable({ params: { pid: projectId, webhook_id: webhookId } })),
        replayWebhook: (projectId, webhookId, payload) =>
          call(webhooks.replay({ params: { pid: projectId, webhook_id: webhookId }, payload })),
        listReplays: (projectId, webhookId) => call(webhooks.replays({ params: { pid: projectId, webhook_id: webhookId } })),
        exportContact: (projectId, email) => call(privacy.exportContact({ params: { pid: projectId }, query: { email } })),
        exportContactZip: (projectId, email) =>
          call(privacy.exportContactZip({ params: { pid: projectId }, query: { email } })),
        eraseContact: (projectId, email) => call(privacy.eraseContact({ params: { pid: projectId }, payload: { email } })),
        seedDemo: needsDatabase("demo", ""),
        adminToken: Effect.succeed(Option.some(token))
      }
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))
