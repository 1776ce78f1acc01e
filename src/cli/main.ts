import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Console, Effect, Layer, Option, Redacted, Runtime, Schema, SchemaIssue } from "effect"
import { writeFile } from "node:fs/promises"
import { Argument, CliError, CliOutput, Command, Flag } from "effect/cli"
import { resolve } from "node:path"
import type { InvalidArticleFiles } from "../Articles/Import.ts"
import { AppConfig } from "../Config.ts"
import * as App from "../App.ts"
import { announcedService } from "../Database/DataDirLock.ts"
import { isApiError, ValidationError } from "../Domain/Errors.ts"
import { ApiKeyId, CustomFieldId, ProjectId, SlaPolicyId, WebhookId } from "../Domain/Ids.ts"
import { type Replay, ReplayInput, ReplayList, WebhookList } from "../Domain/Webhook.ts"
import { ContactExport, EraseContactInput } from "../Domain/Privacy.ts"
import { BusinessHours, Weekdays } from "../Domain/BusinessHours.ts"
import { CreatePolicyInput, Policy, PolicyList } from "../Domain/Sla.ts"
import { CreateCustomFieldInput, CustomField, CustomFieldList, fitText } from "../Domain/CustomField.ts"
import {
  AgentCreated,
  AgentList,
  CreateAgentInput,
  CreateKeyInput,
  CreateProjectInput,
  type ProjectIdentity,
  UpdateIdentityInput,
  UpdateKeyInput
} from "../Domain/Project.ts"
import type { MailSettings } from "../Domain/Mail.ts"
import {
  type SatisfactionSettings,
  SatisfactionSummary,
  UpdateSatisfactionSettings
} from "../Domain/Satisfaction.ts"
import { serviceVersion } from "../Health/Version.ts"
import { MailSettingsInput } from "../Mail/Api.ts"
import { refusalOfError } from "../Startup.ts"
import {
  AdminTicket,
  AgentMessageInput,
  MessageCreated,
  TicketList,
  TicketListQuery,
  TicketOrders,
  UpdateTicketInput
} from "../Domain/Ticket.ts"
import { DirectOperator } from "./DirectOperator.ts"
import { Operator, OperatorRefusal } from "./Operator.ts"
import { RemoteOperator } from "./RemoteOperator.ts"

/** The services of the HTTP API that the commands use, from the app graph, over the database the settings name. */
const ServicesForCli = Layer.mergeAll(
  App.ProjectsLive,
  App.ArticlesLive,
  App.TicketsLive,
  App.AdminTokenLive,
  App.liveServices.agents,
  App.liveServices.inboundAddresses,
  App.liveServices.satisfaction,
  App.liveServices.merge,
  App.liveServices.customFields,
  App.liveServices.sla,
  App.liveServices.webhooks,
  App.liveServices.audit,
  App.liveServices.privacy
).pipe(
  Layer.provideMerge(App.DatabaseLive),
  Layer.provide(AppConfig.layer),
  Layer.provideMerge(NodeServices.layer)
)

/**
 * Where the commands go, chosen once: the database the settings name, or, when a running service
 * holds the embedded database (PGlite has one user), that service's operator API. On PostgreSQL
 * and in memory:// there is nothing to hold, and the CLI always opens the database itself.
 */
const OperatorLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* AppConfig
  const embeddedDir = Option.isNone(config.databaseUrl) && config.dataDir !== "memory://" ? config.dataDir : undefined
  const service = embeddedDir === undefined ? undefined : yield* announcedService(embeddedDir)
  const chosen: Layer.Layer<Operator, unknown> = embeddedDir === undefined || service === undefined
    ? DirectOperator.pipe(Layer.provide(ServicesForCli))
    : RemoteOperator({
      service,
      dataDir: resolve(embeddedDir),
      adminToken: Option.getOrUndefined(Option.map(config.adminToken, Redacted.value))
    })
  return chosen
})).pipe(Layer.provide(AppConfig.layer))

/** How a person invokes the CLI (README), so help and errors name commands as they are typed. */
const self = "npm run cli --"

/** A mistake of the person at the keyboard: shown as one line on stderr, exit status 1. */
const userError = (message: string) => new CliError.UserError({ cause: message, userMessage: message })

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** The API fields a person types under another name here; the API's messages start with the field they are about. */
const typedAs: Record<string, string> = {
  author_email: "--author-email",
  contact_email: "--contact-email",
  assignee_email: "<agent-email>",
  email: "--email",
  name: "--name"
}

/** An API message (`author_email must …`) in the terms of the command line (`--author-email must …`). */
const inCliTerms = (message: string, terms: Record<string, string>) =>
  message.replace(/^[a-z_]+\b/, (field) => terms[field] ?? field)

/**
 * The failures a person can act on, as a user error with a message that says what to do: the
 * domain errors of the services (or of the operator API, which are the same), a refusal of the
 * service that holds the database, a setting that does not parse, a database that cannot be
 * reached. Anything else is left as it is, for the last-resort report.
 */
const forPerson = (error: unknown, terms: Record<string, string>): unknown => {
  if (isApiError(error)) return userError(inCliTerms(error.message, terms))
  if (error instanceof OperatorRefusal) return userError(error.message)
  const refusal = refusalOfError(error)
  return refusal === undefined ? error : userError(refusal)
}

/**
 * A command's work through the operator (the database of the settings, or the service that holds
 * it), its failures turned into what a person can act on. The choice is made and the database
 * opened only once the command line has parsed, so `--help` and a mistyped flag touch neither.
 * `terms` names the API's fields as this command's flags and arguments.
 */
const operating = <Input, E, R extends Operator>(
  work: (input: Input) => Effect.Effect<void, E, R>,
  terms: Record<string, string> = typedAs
) =>
(input: Input) =>
  work(input).pipe(
    Effect.provide(OperatorLive),
    Effect.catch((error) => Effect.fail(forPerson(error, terms))),
    // the database layer dies when it cannot connect: still the operator's to fix
    Effect.catchDefect((defect) => {
      const shown = forPerson(defect, terms)
      return shown === defect ? Effect.die(defect) : Effect.fail(shown)
    })
  )

const project = Flag.String("project").pipe(
  Flag.withDescription(`project id (\`${self} projects list\` shows them)`),
  Flag.filterMap(Schema.decodeUnknownOption(ProjectId), () => `a project id as \`${self} projects list\` shows them`)
)

/** The project of that id; a user error naming it when there is none, or when it is no project id at all. */
const requireProject = Effect.fn(function*(projectId: string) {
  const noProject = userError(`no project ${projectId} (\`${self} projects list\` shows the projects)`)
  const id = yield* Schema.decodeUnknownEffect(ProjectId)(projectId).pipe(Effect.mapError(() => noProject))
  yield* (yield* Operator).requireProject(id).pipe(Effect.catchTag("NotFound", () => Effect.fail(noProject)))
  return id
})

