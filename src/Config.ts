import { JobKinds, type JobKind } from "./Jobs/Outbox.ts"
import { Config, ConfigError, Context, Duration, Either, Layer, LogLevel, Option, Redacted } from "effect"

/** `1m`, `30s`, `500ms`, `2h` or a plain number of milliseconds. */
export const parseDuration = (text: string): Duration.Duration | undefined => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text)
  if (match === null) return undefined
  const value = Number(match[1])
  switch (match[2]) {
    case "h":
      return Duration.hours(value)
    case "m":
      return Duration.minutes(value)
    case "s":
      return Duration.seconds(value)
    default:
      return Duration.millis(value)
  }
}

const durationList = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.mapOrFail((text) => {
      const parts = text.split(",").map((part) => parseDuration(part))
      return parts.every((part) => part !== undefined)
        ? Either.right(parts as Array<Duration.Duration>)
        : Either.left(ConfigError.InvalidData([name], `${name} must be durations such as 1m,5m,30m`))
    })
  )

const duration = (name: string, fallback: string) =>
  durationList(name, fallback).pipe(
    Config.mapOrFail((parts) =>
      parts.length === 1
        ? Either.right(parts[0]!)
        : Either.left(ConfigError.InvalidData([name], `${name} must be one duration such as 10s`))
    )
  )

/** An optional secret; set but empty counts as unset, as `DATABASE_URL= npm start` means. */
const optionalSecret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== ""))
  )

const oneOf = <const A extends ReadonlyArray<string>>(name: string, values: A, fallback: A[number]) =>
  Config.literal(...values)(name).pipe(Config.withDefault(fallback))

export const settings = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(3000)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  databaseUrl: optionalSecret("DATABASE_URL"),
  databasePoolSize: Config.integer("DATABASE_POOL_SIZE").pipe(Config.withDefault(20)),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./data")),
  adminToken: optionalSecret("ADMIN_TOKEN"),
  rateLimitPerMinute: Config.integer("RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(100)),
  redisUrl: optionalSecret("REDIS_URL"),
  webhookRetrySchedule: durationList("WEBHOOK_RETRY_SCHEDULE", "1m,5m,30m"),
  webhookTimeout: duration("WEBHOOK_TIMEOUT", "10s"),
  triageProvider: oneOf("TRIAGE_PROVIDER", ["local", "openai"], "local"),
  openAiBaseUrl: Config.string("OPENAI_BASE_URL").pipe(Config.withDefault("https://api.openai.com/v1")),
  openAiApiKey: optionalSecret("OPENAI_API_KEY"),
  triageModel: Config.string("TRIAGE_MODEL").pipe(Config.withDefault("gpt-4o-mini")),
  triageTimeout: duration("TRIAGE_TIMEOUT", "15s"),
  errorTracker: oneOf("ERROR_TRACKER", ["none", "sentry"], "none"),
  sentryBaseUrl: Config.string("SENTRY_BASE_URL").pipe(Config.withDefault("https://sentry.io")),
  sentryOrg: Config.string("SENTRY_ORG").pipe(Config.withDefault("")),
  sentryAuthToken: optionalSecret("SENTRY_AUTH_TOKEN"),
  smtpUrl: optionalSecret("SMTP_URL"),
  mailFrom: Config.string("MAIL_FROM").pipe(Config.withDefault("Support <support@localhost>")),
  webhookAllowPrivateTargets: Config.option(Config.boolean("WEBHOOK_ALLOW_PRIVATE_TARGETS")),
  duplicateThreshold: Config.number("DUPLICATE_THRESHOLD").pipe(Config.withDefault(0.6)),
  jobConcurrency: Config.string("JOB_CONCURRENCY").pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) => {
      const entries = text.split(",").map((part) => part.trim()).filter((part) => part !== "").map((part) => {
        const match = /^([a-z_]+)\s*=\s*(\d+)$/.exec(part)
        return match !== null && (JobKinds as ReadonlyArray<string>).includes(match[1]!) && Number(match[2]) > 0
          ? [match[1]!, Number(match[2])] as const
          : undefined
      })
      return entries.every((entry) => entry !== undefined)
        ? Either.right(Object.fromEntries(entries) as Partial<Record<JobKind, number>>)
        : Either.left(ConfigError.InvalidData(
          ["JOB_CONCURRENCY"],
          `JOB_CONCURRENCY must be kind=count pairs such as webhook_delivery=16,triage=4; kinds: ${JobKinds.join(", ")}`
        ))
    })
  ),
  jobLease: duration("JOB_LEASE", "30s"),
  jobPollInterval: duration("JOB_POLL_INTERVAL", "5s"),
  jobShutdownGrace: duration("JOB_SHUTDOWN_GRACE", "10s"),
  trustProxy: Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false)),
  logLevel: Config.string("LOG_LEVEL").pipe(
    Config.withDefault("info"),
    Config.mapOrFail((text) => {
      const name = text.trim().toLowerCase() === "warning" ? "warn" : text.trim().toLowerCase()
      const level = LogLevel.allLevels.find((candidate) => candidate.label.toLowerCase() === name)
      return level === undefined
        ? Either.left(ConfigError.InvalidData(["LOG_LEVEL"], "LOG_LEVEL must be one of trace, debug, info, warning, error, fatal, off"))
        : Either.right(level)
    })
  )
})

export interface Settings {
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly databasePoolSize: number
  readonly dataDir: string
  readonly adminToken: Option.Option<Redacted.Redacted>
  readonly rateLimitPerMinute: number
  readonly redisUrl: Option.Option<Redacted.Redacted>
  readonly webhookRetrySchedule: ReadonlyArray<Duration.Duration>
  readonly webhookTimeout: Duration.Duration
  readonly triageProvider: "local" | "openai"
  readonly openAiBaseUrl: string
  readonly openAiApiKey: Option.Option<Redacted.Redacted>
  readonly triageModel: string
  readonly triageTimeout: Duration.Duration
  readonly errorTracker: "none" | "sentry"
  readonly sentryBaseUrl: string
  readonly sentryOrg: string
  readonly sentryAuthToken: Option.Option<Redacted.Redacted>
  readonly smtpUrl: Option.Option<Redacted.Redacted>
  readonly mailFrom: string
  /** unset: allowed on the embedded database, refused on a PostgreSQL server */
  readonly webhookAllowPrivateTargets: Option.Option<boolean>
  readonly duplicateThreshold: number
  /** `webhook_delivery=16,triage=4`: jobs of a kind one instance runs at once, over the built-in defaults */
  readonly jobConcurrency: Partial<Record<JobKind, number>>
  /** how long a claimed job stays an instance's without a heartbeat; a dead instance's jobs return after it */
  readonly jobLease: Duration.Duration
  /** the fallback when no NOTIFY arrives (a dropped LISTEN connection) */
  readonly jobPollInterval: Duration.Duration
  /** how long a stopping instance lets the jobs in hand finish before it hands them back */
  readonly jobShutdownGrace: Duration.Duration
  readonly trustProxy: boolean
  readonly logLevel: LogLevel.LogLevel
}

/** Every setting, read once from the environment when the service starts. */
export class AppConfig extends Context.Tag("app/Config")<AppConfig, Settings>() {
  static readonly layer = Layer.effect(AppConfig, settings)
}
