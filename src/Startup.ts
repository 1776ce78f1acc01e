import { Cause, Config, Console, Data, Duration, Effect, Layer, Option, Redacted, Runtime, Schema, SchemaIssue } from "effect"
import { HttpServer, HttpServerError } from "effect/http"
import { NetAddress } from "effect/net"
import { SqlError } from "effect/sql"
import { resolve } from "node:path"
import { AdminToken } from "./Admin/AdminToken.ts"
import { AppConfig, type Settings } from "./Config.ts"
import { DatabaseInfo } from "./Database/Database.ts"
import { announce, DataDirInUse } from "./Database/DataDirLock.ts"
import { isDatabaseUnavailable, sqlStateOf } from "./Database/Outage.ts"
import * as Pg from "./Database/Pg.ts"
import * as Upkeep from "./Database/Upkeep.ts"
import { seedDemo } from "./Demo/Demo.ts"
import { serviceName, serviceVersion } from "./Health/Version.ts"
import { Projects } from "./Projects/Projects.ts"

/** host:port of a URL setting, never its user or password; the whole text when it is not a URL. */
const hostOf = (url: string, defaultPort?: number) => {
  try {
    const parsed = new URL(url)
    // postgres:///db (a local socket) names no host at all
    const host = parsed.host === "" ? "localhost" : parsed.host
    return parsed.port === "" && defaultPort !== undefined ? `${host}:${defaultPort}` : host
  } catch {
    return "(an address that is not a URL)"
  }
}

const databaseLine = (config: Settings) =>
  Option.match(config.databaseUrl, {
    onNone: () =>
      config.dataDir === "memory://"
        ? "embedded PGlite in memory (DATA_DIR=memory://): nothing is kept when the process ends"
        : `embedded PGlite in ${resolve(config.dataDir)}`,
    onSome: (secret) => {
      const url = Redacted.value(secret)
      try {
        const parsed = new URL(url)
        const name = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || decodeURIComponent(parsed.username) || "postgres"
        // where the connections really go, `?host=` and a Unix socket included
        const endpoint = Pg.endpointOf(url)
        const at = "path" in endpoint
          ? endpoint.path
          : `${endpoint.host.includes(":") ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`
        return `PostgreSQL at ${at}, database ${name}`
      } catch {
        return "PostgreSQL at DATABASE_URL"
      }
    }
  })

/** Who vacuums and analyzes a server's tables: its autovacuum, or this service where that is off. */
const upkeepLine = (database: { readonly kind: "embedded" | "server"; readonly autovacuum: boolean } | undefined) =>
  database?.kind !== "server"
    ? []
    : [`  table upkeep:  ${
      database.autovacuum
        ? "the server's autovacuum"
        : `this service, every ${Duration.format(Upkeep.interval)} (the server's autovacuum is off)`
    }`]

/**
 * What this process runs on, one line each: where each setting led, so a wrong environment
 * shows at the first glance, without a password or a key in it.
 */
export const environmentLines = (
  config: Settings,
  url: string,
  database?: { readonly kind: "embedded" | "server"; readonly autovacuum: boolean }
): Array<string> => [
  `${serviceName} ${serviceVersion} is listening on ${url}` +
  (config.host === "0.0.0.0" || config.host === "::" ? ` (every interface, HOST=${config.host})` : ""),
  `  database:      ${databaseLine(config)}`,
  ...upkeepLine(database),
  `  rate limits:   ${
    Option.match(config.redisUrl, {
      onNone: () => "counted in this process's memory (set REDIS_URL to share them between instances)",
      onSome: (redis) => `Redis at ${hostOf(Redacted.value(redis), 6379)}`
    })
  }`,
  `  triage:        ${
    config.triageProvider === "openai"
      ? `OpenAI-compatible API at ${hostOf(config.openAiBaseUrl)}, model ${config.triageModel}`
      : "the built-in local classifier (no network)"
  }`,
  ...(config.errorTracker === "sentry"
    ? [`  error tracker: Sentry at ${hostOf(config.sentryBaseUrl)}, organization ${config.sentryOrg || "(SENTRY_ORG unset)"}`]
    : []),
  ...Option.match(config.smtpUrl, {
    onNone: () => [],
    onSome: (smtp) => [`  mail:          SMTP at ${hostOf(Redacted.value(smtp))}`]
  }),
  ""
]

/** What start-up found and made, for the banner or the JSON log line. */
interface StartupFacts {
  readonly base: string
  readonly database: { readonly kind: "embedded" | "server"; readonly autovacuum: boolean }
  readonly demo: { readonly projectId: string; readonly fullKey: string; readonly widgetKey: string; readonly articles: number } | undefined
  readonly generatedAdminToken: string | undefined
  readonly adminApi: boolean
  readonly demoPage: boolean
}

const bannerLines = (config: Settings, facts: StartupFacts): Array<string> => {
  const { base, demo } = facts
  const lines = environmentLines(config, base, facts.database)
  if (demo !== undefined) {
    lines.push(
      "A demo project was created on this new embedded database. The keys are shown only this once:",
      `  project id:  ${demo.projectId}`,
      `  full key:    ${demo.fullKey}`,
      `  widget key:  ${demo.widgetKey}   (for web pages: files tickets, answers its visitors' own, searches articles)`,
      `  ${demo.articles} help-centre articles are published.`,
      "",
      "Try it:",
      `  curl -s -X POST ${base}/v1/tickets -H 'Authorization: Bearer ${demo.fullKey}' -H 'Content-Type: application/json' -d '{"subject":"Cannot log in","body":"The login page says my password is wrong.","sender_email":"jane@example.com"}'`,
      `  curl -s '${base}/v1/articles/search?q=reset+password' -H 'Authorization: Bearer ${demo.fullKey}'`,
      ""
    )
  }
  if (facts.generatedAdminToken !== undefined) {
    lines.push(`Admin token (kept in the embedded database; set ADMIN_TOKEN to choose your own): ${facts.generatedAdminToken}`)
  }
  if (!facts.adminApi) lines.push("The admin API is off: set ADMIN_TOKEN to enable /v1/admin.")
  if (facts.demoPage) lines.push(`The support widget on a demo page: ${base}/`)
  lines.push(`API reference: ${base}/docs   OpenAPI: ${base}/openapi.json`)
  return lines
}