const projectsCreate = Command.make(
  "create",
  { name: Argument.String("name") },
  operating(({ name }) =>
    Effect.gen(function*() {
      const input = yield* decodeAs(CreateProjectInput)({ name })
      const created = yield* (yield* Operator).createProject(input)
      yield* Console.log(`project id: ${created.project_id}\nkey id:     ${created.key_id}\nfull key:   ${created.api_key}`)
    }), { ...typedAs, name: "<name>" })
).pipe(Command.withDescription("create a project and its first full key"))

const projectsList = Command.make(
  "list",
  {},
  operating(() =>
    Effect.gen(function*() {
      for (const p of yield* (yield* Operator).listProjects) yield* Console.log(`${p.project_id}  ${p.created_at}  ${p.name}`)
    }))
).pipe(Command.withDescription("list every project"))

/** A key's budget for a person: its own, or the service's setting. */
const limitText = (limit: number | null) =>
  limit === null ? "the service's (RATE_LIMIT_PER_MINUTE)" : `${limit.toLocaleString("en-US")} requests a minute`

const keysCreate = Command.make("create", {
  project,
  scope: Flag.Literals("scope", ["full", "widget"]).pipe(Flag.withDefault("full" as const)),
  name: Flag.String("name").pipe(Flag.optional),
  rateLimit: Flag.Int("rate-limit").pipe(
    Flag.optional,
    Flag.withDescription("the key's own budget, 1 to 1,000,000 requests a minute; without it, RATE_LIMIT_PER_MINUTE")
  )
}, operating(({ name, project, rateLimit, scope }) =>
  Effect.gen(function*() {
    const input = yield* decodeAs(CreateKeyInput)({
      name: Option.getOrNull(name),
      scope,
      rate_limit_per_minute: Option.getOrNull(rateLimit)
    })
    yield* requireProject(project)
    const key = yield* (yield* Operator).createKey(project, input)
    yield* Console.log(
      `key id: ${key.key_id}\nscope:  ${key.scope}\nlimit:  ${limitText(key.rate_limit_per_minute)}\nkey:    ${key.api_key}`
    )
  }), { ...typedAs, rate_limit_per_minute: "--rate-limit" })).pipe(Command.withDescription("issue an API key; it is shown only now"))

/** The key of that id in the project; a user error naming both when there is none. */
const requireKey = (project: ProjectId, keyId: string) => {
  const noKey = userError(`no API key ${keyId} in project ${project} (the key id was printed when the key was created)`)
  return Schema.decodeUnknownEffect(ApiKeyId)(keyId).pipe(Effect.mapError(() => noKey), Effect.map((id) => ({ id, noKey })))
}

const keysLimit = Command.make("limit", {
  project,
  keyId: Argument.String("key-id"),
  limit: Argument.String("limit").pipe(
    Argument.withDescription("requests a minute (1 to 1,000,000), or default for RATE_LIMIT_PER_MINUTE")
  )
}, operating(({ keyId, limit, project }) =>
  Effect.gen(function*() {
    const given = limit.trim()
    if (given !== "default" && !/^-?\d+(\.\d+)?$/.test(given)) {
      return yield* userError("<limit> must be a number of requests a minute, or default")
    }
    // a number is held to the API's rules, in its words
    const input = yield* decodeAs(UpdateKeyInput)({ rate_limit_per_minute: given === "default" ? null : Number(given) })
    yield* requireProject(project)
    const { id, noKey } = yield* requireKey(project, keyId)
    const key = yield* (yield* Operator).updateKey(project, id, input).pipe(Effect.catchTag("NotFound", () => Effect.fail(noKey)))
    yield* Console.log(`key ${key.key_id}: ${limitText(key.rate_limit_per_minute)}, from its next request on`)
  }), { ...typedAs, rate_limit_per_minute: "<limit>" })).pipe(
    Command.withDescription("set a key's own rate limit, or put it back on the service's (default)")
  )

const keysRevoke = Command.make(
  "revoke",
  { project, keyId: Argument.String("key-id") },
  operating(({ keyId, project }) =>
    Effect.gen(function*() {
      yield* requireProject(project)
      const { id, noKey } = yield* requireKey(project, keyId)
      yield* (yield* Operator).revokeKey(project, id).pipe(Effect.catchTag("NotFound", () => Effect.fail(noKey)))
      yield* Console.log(`revoked ${keyId}`)
    }))
).pipe(Command.withDescription("revoke an API key at once, on every instance"))

const identityBlock = (identity: ProjectIdentity) =>
  [
    `identity secret:           ${
      identity.identity_secret_created_at === null ? "none" : `set, created ${identity.identity_secret_created_at}`
    }`,
    `require verified visitors: ${identity.require_verified_visitors ? "on" : "off"}`
  ].join("\n")

const identitySecret = Command.make(
  "secret",
  { project },
  operating(({ project }) =>
    Effect.gen(function*() {
      yield* requireProject(project)
      const made = yield* (yield* Operator).createIdentitySecret(project)
      yield* Console.log(
        [
          `identity secret: ${made.identity_secret}`,
          `created:         ${made.created_at}`,
          "This secret is shown only once: give it to the site's backend, which signs its visitors' tokens with it (HS256).",
          "Any earlier secret no longer verifies."
        ].join("\n")
      )
    }))
).pipe(Command.withDescription("create or rotate the project's identity secret; it is shown only now"))

const identityShow = Command.make(
  "show",
  { project },
  operating(({ project }) =>
    Effect.gen(function*() {
      yield* requireProject(project)
      yield* Console.log(identityBlock(yield* (yield* Operator).getIdentity(project)))
    }))
).pipe(Command.withDescription("whether the project has an identity secret and requires verified visitors (never the secret)"))

const identityRequire = Command.make(
  "require",
  { project, setting: Argument.Literals("on-or-off", ["on", "off"]) },
  operating(({ project, setting }) =>
    Effect.gen(function*() {
      const input = yield* decodeAs(UpdateIdentityInput)({ require_verified_visitors: setting === "on" })
      yield* requireProject(project)
      const identity = yield* (yield* Operator).updateIdentity(project, input).pipe(
        Effect.catchTag("Conflict", () =>
          Effect.fail(userError(
            `project ${project} has no identity secret: create one first with \`${self} identity secret --project ${project}\``
          )))
      )
      yield* Console.log(identityBlock(identity))
    }))
).pipe(Command.withDescription("require the widget's visitors to be verified (on), or not (off)"))

const identityRemove = Command.make(
  "remove",
  { project },
  operating(({ project }) =>
    Effect.gen(function*() {
      yield* requireProject(project)
      yield* (yield* Operator).removeIdentitySecret(project)
      yield* Console.log("identity secret removed: visitor tokens are no longer verified, and verified visitors are no longer required")
    }))
).pipe(Command.withDescription("remove the project's identity secret"))

