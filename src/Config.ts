import { Config, Context, Duration, Effect, Layer, Option, Redacted, Schema, SchemaIssue } from "effect"
import type { LogLevel } from "effect/LogLevel"
import { JobKinds, type JobKind } from "./Domain/Jobs.ts"

/** `1m`, `30s`, `500ms`, `2h`, `7d` or a plain number of milliseconds. */
export const parseDuration = (text: string): Duration.Duration | undefined => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text)
  if (match === null) return undefined
  const value = Number(match[1])
  switch (match[2]) {
    case "d":
      return Duration.days(value)
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

const invalid = (message: string) =>
  Effect.fail(new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message }))))

/** A text setting with a default, turned into its value by `parse`; `undefined` means invalid. */
const parsed = <A>(name: string, fallback: string, parse: (text: string) => A | undefined, rule: string) =>
  Config.String(name).pipe(
    Config.withDefault(fallback),
    Config.mapEffect((text) => {
      const value = parse(text)
      return value === undefined ? invalid(`${name} ${rule}`) : Effect.succeed(value)
    })
  )

const durationList = (name: string, fallback: string) =>
  parsed(name, fallback, (text) => {
    const parts = text.split(",").map(parseDuration)
    return parts.every((part) => part !== undefined) ? parts as ReadonlyArray<Duration.Duration> : undefined
  }, "must be durations such as 1m,5m,30m")

const duration = (name: string, fallback: string) =>
  parsed(name, fallback, parseDuration, "must be one duration such as 10s")

const mebibyte = 1024 * 1024

/** `10MiB`, `500KiB`, `25MB` or a plain number of bytes. */
export const parseByteSize = (text: string): number | undefined => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|k|mb|mib|m|gb|gib|g)?\s*$/i.exec(text)
  if (match === null) return undefined
  const unit = (match[2] ?? "b").toLowerCase()
  const scale = unit.startsWith("g") ? 1024 * mebibyte : unit.startsWith("m") ? mebibyte : unit.startsWith("k") ? 1024 : 1
  return Math.floor(Number(match[1]) * scale)
}

const byteSize = (name: string, fallback: string) =>
  parsed(name, fallback, (text) => {
    const bytes = parseByteSize(text)
    return bytes !== undefined && bytes > 0 ? bytes : undefined
  }, "must be a size such as 10MiB, 500KiB or a number of bytes")

/** A file path setting: unset or empty is `null`. */
const optionalPath = (name: string) =>
  Config.option(Config.String(name)).pipe(Config.map((path) => Option.getOrNull(Option.filter(path, (p) => p.trim() !== ""))))

/** An optional secret; set but empty counts as unset, as `DATABASE_URL= npm start` means. */
const optionalSecret = (name: string) =>
  Config.option(Config.Redacted(name)).pipe(
    Config.map(Option.filter((value) => Redacted.value(value).trim() !== ""))
  )

const oneOf = <const A extends ReadonlyArray<string>>(name: string, values: A, fallback: A[number]) =>
  Config.Literals(values, name).pipe(Config.withDefault(fallback))

/** An OTLP/HTTP address: unset (empty) is `null`, anything but an http(s) URL is refused. */
const otlpBase = (text: string): string | null | undefined => {
  const trimmed = text.trim()
  if (trimmed === "") return null
  try {
    const url = new URL(trimmed)
    return url.protocol === "http:" || url.protocol === "https:" ? trimmed : undefined
  } catch {
    return undefined
  }
}

const logLevels: Record<string, LogLevel> = {
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  warning: "Warn",
  error: "Error",
  fatal: "Fatal",
  off: "None",
  none: "None"
}

const jobConcurrency = (text: string): Partial<Record<JobKind, number>> | undefined => {
  const entries = text.split(",").map((part) => part.trim()).filter((part) => part !== "").map((part) => {
    const match = /^([a-z_]+)\s*=\s*(\d+)$/.exec(part)
    return match !== null && (JobKinds as ReadonlyArray<string>).includes(match[1]!) && Number(match[2]) > 0
      ? [match[1]!, Number(match[2])] as const
      : undefined
  })
  return entries.every((entry) => entry !== undefined) ? Object.fromEntries(entries) : undefined
}