/**
 * The same facts as the banner, as one log line: with LOG_FORMAT=json every line the process
 * writes must parse, or a log shipper drops or mangles the first screen, keys and all.
 */
const startedLog = (config: Settings, facts: StartupFacts) => {
  const [listening, ...settings] = environmentLines(config, facts.base, facts.database).filter((line) => line !== "")
  return Effect.logInfo(listening).pipe(Effect.annotateLogs({
    url: facts.base,
    ...Object.fromEntries(settings.map((line) => {
      const colon = line.indexOf(":")
      return [line.slice(0, colon).trim().replaceAll(" ", "_"), line.slice(colon + 1).trim()]
    })),
    ...(facts.demo === undefined ? {} : {
      demo_project_id: facts.demo.projectId,
      demo_full_key: facts.demo.fullKey,
      demo_widget_key: facts.demo.widgetKey,
      demo_articles: facts.demo.articles
    }),
    ...(facts.generatedAdminToken === undefined ? {} : { admin_token: facts.generatedAdminToken }),
    admin_api: facts.adminApi ? "on" : "off (set ADMIN_TOKEN to enable /v1/admin)",
    ...(facts.demoPage ? { demo_page: `${facts.base}/` } : {}),
    docs: `${facts.base}/docs`,
    openapi: `${facts.base}/openapi.json`
  }))
}

/**
 * Says what the process runs on and where it listens; on an empty embedded database, first
 * creates a demo project with keys and a help centre, printed once with a line to paste, so a
 * newcomer can call the API a minute after `npm start`. Built once the port is bound, so a port
 * in use stops the start before any key is made and shown.
 */
export const StartupLive = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  const database = yield* DatabaseInfo
  const admin = yield* AdminToken
  const projects = yield* Projects
  const server = yield* HttpServer.HttpServer
  const port = "port" in server.address ? server.address.port : config.port
  const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host
  const embedded = database.kind === "embedded"
  const facts: StartupFacts = {
    base: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    database,
    demo: embedded && (yield* projects.count) === 0 ? yield* Effect.orDie(seedDemo()) : undefined,
    generatedAdminToken: embedded && Option.isNone(config.adminToken) ? Option.getOrUndefined(admin.token) : undefined,
    adminApi: Option.isSome(admin.token),
    demoPage: embedded
  }
  yield* config.logFormat === "json" ? startedLog(config, facts) : Console.log(bannerLines(config, facts).join("\n"))
  const url = loopbackUrl(server.address)
  if (embedded && config.dataDir !== "memory://" && url !== undefined) {
    // the CLI on this DATA_DIR works through the operator API while the service holds the database
    yield* announce(config.dataDir, { url, adminToken: facts.generatedAdminToken })
  }
}))