const articlesImport = Command.make("import", {
  project,
  publish: Flag.Boolean("publish").pipe(
    Flag.optional,
    Flag.withDescription("publish every file (--no-publish: none); without it each file's `published:` decides")
  ),
  folder: Argument.String("folder").pipe(Argument.withDescription("folder of .md files; subfolders are read too"))
}, operating(({ folder, project, publish }) =>
  Effect.gen(function*() {
    yield* requireProject(project)
    const imported = yield* (yield* Operator).importArticles(project, folder, { publish: Option.getOrUndefined(publish) }).pipe(
      Effect.catchTag("InvalidArticleFiles", (invalid: InvalidArticleFiles) =>
        Effect.andThen(
          Effect.forEach(invalid.rejected, ({ file, reason }) => Console.error(`${file}: ${reason}`), { discard: true }),
          Effect.fail(userError(invalid.message))
        ))
    )
    for (const article of imported) {
      yield* Console.log(`${article.outcome.padEnd(9)} ${article.file} → ${article.slug} (${article.id})`)
    }
    const count = (outcome: string) => imported.filter((article) => article.outcome === outcome).length
    yield* Console.log(`created ${count("created")}, updated ${count("updated")}, unchanged ${count("unchanged")}`)
  }))).pipe(
    Command.withShortDescription("import a folder of Markdown articles, all or nothing; run again to update them"),
    Command.withDescription([
      "Imports the .md files of a folder and of its subfolders (hidden ones skipped) as articles, all or nothing:",
      "if any file is not a valid article, each one is named with its reason and nothing is written.",
      "Front matter: title, category, and optionally slug and published (true or false).",
      "An article is matched by its slug (the front matter's, else one derived from its title), so importing",
      "the folder again updates the same articles; articles that are not in the folder are left alone.",
      "--publish publishes every file and --no-publish none; without either, each file's published: decides,",
      "and a file that does not say is created unpublished and keeps its published state when updated."
    ].join("\n  "))
  )

/** A project id as the first argument of a command about one project's tickets or agents. */
const projectArgument = Argument.String("project-id").pipe(
  Argument.withDescription(`project id (\`${self} projects list\` shows them)`)
)

const ticketArgument = Argument.String("ticket").pipe(Argument.withDescription("the ticket's id, or its number (12 or #12)"))

const json = Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("print the JSON the operator API answers, for scripts"))

/**
 * Input decoded by the operator API's own schema, so a command line is held to the same rules
 * and its mistakes read the same (`status must be one of open, …`).
 */
const decodeAs = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => (input: unknown) =>
  Schema.decodeUnknownEffect(schema)(input).pipe(
    // the API's own error, so its message reaches the person as the API's other refusals do
    Effect.mapError((error) => new ValidationError({ message: formatIssues(error.issue).issues[0]?.message ?? "the input is not valid" }))
  )

/** The project, then the ticket in it (by id or number); either missing is the person's mistake. */
const findTicket = Effect.fn(function*(project: string, ticket: string) {
  const projectId = yield* requireProject(project)
  const ticketId = yield* (yield* Operator).findTicket(projectId, ticket).pipe(
    Effect.catchTag("NotFound", () => Effect.fail(userError(`no ticket ${ticket} in project ${projectId}`)))
  )
  return { projectId, ticketId }
})

/** Rows as columns padded to their widest cell; the last column is left as it is. */
const table = (rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows.map((row) => row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column]!)).join("  ").trimEnd())
    .join("\n")
}

const ticketsTable = (list: TicketList) =>
  list.tickets.length === 0 ? "no tickets" : table([
    ["#", "STATUS", "PRIORITY", "CATEGORY", "ASSIGNEE", "FROM", "UPDATED", "SUBJECT"],
    ...list.tickets.map((ticket) => [
      String(ticket.ticket_number),
      ticket.status,
      ticket.priority,
      ticket.category ?? "-",
      ticket.assignee?.email ?? "-",
      ticket.sender_email ?? "-",
      ticket.updated_at.slice(0, 16).replace("T", " "),
      ticket.subject
    ])
  ])

const person = (name: string | null, email: string | null) =>
  email === null ? "-" : name === null ? email : `${name} <${email}>`

/** A ticket for a person to read: its fields, then the whole conversation, internal notes marked. */
const ticketBlock = (ticket: AdminTicket) =>
  [
    `#${ticket.ticket_number}  ${ticket.subject}`,
    `id:        ${ticket.ticket_id}`,
    `status:    ${ticket.status}    priority: ${ticket.priority}    category: ${ticket.category ?? "-"}    source: ${ticket.source}`,
    `from:      ${person(ticket.sender_name, ticket.sender_email)}${
      ticket.sender_verified ? "" : "    (unverified: no full key vouched for this sender)"
    }`,
    `assignee:  ${ticket.assignee === null ? "-" : person(ticket.assignee.name, ticket.assignee.email)}`,
    `tags:      ${ticket.tags.length === 0 ? "-" : ticket.tags.join(", ")}`,
    `created:   ${ticket.created_at}    updated: ${ticket.updated_at}`,
    ...ticket.messages.flatMap((message) => [
      "",
      `--- ${message.author_type}${message.internal ? " (internal)" : ""} · ${message.created_at}`,
      message.body
    ])
  ].join("\n")

/**
 * What the operator API answers, for scripts: the value as the endpoint's success schema encodes
 * it, so a command prints the same JSON whether it ran on the database or through the service.
 */
const printJson = <S extends Schema.Top & { readonly EncodingServices: never }>(schema: S, value: S["Type"]) =>
  Effect.flatMap(Schema.encodeUnknownEffect(Schema.toCodecJson(schema))(value).pipe(Effect.orDie), (encoded) =>
    Console.log(JSON.stringify(encoded, null, 2)))

const filter = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.optional, Flag.withDescription(description))

const ticketsList = Command.make("list", {
  project: projectArgument,
  status: filter("status", "open, in_progress, waiting, resolved or closed"),
  priority: filter("priority", "p1_critical, p2_high, p3_medium or p4_low"),
  category: filter("category", "billing, bug, account, feature_request, question or other"),
  assignee: filter("assignee", "an agent's email, or none for unassigned tickets"),
  tag: filter("tag", "a tag name"),
  source: filter("source", "api, widget, email or form"),
  contactEmail: filter("contact-email", "the sender's address"),
  q: filter("q", "words of the subject or body"),
  customField: filter("custom-field", "<key>:<value>: tickets whose custom field has that value (plan:pro, seats:12)"),
  sort: filter(
    "sort",
    `${TicketOrders.join(" or ")} (newest first, or recently updated first; default created), or custom_field:<key> (by its value)`
  ),
  limit: filter("limit", "tickets a page, 1 to 100 (default 25)"),
  cursor: filter("cursor", "the next page, as the previous one printed it"),
  json
}, operating(({ contactEmail, customField, json, project, ...flags }) =>
  Effect.gen(function*() {
    // the flags given, under the names of the API's query
    const given = Object.entries({ ...flags, contact_email: contactEmail, custom_field: customField })
      .flatMap(([name, value]) => Option.isSome(value) ? [[name, value.value]] : [])
    const query = yield* decodeAs(Schema.Struct(TicketListQuery))(Object.fromEntries(given))
    const projectId = yield* requireProject(project)
    const list = yield* (yield* Operator).listTickets(projectId, query)
    if (json) return yield* printJson(TicketList, list)
    yield* Console.log(ticketsTable(list))
    if (list.next_cursor !== null) yield* Console.log(`more: --cursor ${list.next_cursor}`)
  }))).pipe(Command.withDescription("list a project's tickets, newest first, with filters; a page at a time"))