export const settings = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(3000)),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  databaseUrl: optionalSecret("DATABASE_URL"),
  databasePoolSize: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(20)),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./data")),
  adminToken: optionalSecret("ADMIN_TOKEN"),
  rateLimitPerMinute: Config.Int("RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(100)),
  widgetVisitorRateLimitPerMinute: Config.Int("WIDGET_VISITOR_RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(30)),
  redisUrl: optionalSecret("REDIS_URL"),
  webhookRetrySchedule: durationList("WEBHOOK_RETRY_SCHEDULE", "1m,5m,30m"),
  webhookTimeout: duration("WEBHOOK_TIMEOUT", "10s"),
  webhookExtendedRetrySchedule: durationList("WEBHOOK_EXTENDED_RETRY_SCHEDULE", "1m,5m,30m,2h,5h,10h,14h,20h,20h"),
  webhookRetryAfterMax: duration("WEBHOOK_RETRY_AFTER_MAX", "1h"),
  webhookDisableAfter: duration("WEBHOOK_DISABLE_AFTER", "5d"),
  webhookSecretOverlap: duration("WEBHOOK_SECRET_OVERLAP", "24h"),
  eventRetention: duration("EVENT_RETENTION", "7d"),
  triageProvider: oneOf("TRIAGE_PROVIDER", ["local", "openai"], "local"),
  openAiBaseUrl: Config.String("OPENAI_BASE_URL").pipe(Config.withDefault("https://api.openai.com/v1")),
  openAiApiKey: optionalSecret("OPENAI_API_KEY"),
  triageModel: Config.String("TRIAGE_MODEL").pipe(Config.withDefault("gpt-4o-mini")),
  triageTimeout: duration("TRIAGE_TIMEOUT", "15s"),
  errorTracker: oneOf("ERROR_TRACKER", ["none", "sentry"], "none"),
  sentryBaseUrl: Config.String("SENTRY_BASE_URL").pipe(Config.withDefault("https://sentry.io")),
  sentryOrg: Config.String("SENTRY_ORG").pipe(Config.withDefault("")),
  sentryAuthToken: optionalSecret("SENTRY_AUTH_TOKEN"),
  smtpUrl: optionalSecret("SMTP_URL"),
  mailFrom: Config.String("MAIL_FROM").pipe(Config.withDefault("Support <support@localhost>")),
  smtpListenPort: Config.option(Config.Port("SMTP_LISTEN_PORT")),
  smtpListenHost: Config.String("SMTP_LISTEN_HOST").pipe(Config.withDefault("0.0.0.0")),
  smtpTlsCert: optionalPath("SMTP_TLS_CERT"),
  smtpTlsKey: optionalPath("SMTP_TLS_KEY"),
  mailMaxBytes: byteSize("MAIL_MAX_BYTES", "36MiB"),
  mailSenderLimitPerHour: Config.Int("MAIL_SENDER_LIMIT_PER_HOUR").pipe(Config.withDefault(20)),
  attachmentMaxBytes: byteSize("ATTACHMENT_MAX_BYTES", "10MiB"),
  attachmentsMaxBytesPerMessage: byteSize("ATTACHMENTS_MAX_BYTES_PER_MESSAGE", "25MiB"),
  attachmentsMaxBytesPerTicket: byteSize("ATTACHMENTS_MAX_BYTES_PER_TICKET", "100MiB"),
  attachmentStorage: oneOf("ATTACHMENT_STORAGE", ["database", "s3"], "database"),
  s3Endpoint: Config.String("S3_ENDPOINT").pipe(Config.withDefault("")),
  s3Bucket: Config.String("S3_BUCKET").pipe(Config.withDefault("")),
  s3Region: Config.String("S3_REGION").pipe(Config.withDefault("us-east-1")),
  s3AccessKeyId: Config.String("S3_ACCESS_KEY_ID").pipe(Config.withDefault("")),
  s3SecretAccessKey: optionalSecret("S3_SECRET_ACCESS_KEY"),
  webhookAllowPrivateTargets: Config.option(Config.Boolean("WEBHOOK_ALLOW_PRIVATE_TARGETS")),
  duplicateThreshold: Config.Number("DUPLICATE_THRESHOLD").pipe(Config.withDefault(0.6)),
  jobConcurrency: parsed(
    "JOB_CONCURRENCY",
    "",
    jobConcurrency,
    `must be kind=count pairs such as webhook_delivery=16,triage=4; kinds: ${JobKinds.join(", ")}`
  ),
  jobLease: duration("JOB_LEASE", "30s"),
  jobPollInterval: duration("JOB_POLL_INTERVAL", "5s"),
  jobShutdownGrace: duration("JOB_SHUTDOWN_GRACE", "10s"),
  shutdownDrain: duration("SHUTDOWN_DRAIN", "0s"),
  requestTimeout: duration("REQUEST_TIMEOUT", "60s"),
  trustProxy: Config.Boolean("TRUST_PROXY").pipe(Config.withDefault(false)),
  logLevel: parsed(
    "LOG_LEVEL",
    "info",
    (text) => logLevels[text.trim().toLowerCase()],
    "must be one of trace, debug, info, warning, error, fatal, off"
  ),
  requestLog: Config.Boolean("REQUEST_LOG").pipe(Config.withDefault(true)),
  otlpEndpoint: parsed("OTEL_EXPORTER_OTLP_ENDPOINT", "", otlpBase, "must be an http or https URL, such as http://localhost:4318"),
  otlpTracesEndpoint: parsed(
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "",
    otlpBase,
    "must be an http or https URL, such as http://localhost:4318/v1/traces"
  ),
  traceSampleRatio: parsed("OTEL_TRACES_SAMPLER_ARG", "1", (text) => {
    const ratio = Number(text.trim())
    return text.trim() !== "" && ratio >= 0 && ratio <= 1 ? ratio : undefined
  }, "must be a number from 0 to 1, the share of traces kept"),
  traceServiceName: Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("support-ticketing")),
  traceExportDelay: duration("OTEL_BSP_SCHEDULE_DELAY", "5000"),
  logFormat: oneOf("LOG_FORMAT", ["text", "json"], "text"),
  // otlpBase's rule is a public URL's too: http(s), or empty for the default
  publicUrl: parsed("PUBLIC_URL", "", otlpBase, "must be an http or https URL, such as https://support.example.com")
})