/** Where a process on this machine reaches the server: by loopback when it listens on every interface. */
const loopbackUrl = (address: NetAddress.SocketAddress) => {
  if (NetAddress.isUnixPathAddress(address)) return undefined
  const host = !NetAddress.isUnspecified(address.address)
    ? address.address
    : NetAddress.isIpv4Address(address.address)
    ? NetAddress.ipv4Loopback
    : NetAddress.ipv6Loopback
  return `http://${NetAddress.formatUrlHost(host)}:${address.port}`
}

/** A failed listen in one line: which address, and what to change. */
const listenRefusal = (error: unknown) => {
  const { address, code, message, port } = error as { address?: string; code?: string; message?: string; port?: number }
  const where = `port ${port} on ${address}`
  switch (code) {
    case "EADDRINUSE":
      return `${where} is in use: stop what listens there or set PORT`
    case "EACCES":
      return `${where} needs privileges this process lacks: set PORT to 1024 or above`
    case "EADDRNOTAVAIL":
      return `HOST ${address} is not an address of this machine: set HOST`
    default:
      return `cannot listen on ${where} (${message}): check HOST and PORT`
  }
}

/**
 * Why the service cannot start, in one line for whoever started it, when it is something they
 * can change: another process on DATA_DIR, a port in use. Undefined for anything else.
 */
export const refusalOf = (cause: Cause.Cause<unknown>): string | undefined => {
  for (const reason of cause.reasons) {
    const error = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    const refusal = refusalOfError(error)
    if (refusal !== undefined) return refusal
  }
  return undefined
}

/**
 * One failure as the line a person can act on, shared by the service and the CLI so that both
 * name a bad setting or an unreachable database in the same words; undefined when it is a defect.
 */
export const refusalOfError = (error: unknown): string | undefined => {
  if (error instanceof DataDirInUse) return error.message
  if (error instanceof HttpServerError.ServeError) return listenRefusal(error.cause)
  if (error instanceof Config.ConfigError) return settingRefusal(error)
  return SqlError.isSqlError(error) ? databaseRefusal(error) : undefined
}

const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * A setting that does not read, by its name: `PORT is not valid: expected …`; the service's own
 * checks (Config.ts) name their setting in their message already.
 */
const settingRefusal = (error: Config.ConfigError) => {
  if (!Schema.isSchemaError(error.cause)) return `a setting could not be read: ${error.cause.message}`
  const issue = formatIssue(error.cause.issue).issues[0]
  const message = issue?.message ?? "a setting is not valid"
  const name = (issue?.path ?? []).map(String).join(".")
  return name === "" ? message : `${name} is not valid: ${message.charAt(0).toLowerCase()}${message.slice(1)}`
}

/** The deepest message of an error chain: the socket's "connect ECONNREFUSED …" under a driver's summary. */
export const rootMessage = (error: unknown): string => {
  let message = String(error)
  // a chain may loop back on itself (an error and its reason sharing one cause)
  for (const seen = new Set<unknown>(); typeof error === "object" && error !== null && !seen.has(error);) {
    seen.add(error)
    if (error instanceof Error && error.message !== "") message = error.message
    error = (error as { cause?: unknown }).cause
  }
  return message
}

/**
 * Why PostgreSQL would not take the service at start, and which setting to look at; undefined for
 * anything else a statement fails with, which is ours to fix and keeps its stack.
 */
const databaseRefusal = (error: SqlError.SqlError) => {
  const why = rootMessage(error)
  if (isDatabaseUnavailable(error)) return `the database does not answer (${why}): check DATABASE_URL and that PostgreSQL runs`
  if (error.reason._tag === "AuthenticationError" || error.reason._tag === "AuthorizationError") {
    return `the database refused the login (${why}): check the user and password in DATABASE_URL`
  }
  // invalid_catalog_name: the database in the URL's path does not exist on that server
  if (sqlStateOf(error.reason.cause) === "3D000") return `${why}: create it, or check DATABASE_URL`
  return undefined
}

/** Reported by `reportingRefusals` already: runMain only sets the exit code. */
export class Refused extends Data.TaggedError("Refused") {
  override readonly [Runtime.errorReported] = false
}

/**
 * A refusal (see `refusalOf`) goes to stderr as its one line and the process exits 1, instead
 * of a stack trace; every other failure is left to runMain.
 */
export const reportingRefusals = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Refused, R> =>
  Effect.catchCause(effect, (cause): Effect.Effect<never, E | Refused> => {
    const refusal = refusalOf(cause)
    return refusal === undefined ? Effect.failCause(cause) : Effect.andThen(Console.error(refusal), Effect.fail(new Refused()))
  })