const ticketsShow = Command.make(
  "show",
  { project: projectArgument, ticket: ticketArgument, json },
  operating(({ json, project, ticket }) =>
    Effect.gen(function*() {
      const { projectId, ticketId } = yield* findTicket(project, ticket)
      const read = yield* (yield* Operator).getTicket(projectId, ticketId)
      yield* json ? printJson(AdminTicket, read) : Console.log(ticketBlock(read))
    }))
).pipe(Command.withDescription("show a ticket with its whole conversation, internal notes included"))

const ticketsReply = Command.make("reply", {
  project: projectArgument,
  ticket: ticketArgument,
  body: Argument.String("body").pipe(Argument.withDescription("the message")),
  authorEmail: Flag.String("author-email").pipe(Flag.optional, Flag.withDescription("the agent who writes it")),
  internal: Flag.Boolean("internal").pipe(Flag.withDefault(false), Flag.withDescription("a note for agents only, never shown to the contact")),
  json
}, operating(({ authorEmail, body, internal, json, project, ticket }) =>
  Effect.gen(function*() {
    const input = yield* decodeAs(AgentMessageInput)({
      body,
      internal,
      ...(Option.isSome(authorEmail) ? { author_email: authorEmail.value } : {})
    })
    const { projectId, ticketId } = yield* findTicket(project, ticket)
    const created = yield* (yield* Operator).addAgentMessage(projectId, ticketId, input)
    yield* json ? printJson(MessageCreated, created) : Console.log(`${internal ? "internal note" : "reply"} ${created.message_id} added`)
  }))).pipe(Command.withDescription("answer a ticket as an agent, or add an internal note"))

/** A change of one field of a ticket, as the operator API's PATCH makes it. */
const ticketsChange = (name: string, field: "assignee_email" | "status", argument: Argument.Argument<string>, description: string) =>
  Command.make(name, { project: projectArgument, ticket: ticketArgument, value: argument, json }, operating(({ json, project, ticket, value }) =>
    Effect.gen(function*() {
      const input = yield* decodeAs(UpdateTicketInput)({ [field]: value })
      const { projectId, ticketId } = yield* findTicket(project, ticket)
      const updated = yield* (yield* Operator).updateTicket(projectId, ticketId, input)
      yield* json
        ? printJson(AdminTicket, updated)
        : Console.log(`#${updated.ticket_number}  status: ${updated.status}  assignee: ${
          updated.assignee === null ? "-" : person(updated.assignee.name, updated.assignee.email)
        }`)
    }))).pipe(Command.withDescription(description))

const ticketsAssign = ticketsChange(
  "assign",
  "assignee_email",
  Argument.String("agent-email").pipe(Argument.withDescription("the address of an agent of the project")),
  "assign a ticket to an agent"
)

const ticketsStatus = ticketsChange(
  "status",
  "status",
  Argument.String("status").pipe(Argument.withDescription("open, in_progress, waiting, resolved or closed")),
  "move a ticket to another status"
)

const ticketsMerge = Command.make("merge", {
  project: projectArgument,
  ticket: ticketArgument,
  into: Argument.String("into").pipe(Argument.withDescription("the ticket that keeps the conversation: its id, or its number")),
  json
}, operating(({ into, json, project, ticket }) =>
  Effect.gen(function*() {
    const { projectId, ticketId } = yield* findTicket(project, ticket)
    const { ticketId: intoId } = yield* findTicket(project, into)
    const target = yield* (yield* Operator).mergeTicket(projectId, ticketId, intoId)
    if (json) return yield* printJson(AdminTicket, target)
    yield* Console.log(
      `ticket ${ticket} merged into #${target.ticket_number} (${target.ticket_id}): its messages, files, tags and links are there now`
    )
    yield* Console.log("a merge cannot be undone: to split the conversation again, file a new ticket")
  }), { ...typedAs, into_id: "<into>" })).pipe(
  Command.withDescription("merge a ticket into another of its project, for good (to split, file a new ticket)")
)

const hoursText = (hours: BusinessHours) =>
  [
    `time zone: ${hours.time_zone}`,
    ...Weekdays.map((day) => `${day.padEnd(10)} ${(hours.weekly[day] ?? []).map((p) => `${p.start}-${p.end}`).join(", ") || "closed"}`),
    `holidays:  ${hours.holidays.join(", ") || "none"}`
  ].join("\n")

const dayIndex = (name: string) => Weekdays.findIndex((day) => day.startsWith(name.toLowerCase().slice(0, 3)))

/**
 * `mon-fri=09:00-17:00;sat=10:00-14:00` (periods of a day joined with commas) as the API's weekly
 * schedule; what does not read is passed on as it is, so the API's refusal names the rule.
 */
const parseWeekly = (text: string): unknown => {
  const weekly: Record<string, Array<{ start: string; end: string }>> = {}
  for (const part of text.split(";").map((s) => s.trim()).filter((s) => s.length > 0)) {
    const [days, periods] = part.split("=") as [string, string | undefined]
    const [from, to] = days.split("-").map(dayIndex) as [number, number | undefined]
    if (from === -1 || to === -1 || periods === undefined) return text
    for (let i = from; i <= (to ?? from); i++) {
      weekly[Weekdays[i]!] = periods.split(",").map((period) => {
        const [start, end] = period.trim().split("-")
        return { start: start ?? "", end: end ?? "" }
      })
    }
  }
  return weekly
}

const slaHoursShow = Command.make(
  "show",
  { project: projectArgument, json },
  operating(({ json, project }) =>
    Effect.gen(function*() {
      const hours = yield* (yield* Operator).getBusinessHours(yield* requireProject(project))
      yield* json ? printJson(BusinessHours, hours) : Console.log(hoursText(hours))
    }))
).pipe(Command.withDescription("show a project's business hours"))