export interface Settings {
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly databasePoolSize: number
  readonly dataDir: string
  readonly adminToken: Option.Option<Redacted.Redacted>
  /** per key, unless the key has its own */
  readonly rateLimitPerMinute: number
  /** per visitor of a widget key (the verified visitor, else the client address), besides the key's own */
  readonly widgetVisitorRateLimitPerMinute: number
  readonly redisUrl: Option.Option<Redacted.Redacted>
  readonly webhookRetrySchedule: ReadonlyArray<Duration.Duration>
  readonly webhookTimeout: Duration.Duration
  /** the schedule an endpoint may choose instead: about three days, as Standard Webhooks' */
  readonly webhookExtendedRetrySchedule: ReadonlyArray<Duration.Duration>
  /** the longest wait a receiver's Retry-After is granted */
  readonly webhookRetryAfterMax: Duration.Duration
  /** an endpoint failing without one success for this long is disabled */
  readonly webhookDisableAfter: Duration.Duration
  /** how long a rotated-out secret still signs beside the new one, unless the rotation says */
  readonly webhookSecretOverlap: Duration.Duration
  /** how long the event log keeps an event for streams to resume from */
  readonly eventRetention: Duration.Duration
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
  /** the SMTP listener's port for inbound mail; unset, no listener */
  readonly smtpListenPort: Option.Option<number>
  readonly smtpListenHost: string
  /** PEM files: with both, the listener offers STARTTLS */
  readonly smtpTlsCert: string | null
  readonly smtpTlsKey: string | null
  /** the largest inbound mail taken, over SMTP or HTTP, encoded as it arrives */
  readonly mailMaxBytes: number
  /** new tickets one sender may file by mail in a project in an hour; answers to a ticket do not count */
  readonly mailSenderLimitPerHour: number
  /** the largest file taken, from mail, upload or widget */
  readonly attachmentMaxBytes: number
  readonly attachmentsMaxBytesPerMessage: number
  readonly attachmentsMaxBytesPerTicket: number
  /** database: in PostgreSQL, with backups; s3: in an S3-compatible bucket (S3_*), path-style URLs */
  readonly attachmentStorage: "database" | "s3"
  readonly s3Endpoint: string
  readonly s3Bucket: string
  readonly s3Region: string
  readonly s3AccessKeyId: string
  readonly s3SecretAccessKey: Option.Option<Redacted.Redacted>
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
  /** how long the instance answers as not ready before it stops accepting, for balancers to notice */
  readonly shutdownDrain: Duration.Duration
  /** how long a request has to arrive whole, headers and body; past it, 408 */
  readonly requestTimeout: Duration.Duration
  readonly trustProxy: boolean
  readonly logLevel: LogLevel
  /** one Info line per request; off, and below LOG_LEVEL, it costs a request nothing */
  readonly requestLog: boolean
  /** text: Effect's default lines; json: one JSON object per line, for every log line */
  readonly logFormat: "text" | "json"
  /** where people reach this service, for links in mail (a rating's); null: http://localhost:<PORT> */
  readonly publicUrl: string | null
  /** OTLP/HTTP collector; traces go to `<it>/v1/traces`. Null: no traces, and no spans built */
  readonly otlpEndpoint: string | null
  /** the traces URL itself, when it is not the collector's default path */
  readonly otlpTracesEndpoint: string | null
  /** the share of traces begun here that are kept; a trace begun by a caller keeps its caller's decision */
  readonly traceSampleRatio: number
  readonly traceServiceName: string
  /** how often finished spans are sent */
  readonly traceExportDelay: Duration.Duration
}

/** Every setting, read once from the environment when the service starts. */
export class AppConfig extends Context.Service<AppConfig, Settings>()("app/Config") {
  static readonly layer = Layer.effect(AppConfig, settings)
}
