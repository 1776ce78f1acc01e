import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Layer, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { AdminToken } from "../Admin/AdminToken.ts"
import { importFolder } from "../Articles/Import.ts"
import { AppConfig } from "../Config.ts"
import * as Database from "../Database/Database.ts"
import { seedDemo } from "../Demo/Demo.ts"
import { serviceVersion } from "../Health/Version.ts"
import { Projects } from "../Projects/Projects.ts"
import { Articles } from "../Articles/Articles.ts"

const project = Flag.String("project").pipe(Flag.withDescription("project id"))

const projectsCreate = Command.make("create", { name: Argument.String("name") }, ({ name }) =>
  Effect.gen(function*() {
    const created = yield* (yield* Projects).create(name)
    yield* Console.log(`project id: ${created.project_id}\nkey id:     ${created.key_id}\nfull key:   ${created.api_key}`)
  })).pipe(Command.withDescription("create a project and its first full key"))

const projectsList = Command.make("list", {}, () =>
  Effect.gen(function*() {
    for (const p of yield* (yield* Projects).list) yield* Console.log(`${p.project_id}  ${p.created_at}  ${p.name}`)
  })).pipe(Command.withDescription("list every project"))

const keysCreate = Command.make("create", {
  project,
  scope: Flag.Literals("scope", ["full", "widget"]).pipe(Flag.withDefault("full" as const)),
  name: Flag.String("name").pipe(Flag.optional)
}, ({ name, project, scope }) =>
  Effect.gen(function*() {
    const key = yield* (yield* Projects).createKey(project, { name: Option.getOrNull(name), scope })
    yield* Console.log(`key id: ${key.key_id}\nscope:  ${key.scope}\nkey:    ${key.api_key}`)
  })).pipe(Command.withDescription("issue an API key; it is shown only now"))

const keysRevoke = Command.make("revoke", { project, keyId: Argument.String("key-id") }, ({ keyId, project }) =>
  Effect.gen(function*() {
    yield* (yield* Projects).revokeKey(project, keyId)
    yield* Console.log(`revoked ${keyId}`)
  })).pipe(Command.withDescription("revoke an API key at once, on every instance"))

const articlesImport = Command.make("import", {
  project,
  publish: Flag.Boolean("publish").pipe(Flag.withDescription("publish every imported article")),
  folder: Argument.Directory("folder", { mustExist: true })
}, ({ folder, project, publish }) =>
  Effect.gen(function*() {
    yield* (yield* Projects).requireProject(project)
    const imported = yield* importFolder(project, folder, { publish: publish ? true : undefined })
    for (const article of imported) yield* Console.log(`${article.file} → ${article.slug} (${article.id})`)
    yield* Console.log(`${imported.length} articles imported`)
  })).pipe(Command.withDescription("import Markdown files (front matter: title, category, slug?, published?)"))

const demo = Command.make("demo", {}, () =>
  Effect.gen(function*() {
    const seeded = yield* seedDemo()
    yield* Console.log(
      `project id: ${seeded.projectId}\nfull key:   ${seeded.fullKey}\nwidget key: ${seeded.widgetKey}\n${seeded.articles} articles published`
    )
  })).pipe(Command.withDescription("create a demo project with keys and a published help centre"))

const adminToken = Command.make("admin-token", {}, () =>
  Effect.gen(function*() {
    const admin = yield* AdminToken
    yield* Option.match(admin.token, {
      onNone: () => Console.log("no admin token: set ADMIN_TOKEN (required on PostgreSQL)"),
      onSome: (token) => Console.log(token)
    })
  })).pipe(Command.withDescription("print the admin token of the embedded database"))

const cli = Command.make("support").pipe(
  Command.withSubcommands([
    Command.make("projects").pipe(Command.withSubcommands([projectsCreate, projectsList])),
    Command.make("keys").pipe(Command.withSubcommands([keysCreate, keysRevoke])),
    Command.make("articles").pipe(Command.withSubcommands([articlesImport])),
    demo,
    adminToken
  ])
)

/** The services of the HTTP API that the commands use, over the database the settings name. */
const ServicesForCli = Layer.mergeAll(Projects.layer, Articles.layer, AdminToken.layer).pipe(
  Layer.provideMerge(Database.layer),
  Layer.provide(AppConfig.layer),
  Layer.provideMerge(NodeServices.layer)
)

cli.pipe(
  Command.run({ version: serviceVersion }),
  Effect.provide(ServicesForCli),
  NodeRuntime.runMain
)