const slaHoursSet = Command.make("set", {
  project: projectArgument,
  zone: Flag.String("zone").pipe(Flag.withDescription("an IANA time zone, e.g. Europe/Berlin")),
  weekly: Flag.String("weekly").pipe(Flag.withDescription("open hours, e.g. mon-fri=09:00-17:00;sat=10:00-14:00")),
  holidays: Flag.String("holidays").pipe(Flag.optional, Flag.withDescription("closed dates YYYY-MM-DD, separated by commas")),
  json
}, operating(({ holidays, json, project, weekly, zone }) =>
  Effect.gen(function*() {
    const input = yield* decodeAs(BusinessHours)({
      time_zone: zone,
      weekly: parseWeekly(weekly),
      holidays: Option.isSome(holidays) ? holidays.value.split(",").map((day) => day.trim()).filter((day) => day !== "") : []
    })
    const stored = yield* (yield* Operator).setBusinessHours(yield* requireProject(project), input)
    yield* json ? printJson(BusinessHours, stored) : Console.log(hoursText(stored))
  }), { ...typedAs, time_zone: "--zone", weekly: "--weekly", holidays: "--holidays" })).pipe(
  Command.withDescription("set a project's business hours: a weekly schedule in a time zone, and holidays")
)

const policiesTable = (list: typeof PolicyList.Type) =>
  list.policies.length === 0 ? "no SLA policies" : table([
    ["POS", "ID", "NAME", "FIRST RESPONSE", "RESOLUTION", "HOURS", "CONDITIONS"],
    ...list.policies.map((policy) => [
      String(policy.position),
      policy.policy_id,
      policy.name,
      policy.first_response_minutes === null ? "-" : `${policy.first_response_minutes} min`,
      policy.resolution_minutes === null ? "-" : `${policy.resolution_minutes} min`,
      policy.hours,
      policy.conditions.length === 0 ? "every ticket" : policy.conditions.map((c) => `${c.field} ${c.op} ${JSON.stringify(c.value)}`).join(" and ")
    ])
  ])

const slaPoliciesList = Command.make(
  "list",
  { project: projectArgument, json },
  operating(({ json, project }) =>
    Effect.gen(function*() {
      const list = yield* (yield* Operator).listSlaPolicies(yield* requireProject(project))
      yield* json ? printJson(PolicyList, list) : Console.log(policiesTable(list))
    }))
).pipe(Command.withDescription("list a project's SLA policies in the order they are tried"))

const slaPoliciesCreate = Command.make("create", {
  project: projectArgument,
  name: Argument.String("name"),
  firstResponse: Flag.Int("first-response").pipe(Flag.optional, Flag.withDescription("first-response target in minutes")),
  resolution: Flag.Int("resolution").pipe(Flag.optional, Flag.withDescription("resolution target in minutes")),
  business: Flag.Boolean("business").pipe(Flag.withDefault(false), Flag.withDescription("count only the project's business hours")),
  keepRunning: Flag.Boolean("keep-running-when-waiting").pipe(
    Flag.withDefault(false),
    Flag.withDescription("do not pause the resolution clock while the ticket waits on the customer")
  ),
  conditions: Flag.String("conditions").pipe(
    Flag.optional,
    Flag.withDescription(`as JSON, e.g. '[{"field":"priority","op":"eq","value":"p1_critical"}]'`)
  ),
  position: Flag.Int("position").pipe(Flag.optional, Flag.withDescription("where it is tried, from 1; last when left out")),
  json
}, operating(({ business, conditions, firstResponse, json, keepRunning, name, position, project, resolution }) =>
  Effect.gen(function*() {
    const parsed = Option.isNone(conditions) ? undefined : yield* Effect.try({
      try: () => JSON.parse(conditions.value) as unknown,
      catch: () => userError("--conditions must be JSON, e.g. [{\"field\":\"priority\",\"op\":\"eq\",\"value\":\"p1_critical\"}]")
    })
    const input = yield* decodeAs(CreatePolicyInput)({
      name,
      hours: business ? "business" : "calendar",
      pause_when_waiting: !keepRunning,
      ...(parsed === undefined ? {} : { conditions: parsed }),
      ...(Option.isSome(firstResponse) ? { first_response_minutes: firstResponse.value } : {}),
      ...(Option.isSome(resolution) ? { resolution_minutes: resolution.value } : {}),
      ...(Option.isSome(position) ? { position: position.value } : {})
    })
    const created = yield* (yield* Operator).createSlaPolicy(yield* requireProject(project), input)
    yield* json ? printJson(Policy, created) : Console.log(policiesTable({ policies: [created] }))
  }), {
  ...typedAs,
  name: "<name>",
  first_response_minutes: "--first-response",
  resolution_minutes: "--resolution",
  conditions: "--conditions",
  position: "--position",
  hours: "--business"
})).pipe(Command.withDescription("add an SLA policy: targets for the tickets its conditions match"))

const slaPoliciesDelete = Command.make(
  "delete",
  { project: projectArgument, policy: Argument.String("policy-id") },
  operating(({ policy, project }) =>
    Effect.gen(function*() {
      const projectId = yield* requireProject(project)
      const policyId = yield* Schema.decodeUnknownEffect(SlaPolicyId)(policy).pipe(
        Effect.mapError(() => userError(`no SLA policy ${policy} (\`${self} sla policies list ${projectId}\` shows them)`))
      )
      yield* (yield* Operator).deleteSlaPolicy(projectId, policyId)
      yield* Console.log(`SLA policy ${policy} deleted; tickets it set keep their due times until they change`)
    }))
).pipe(Command.withDescription("delete an SLA policy"))

const fieldKeyArgument = Argument.String("key").pipe(Argument.withDescription("the field's key, as tickets' custom_fields name it"))

const fieldsTable = (list: CustomFieldList) =>
  list.custom_fields.length === 0 ? "no custom fields" : table([
    ["KEY", "TYPE", "LABEL", "OPTIONS"],
    ...list.custom_fields.map((field) => [field.key, field.type, field.label, field.options?.join(", ") ?? "-"])
  ])

/** The project's field of that key; a user error naming it when there is none. */
const findField = Effect.fn(function*(projectId: ProjectId, key: string) {
  const list = yield* (yield* Operator).listCustomFields(projectId)
  const field = list.custom_fields.find((candidate) => candidate.key === key)
  if (field === undefined) {
    return yield* userError(`no custom field ${key} in project ${projectId} (\`${self} fields list ${projectId}\` shows them)`)
  }
  return field
})

const fieldsList = Command.make(
  "list",
  { project: projectArgument, json },
  operating(({ json, project }) =>
    Effect.gen(function*() {
      const list = yield* (yield* Operator).listCustomFields(yield* requireProject(project))
      yield* json ? printJson(CustomFieldList, list) : Console.log(fieldsTable(list))
    }))
).pipe(Command.withDescription("list a project's custom fields, oldest first"))

const fieldsCreate = Command.make("create", {
  project: projectArgument,
  key: fieldKeyArgument,
  label: Flag.String("label").pipe(Flag.withDescription("the field's name, as agents see it")),
  type: Flag.String("type").pipe(Flag.withDescription("text, number, boolean, date or select")),
  options: Flag.String("options").pipe(Flag.optional, Flag.withDescription("a select field's choices, separated by commas")),
  json
}, operating(({ json, key, label, options, project, type }) =>
  Effect.gen(function*() {
    const input = yield* decodeAs(CreateCustomFieldInput)({
      key,
      label,
      type,
      ...(Option.isSome(options) ? { options: options.value.split(",").map((option) => option.trim()) } : {})
    })
    const projectId = yield* requireProject(project)
    const created = yield* (yield* Operator).createCustomField(projectId, input)
    yield* json ? printJson(CustomField, created) : Console.log(fieldsTable({ custom_fields: [created] }))
  }), { ...typedAs, key: "<key>", label: "--label", type: "--type", options: "--options" })).pipe(
  Command.withDescription("define a typed field that the project's tickets carry in custom_fields")
)

const fieldsDelete = Command.make(
  "delete",
  { project: projectArgument, key: fieldKeyArgument },
  operating(({ key, project }) =>
    Effect.gen(function*() {
      const projectId = yield* requireProject(project)
      const field = yield* findField(projectId, key)
      yield* (yield* Operator).deleteCustomField(projectId, CustomFieldId.make(field.field_id))
      yield* Console.log(`custom field ${key} deleted, with its values on the project's tickets`)
    }))
).pipe(Command.withDescription("delete a custom field and its values on every ticket of the project"))

/**
 * Sets one custom field value of a ticket (read as the field's type: `12` a number, `true` a
 * boolean), or removes it (null), as the operator API's PATCH does; a value that does not fit
 * goes as typed, so the API's refusal names the rule.
 */
const changeField = (options: { project: string; ticket: string; key: string; text: string | null; json: boolean }) =>
  Effect.gen(function*() {
    const { projectId, ticketId } = yield* findTicket(options.project, options.ticket)
    const field = yield* findField(projectId, options.key)
    const fitted = options.text === null ? undefined : fitText(field, options.text)
    const value = fitted === undefined ? null : "value" in fitted ? fitted.value : options.text
    const input = yield* decodeAs(UpdateTicketInput)({ custom_fields: { [options.key]: value } })
    const updated = yield* (yield* Operator).updateTicket(projectId, ticketId, input)
    if (options.json) return yield* printJson(AdminTicket, updated)
    yield* Console.log(`#${updated.ticket_number}  custom fields: ${JSON.stringify(updated.custom_fields)}`)
  })

const ticketsSetField = Command.make("set-field", {
  project: projectArgument,
  ticket: ticketArgument,
  key: fieldKeyArgument,
  value: Argument.String("value").pipe(Argument.withDescription("read as the field's type: 12, true, 2027-03-01, pro")),
  json
}, operating(({ json, key, project, ticket, value }) => changeField({ project, ticket, key, text: value, json }))).pipe(
  Command.withDescription("set a custom field of a ticket")
)

const ticketsUnsetField = Command.make(
  "unset-field",
  { project: projectArgument, ticket: ticketArgument, key: fieldKeyArgument, json },
  operating(({ json, key, project, ticket }) => changeField({ project, ticket, key, text: null, json }))
).pipe(Command.withDescription("remove a custom field's value from a ticket"))

const agentsCreate = Command.make("create", {
  project: projectArgument,
  email: Flag.String("email").pipe(Flag.withDescription("the agent's address, as replies and assignments name it")),
  name: Flag.String("name").pipe(Flag.withDescription("the agent's name, as contacts see it")),
  json
}, operating(({ email, json, name, project }) =>
  Effect.gen(function*() {
    const input = yield* decodeAs(CreateAgentInput)({ email, name })
    const projectId = yield* requireProject(project)
    const created = yield* (yield* Operator).createAgent(projectId, input)
    yield* json ? printJson(AgentCreated, created) : Console.log(`agent id: ${created.agent_id}\nemail:    ${created.email}\nname:     ${created.name}`)
  }))).pipe(Command.withDescription("add an agent to a project, to reply as and assign tickets to"))

const agentsTable = (list: typeof AgentList.Type) =>
  list.agents.length === 0 ? "no agents" : table([
    ["EMAIL", "CREATED", "NAME"],
    ...list.agents.map((agent) => [agent.email, agent.created_at.slice(0, 16).replace("T", " "), agent.name])
  ])

const agentsList = Command.make(
  "list",
  { project: projectArgument, json },
  operating(({ json, project }) =>
    Effect.gen(function*() {
      const list = yield* (yield* Operator).listAgents(yield* requireProject(project))
      yield* json ? printJson(AgentList, list) : Console.log(agentsTable(list))
    }))
).pipe(Command.withDescription("list a project's agents by address"))

const mailBlock = (mail: MailSettings) => `inbound address: ${mail.inbound_address ?? "none"}`

const mailShow = Command.make(
  "show",
  { project: projectArgument },
  operating(({ project }) =>
    Effect.gen(function*() {
      yield* Console.log(mailBlock(yield* (yield* Operator).getMail(yield* requireProject(project))))
    }))
).pipe(Command.withDescription("the address mail to the project is sent to, if any"))

const mailAddress = Command.make("address", {
  project: projectArgument,
  address: Argument.String("address").pipe(
    Argument.optional,
    Argument.withDescription("the address mail to the project is sent to, without +tag (support@acme.example)")
  ),
  remove: Flag.Boolean("remove").pipe(Flag.withDefault(false), Flag.withDescription("stop taking mail for the project"))
}, operating(({ address, project, remove }) =>
  Effect.gen(function*() {
    if (remove === Option.isSome(address)) {
      return yield* userError(remove ? "<address> and --remove cannot go together" : "<address> must be given, or --remove")
    }
    const input = yield* decodeAs(MailSettingsInput)({ inbound_address: Option.getOrNull(address) })
    const projectId = yield* requireProject(project)
    yield* Console.log(mailBlock(yield* (yield* Operator).updateMail(projectId, input)))
  }), { ...typedAs, inbound_address: "<address>" })).pipe(
    Command.withDescription("set the address mail to the project is sent to (one project's only), or --remove it")
  )

const satisfactionBlock = (summary: SatisfactionSummary) =>
  [
    `ratings: ${summary.ratings}`,
    `score:   ${summary.score === null ? "-" : `${Math.round(summary.score * 100)}% rated 4-5 or good`}`,
    `average: ${summary.average ?? "-"} (1-5)`,
    `good:    ${summary.good}`,
    `bad:     ${summary.bad}`,
    `by rating: ${Object.entries(summary.distribution).map(([rating, n]) => `${rating}=${n}`).join(" ")}`
  ].join("\n")

const satisfactionShow = Command.make(
  "show",
  { project: projectArgument, json },
  operating(({ json, project }) =>
    Effect.gen(function*() {
      const summary = yield* (yield* Operator).satisfactionSummary(yield* requireProject(project))
      yield* json ? printJson(SatisfactionSummary, summary) : Console.log(satisfactionBlock(summary))
    }))
).pipe(Command.withDescription("the ratings of a project's resolved tickets: count, score, average and spread"))

const settingsBlock = (settings: SatisfactionSettings) =>
  `asking:  ${settings.enabled ? "on" : "off"}\nscale:   ${settings.scale}\ndelay:   ${settings.delay_minutes} minutes`

const satisfactionSettings = Command.make("settings", {
  project: projectArgument,
  off: Flag.Boolean("off").pipe(Flag.withDefault(false), Flag.withDescription("stop asking contacts to rate resolved tickets")),
  on: Flag.Boolean("on").pipe(Flag.withDefault(false), Flag.withDescription("ask contacts to rate resolved tickets")),
  scale: Flag.String("scale").pipe(Flag.optional, Flag.withDescription("five (1-5) or good_bad")),
  delay: Flag.String("delay").pipe(Flag.optional, Flag.withDescription("minutes after the resolution to ask"))
}, operating(({ delay, off, on, project, scale }) =>
  Effect.gen(function*() {
    if (off && on) return yield* userError("--on and --off cannot go together")
    const delayText = Option.getOrUndefined(delay)?.trim()
    if (delayText !== undefined && !/^-?\d+(\.\d+)?$/.test(delayText)) {
      return yield* userError("--delay must be a number of minutes")
    }
    const input = yield* decodeAs(UpdateSatisfactionSettings)({
      ...(off || on ? { enabled: on } : {}),
      ...(Option.isSome(scale) ? { scale: scale.value } : {}),
      ...(delayText === undefined ? {} : { delay_minutes: Number(delayText) })
    })
    const projectId = yield* requireProject(project)
    const operator = yield* Operator
    const settings = Object.keys(input).length === 0
      ? yield* operator.getSatisfactionSettings(projectId)
      : yield* operator.updateSatisfactionSettings(projectId, input)
    yield* Console.log(settingsBlock(settings))
  }), { ...typedAs, scale: "--scale", delay_minutes: "--delay", enabled: "--on/--off" })).pipe(
    Command.withDescription("show, or change with --on/--off, --scale and --delay, how a project asks for ratings")
  )

const webhookArgument = Argument.String("webhook").pipe(
  Argument.withDescription(`the endpoint's id (\`${self} webhooks list\` shows them)`)
)

/** The endpoint of that id; a user error naming it when it is no webhook id at all. */
const webhookIdOf = (text: string) =>
  Schema.decodeUnknownEffect(WebhookId)(text).pipe(
    Effect.mapError(() => userError(`no webhook ${text} (\`${self} webhooks list <project>\` shows them)`))
  )

const webhooksList = Command.make(
  "list",
  { project: projectArgument, json },
  operating(({ json, project }) =>
    Effect.gen(function*() {
      const list = yield* (yield* Operator).listWebhooks(yield* requireProject(project))
      yield* json ? printJson(WebhookList, list) : Console.log(list.webhooks.length === 0 ? "no webhooks" : table([
        ["ID", "STATUS", "SCHEDULE", "URL", "FAILING SINCE"],
        ...list.webhooks.map((webhook) => [
          webhook.webhook_id,
          webhook.status,
          webhook.retry_schedule,
          webhook.url,
          webhook.failing_since?.slice(0, 16).replace("T", " ") ?? "-"
        ])
      ]))
    }))
).pipe(Command.withDescription("list a project's webhook endpoints, and which are disabled or failing"))

const webhooksEnable = Command.make(
  "enable",
  { project: projectArgument, webhook: webhookArgument },
  operating(({ project, webhook }) =>
    Effect.gen(function*() {
      const projectId = yield* requireProject(project)
      const enabled = yield* (yield* Operator).enableWebhook(projectId, yield* webhookIdOf(webhook))
      yield* Console.log(`webhook ${enabled.webhook_id} is enabled: ${enabled.url}`)
    }))
).pipe(Command.withDescription("turn a disabled webhook endpoint back on"))

const replayLine = (replay: Replay) =>
  `replay ${replay.replay_id}: ${replay.status}, ${replay.delivered + replay.failed} of ${replay.total} sent ` +
  `(${replay.delivered} delivered, ${replay.failed} failed), ${replay.only === "all" ? "every delivery" : "failed deliveries"} ` +
  `from ${replay.since} until ${replay.until}`

const webhooksReplay = Command.make("replay", {
  project: projectArgument,
  webhook: webhookArgument,
  since: Flag.String("since").pipe(Flag.withDescription("the first delivery's time, ISO 8601 (2026-11-28T09:00:00Z)")),
  until: Flag.String("until").pipe(Flag.optional, Flag.withDescription("the end of the range, ISO 8601; default: now")),
  all: Flag.Boolean("all").pipe(Flag.withDefault(false), Flag.withDescription("delivered ones too, not only the failed"))
}, operating(({ all, project, since, until, webhook }) =>
  Effect.gen(function*() {
    const input = yield* decodeAs(ReplayInput)({
      since,
      ...(Option.isSome(until) ? { until: until.value } : {}),
      only: all ? "all" : "failed"
    })
    const projectId = yield* requireProject(project)
    const replay = yield* (yield* Operator).replayWebhook(projectId, yield* webhookIdOf(webhook), input)
    yield* Console.log(replayLine(replay))
  }), { ...typedAs, since: "--since", until: "--until" })).pipe(
    Command.withDescription("send a range of an endpoint's failed (or --all) deliveries again, oldest first")
  )

const webhooksReplays = Command.make(
  "replays",
  { project: projectArgument, webhook: webhookArgument, json },
  operating(({ json, project, webhook }) =>
    Effect.gen(function*() {
      const projectId = yield* requireProject(project)
      const list = yield* (yield* Operator).listReplays(projectId, yield* webhookIdOf(webhook))
      yield* json
        ? printJson(ReplayList, list)
        : Console.log(list.replays.length === 0 ? "no replays" : list.replays.map(replayLine).join("\n"))
    }))
).pipe(Command.withDescription("an endpoint's replays, newest first, with how far each has got"))

const emailArgument = Argument.String("email").pipe(Argument.withDescription("the contact's address, as their tickets name it"))

const contactsExport = Command.make("export", {
  project: projectArgument,
  email: emailArgument,
  zip: Flag.String("zip").pipe(
    Flag.optional,
    Flag.withDescription("write a zip (contact.json and every file's bytes) to this path instead of printing the JSON")
  )
}, operating(({ email, project, zip }) =>
  Effect.gen(function*() {
    const input = yield* decodeAs(EraseContactInput)({ email })
    const projectId = yield* requireProject(project)
    const operator = yield* Operator
    if (Option.isNone(zip)) return yield* printJson(ContactExport, yield* operator.exportContact(projectId, input.email))
    const bytes = yield* operator.exportContactZip(projectId, input.email)
    // only the operator may read it: it holds everything about a person
    yield* Effect.tryPromise({
      try: () => writeFile(zip.value, bytes, { mode: 0o600 }),
      catch: (error) => userError(`--zip ${zip.value} cannot be written: ${error instanceof Error ? error.message : String(error)}`)
    })
    yield* Console.log(`wrote ${zip.value} (${bytes.byteLength} bytes): contact.json and the contact's files`)
  }), { ...typedAs, email: "<email>" })).pipe(
    Command.withDescription("everything a project holds about one contact, as JSON or a zip with their files")
  )

const contactsErase = Command.make("erase", {
  project: projectArgument,
  email: emailArgument
}, operating(({ email, project }) =>
  Effect.gen(function*() {
    const input = yield* decodeAs(EraseContactInput)({ email })
    const projectId = yield* requireProject(project)
    const erased = yield* (yield* Operator).eraseContact(projectId, input.email)
    yield* Console.log(
      erased.already_erased
        ? `contact ${erased.contact_id} was erased already, at ${erased.erased_at}: nothing changed`
        : `contact ${erased.contact_id} erased: ${erased.tickets} tickets, ${erased.messages} messages and ` +
          `${erased.attachments} files no longer hold their data\nan erasure cannot be undone`
    )
  }), { ...typedAs, email: "<email>" })).pipe(
    Command.withDescription("erase a contact's data everywhere in a project, search included; ticket numbers stay")
  )

const demo = Command.make(
  "demo",
  {},
  operating(() =>
    Effect.gen(function*() {
      const seeded = yield* (yield* Operator).seedDemo
      yield* Console.log(
        `project id: ${seeded.projectId}\nfull key:   ${seeded.fullKey}\nwidget key: ${seeded.widgetKey}\n${seeded.articles} articles published`
      )
    }))
).pipe(Command.withDescription("create a demo project with keys and a published help centre"))

const adminToken = Command.make(
  "admin-token",
  {},
  operating(() =>
    Effect.gen(function*() {
      const token = yield* (yield* Operator).adminToken
      if (Option.isNone(token)) {
        return yield* userError("no admin token: set ADMIN_TOKEN (on PostgreSQL it is never generated)")
      }
      yield* Console.log(token.value)
    }))
).pipe(Command.withDescription("print the admin token (ADMIN_TOKEN, or the one generated for the embedded database)"))

const cli = Command.make(self).pipe(
  Command.withSubcommands([
    Command.make("projects").pipe(
      Command.withDescription("create and list projects"),
      Command.withSubcommands([projectsCreate, projectsList])
    ),
    Command.make("keys").pipe(
      Command.withDescription("issue, limit and revoke a project's API keys"),
      Command.withSubcommands([keysCreate, keysLimit, keysRevoke])
    ),
    Command.make("identity").pipe(
      Command.withDescription("the secret that verifies a project's widget visitors, and whether they must be verified"),
      Command.withSubcommands([identitySecret, identityShow, identityRequire, identityRemove])
    ),
    Command.make("mail").pipe(
      Command.withDescription("the address where mail to a project files its tickets and answers"),
      Command.withSubcommands([mailShow, mailAddress])
    ),
    Command.make("agents").pipe(
      Command.withDescription("add and list the agents who answer a project's tickets"),
      Command.withSubcommands([agentsCreate, agentsList])
    ),
    Command.make("articles").pipe(
      Command.withDescription("import a project's help-centre articles"),
      Command.withSubcommands([articlesImport])
    ),
    Command.make("tickets").pipe(
      Command.withDescription("list, show, answer, assign, move and merge a project's tickets"),
      Command.withSubcommands([ticketsList, ticketsShow, ticketsReply, ticketsAssign, ticketsStatus, ticketsMerge, ticketsSetField, ticketsUnsetField])
    ),
    Command.make("sla").pipe(
      Command.withDescription("service levels: business hours and SLA policies"),
      Command.withSubcommands([
        Command.make("hours").pipe(
          Command.withDescription("a project's business hours"),
          Command.withSubcommands([slaHoursShow, slaHoursSet])
        ),
        Command.make("policies").pipe(
          Command.withDescription("a project's SLA policies"),
          Command.withSubcommands([slaPoliciesList, slaPoliciesCreate, slaPoliciesDelete])
        )
      ])
    ),
    Command.make("fields").pipe(
      Command.withDescription("define, list and delete the typed custom fields a project's tickets carry"),
      Command.withSubcommands([fieldsList, fieldsCreate, fieldsDelete])
    ),
    Command.make("satisfaction").pipe(
      Command.withDescription("what contacts rated their resolved tickets, and how a project asks them"),
      Command.withSubcommands([satisfactionShow, satisfactionSettings])
    ),
    Command.make("contacts").pipe(
      Command.withDescription("a contact's data: export all of it, or erase it"),
      Command.withSubcommands([contactsExport, contactsErase])
    ),
    Command.make("webhooks").pipe(
      Command.withDescription("a project's webhook endpoints: list, enable again, and replay what they missed"),
      Command.withSubcommands([webhooksList, webhooksEnable, webhooksReplay, webhooksReplays])
    ),
    demo,
    adminToken
  ])
)

/** Every error as one line on stderr, `error: …`, with no banner and no colour to strip. */
const formatter: CliOutput.Formatter = {
  ...CliOutput.defaultFormatter(),
  formatError: (error) => `error: ${error.message}`,
  formatErrors: (errors) => errors.map((error) => `error: ${error.message}`).join("\n")
}

/** A mistyped command line gets its mistake and where the usage is, on stderr; not a page of help on stdout. */
const presenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Console.error(
        event.errors.map((error) => `error: ${error.message} — see \`${event.commandPath.join(" ")} --help\``)
          .join("\n")
      )
      : CliOutput.defaultPresenter.present(event)
}

/**
 * The last resort: a failure nobody has shown yet is a defect of ours, printed whole for the bug
 * report. Whatever the CLI printed itself (help, usage mistakes, user errors) is marked reported.
 */
const reportDefects = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapCause(effect, (cause) =>
    Cause.hasInterruptsOnly(cause) || !Runtime.getErrorReported(Cause.squash(cause))
      ? Effect.void
      : Console.error(`error: unexpected failure, a defect worth reporting:\n${Cause.pretty(cause)}`))

cli.pipe(
  Command.run({ version: serviceVersion }),
  reportDefects,
  Effect.provide(Layer.mergeAll(CliOutput.layer(formatter), CliOutput.layerPresenter(presenter), NodeServices.layer)),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
