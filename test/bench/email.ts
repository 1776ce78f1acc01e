/**
 * Inbound mail over SMTP, on PostgreSQL and on PGlite. The service starts with its SMTP listener
 * (SMTP_LISTEN_PORT, on loopback); a project gets an inbound address through the operator API;
 * then `senders` pooled nodemailer transports (one SMTP connection each, one mail at a time on
 * it, like the queue runners of a relaying MTA) deliver the mails. Each mail is plain text of
 * 2-6 KB (help-centre sentences, so words vary), a subject and Message-ID of its own, and every
 * tenth carries a 200 KB binary attachment. Senders come from a pool of addresses taking turns,
 * each sending at most `perAddress` (10) mails, under MAIL_SENDER_LIMIT_PER_HOUR at its default
 * of 20, which the bench keeps (and sets, so an inherited setting cannot change the run): the
 * per-sender check runs as it would in production and refuses nothing.
 *
 * The mails are composed before the clock starts (nodemailer's MailComposer) and sent as raw
 * bytes, so what is timed is the SMTP transaction: from `sendMail` (MAIL FROM, RCPT TO, DATA, the
 * bytes) to the 250 the listener gives once the mail is committed. Figures: accepted mails a
 * second over the wall clock from the first send to the last 250, and p50/p99 of a transaction.
 * A short warm-up from other addresses goes first and is not in the figures. Beside them: the CPU
 * a mail costs the service and (PostgreSQL) its database backends, and what the service's
 * database connections were doing, sampled from pg_stat_activity (running, waiting for a lock,
 * or idle in a transaction, waiting for the service's next statement).
 *
 * Then the database is asked, with SQL (PGlite: its data directory opened here once the service
 * has stopped): tickets with source 'email' against the mails accepted, every accepted Message-ID
 * in `mail_messages` (direction 'in') exactly once and no other, each on a ticket of its own, and
 * the attachments.
 *
 * `projects` above 1 (BENCH_EMAIL_PROJECTS) spreads the mails over that many projects, a sender
 * writing to one: a diagnosis, to tell what one project's mails wait on together from the rest.
 *
 * It is a measurement: a missed target is reported, not failed; refusals, transport errors and a
 * failed check are reported as errors.
 */
import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { createTransport } from "nodemailer"
import MailComposer from "nodemailer/lib/mail-composer/index.js"
import Pg from "pg"
import { freePort } from "../support/Process.ts"
import { generateArticles, prng } from "./corpus.ts"
import { createScratchDatabase } from "./seed.ts"
import { cpuSeconds, requestJson, sampleRss, type Service, startService, waitUntilIdle } from "./service.ts"

/** The target, for PostgreSQL: mails accepted (committed and answered 250) a second. */
export const emailTargets = { minPerSecond: 100 } as const

/** The inbound address of project `k` of the run: the first is support@acme.test. */
const inboundAddress = (k: number) => (k === 0 ? "support@acme.test" : `support@acme${k + 1}.test`)
/** At most this many mails from one address, under MAIL_SENDER_LIMIT_PER_HOUR's default of 20. */
const perAddress = 10
const attachmentBytes = 200 * 1024
/** One mail in this many carries the attachment. */
const attachmentEvery = 10

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const round = (ms: number) => Math.round(ms * 10) / 10

/** CPU pressure so far: microseconds in which some runnable task waited for a core (PSI), if the kernel tells. */
const cpuStalledMicros = () => {
  try {
    return Number(/^some .*total=(\d+)/m.exec(readFileSync("/proc/pressure/cpu", "utf8"))?.[1] ?? NaN)
  } catch {
    return NaN
  }
}

interface Outgoing {
  /** the Message-ID as the service keeps it: without angle brackets */
  readonly messageId: string
  readonly from: string
  readonly to: string
  readonly raw: Buffer
  readonly attachment: boolean
}

const firstNames = ["Ana", "Ben", "Chiara", "Dmitri", "Eve", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemi", "Lena"]
const lastNames = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva", "Novak", "Haddad", "Schmidt", "Kowalski", "Reyes"]
const companies = ["Northwind", "Globex", "Initech", "Umbrella", "Stark Logistics", "Wayne Foods", "Acme Retail", "Hooli"]
const openers = [
  "Hello support team,",
  "Hi there,",
  "Good morning,",
  "Dear support,",
  "Hello,"
]
const asks = [
  "Could you have a look at this as soon as possible?",
  "Please let me know what you need from our side.",
  "We would appreciate an answer before the end of the week.",
  "Is this a known problem, and is there a workaround?",
  "I have attached what I could find, in case it helps."
]

/**
 * `count` mails, the same text on every run (a seeded PRNG over the help-centre corpus), with
 * Message-IDs unique to `runId`. Senders are `prefix`-N addresses, `perAddress` mails each.
 */
const composeMails = async (count: number, runId: string, prefix: string, projects: number): Promise<Array<Outgoing>> => {
  const random = prng(count * 7919 + prefix.length)
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
  const articles = generateArticles(400, 20250101)
  const mails: Array<Outgoing> = []
  // customers take turns, so one address's mails are spread over the run rather than back to back
  const addresses = Math.ceil(count / perAddress)
  for (let i = 0; i < count; i++) {
    const senderNumber = i % addresses
    const first = firstNames[senderNumber % firstNames.length]!
    const last = lastNames[Math.floor(senderNumber / firstNames.length) % lastNames.length]!
    const company = companies[senderNumber % companies.length]!
    const address = `${prefix}${senderNumber}@${company.toLowerCase().replace(/[^a-z]+/g, "-")}.example`
    // 2-6 KB of text: paragraphs of help-centre articles, so the words and their order vary
    const target = 2048 + Math.floor(random() * 4096)
    const paragraphs: Array<string> = []
    let size = 0
    while (size < target) {
      const paragraph = pick(articles).body.split("\n\n")
      const text = paragraph[Math.floor(random() * paragraph.length)]!
      paragraphs.push(text)
      size += text.length + 2
    }
    const article = pick(articles)
    const reference = `${runId.slice(0, 6).toUpperCase()}-${String(i).padStart(5, "0")}`
    const attachment = i % attachmentEvery === attachmentEvery - 1
    // a sender writes to one project: its per-sender count stays within that project's limit
    const to = inboundAddress(senderNumber % projects)
    const text = [
      pick(openers),
      "",
      ...paragraphs.flatMap((p) => [p, ""]),
      `Our reference is ${reference}.`,
      pick(asks),
      "",
      "Kind regards,",
      `${first} ${last}`,
      company
    ].join("\n")
    const messageId = `${runId}.${prefix}${i}@mail.${company.toLowerCase().replace(/[^a-z]+/g, "-")}.example`
    const raw = await new MailComposer({
      from: `"${first} ${last}" <${address}>`,
      to,
      subject: `${article.title} (${reference})`,
      text,
      messageId: `<${messageId}>`,
      date: new Date(),
      ...(attachment
        ? {
          attachments: [{
            filename: `diagnostics-${reference}.bin`,
            contentType: "application/octet-stream",
            content: randomBytes(attachmentBytes)
          }]
        }
        : {})
    }).compile().build()
    mails.push({ messageId, from: address, to, raw, attachment })
  }
  return mails
}

interface Sent {
  /** Message-IDs answered 250 */
  readonly accepted: Array<string>
  /** performance.now() spans of each accepted transaction, ms */
  readonly durations: Array<number>
  /** SMTP refusals (4xx/5xx replies) and transport errors, by their first 160 characters */
  readonly refused: Record<string, number>
  readonly errors: Record<string, number>
  firstSend: number
  lastAccepted: number
}

/**
 * What the service's database connections are doing, sampled every `intervalMs` from
 * pg_stat_activity on a connection of its own: by state, wait event and (the first words of) the
 * statement, the last one run for a connection idle in a transaction. The share of samples says
 * where a mail's time goes on the database side: running, waiting for a lock another
 * transaction holds, or waiting for the service to send the next statement of its transaction.
 */
const sampleActivity = async (databaseUrl: string, databaseName: string, intervalMs = 50) => {
  const client = new Pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const counts = new Map<string, number>()
  let samples = 0
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await client.query(
        `SELECT state, coalesce(wait_event_type || ':' || wait_event, '') AS wait,
           left(query, 400) AS query
         FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        [databaseName]
      )
      samples++
      for (const row of rows) {
        if (row.state === "idle") continue
        const key = `${row.state}${row.wait === "" ? "" : ` (${row.wait})`}: ${String(row.query).replace(/\s+/g, " ").trim().slice(0, 90)}`
        counts.set(key, (counts.get(key) ?? 0) + 1)
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
    }
  })()
  return {
    stop: async () => {
      stopped = true
      await loop
      await client.end()
      // the average number of connections in each state over the run: 1.0 = one connection all the time
      return [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8)
        .map(([key, n]) => ({ what: key, connections: Math.round((n / samples) * 100) / 100 }))
    }
  }
}

/** CPU seconds used so far by each backend serving `databaseName` (they are processes of this machine). */
const backendCpu = async (databaseUrl: string, databaseName: string) => {
  const client = new Pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
      [databaseName]
    )
    return new Map(rows.map((row) => [Number(row.pid), cpuSeconds(Number(row.pid))] as const).filter(([, cpu]) => !Number.isNaN(cpu)))
  } finally {
    await client.end()
  }
}

/** The CPU the backends used between two `backendCpu` readings (a backend that came meanwhile counts whole). */
const backendCpuBetween = (before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>) =>
  [...after].reduce((sum, [pid, cpu]) => sum + cpu - (before.get(pid) ?? 0), 0)

/** Sends `mails` over `senders` pooled transports, one connection each, one mail at a time on it. */
const sendAll = async (port: number, senders: number, mails: ReadonlyArray<Outgoing>): Promise<Sent> => {
  const transports = Array.from({ length: senders }, () =>
    createTransport({
      pool: true,
      maxConnections: 1,
      maxMessages: Infinity,
      host: "127.0.0.1",
      port,
      secure: false,
      ignoreTLS: true,
      name: "relay.bench.example"
    }))
  const sent: Sent = { accepted: [], durations: [], refused: {}, errors: {}, firstSend: NaN, lastAccepted: NaN }
  let next = 0
  const count = (into: Record<string, number>, key: string) => (into[key.slice(0, 160)] = (into[key.slice(0, 160)] ?? 0) + 1)
  const worker = async (transport: ReturnType<typeof createTransport>) => {
    while (next < mails.length) {
      const mail = mails[next++]!
      const started = performance.now()
      if (Number.isNaN(sent.firstSend)) sent.firstSend = started
      try {
        await transport.sendMail({ envelope: { from: mail.from, to: [mail.to] }, raw: mail.raw })
        const at = performance.now()
        sent.durations.push(at - started)
        sent.accepted.push(mail.messageId)
        sent.lastAccepted = Number.isNaN(sent.lastAccepted) ? at : Math.max(sent.lastAccepted, at)
      } catch (error) {
        const { responseCode, message } = error as { responseCode?: number; message?: string }
        if (responseCode !== undefined) count(sent.refused, `${responseCode} ${message ?? ""}`)
        else count(sent.errors, String(message ?? error))
      }
    }
  }
  try {
    await Promise.all(transports.map(worker))
  } finally {
    for (const transport of transports) transport.close()
  }
  return sent
}

export interface EmailCheck {
  readonly emailTickets: number
  /** rows of mail_messages with direction 'in' */
  readonly inboundRows: number
  /** Message-IDs in more than one row (the primary key is per project, so this checks across projects too) */
  readonly duplicated: number
  /** accepted Message-IDs without a row */
  readonly missing: number
  /** rows whose Message-ID was not accepted (a refused or failed mail that was filed anyway) */
  readonly unexpected: number
  /** tickets holding more than one of the inbound mails */
  readonly sharedTickets: number
  readonly attachments: number
  readonly attachmentsExpected: number
  readonly ok: boolean
}

type Query = (text: string, params?: Array<unknown>) => Promise<{ rows: Array<Record<string, unknown>> }>

const check = async (
  query: Query,
  projectIds: ReadonlyArray<string>,
  accepted: ReadonlyArray<string>,
  attachmentsExpected: number
): Promise<EmailCheck> => {
  // the bench's projects only: the demo project the service seeds at its first start has tickets too
  const one = async (text: string) => Number((await query(text, [projectIds])).rows[0]!.n)
  const emailTickets = await one("SELECT count(*) AS n FROM tickets WHERE project_id = ANY($1::uuid[]) AND source = 'email'")
  const rows = (await query(
    "SELECT rfc_message_id, ticket_id FROM mail_messages WHERE direction = 'in' AND project_id = ANY($1::uuid[])",
    [projectIds]
  )).rows
  const duplicated = Number((await query(
    "SELECT count(*) AS n FROM (SELECT rfc_message_id FROM mail_messages WHERE direction = 'in' GROUP BY 1 HAVING count(*) > 1) d"
  )).rows[0]!.n)
  const sharedTickets = Number((await query(
    "SELECT count(*) AS n FROM (SELECT ticket_id FROM mail_messages WHERE direction = 'in' GROUP BY 1 HAVING count(*) > 1) d"
  )).rows[0]!.n)
  const attachments = await one("SELECT count(*) AS n FROM attachments WHERE project_id = ANY($1::uuid[]) AND ticket_id IS NOT NULL")
  const stored = new Set(rows.map((row) => String(row.rfc_message_id)))
  const wanted = new Set(accepted)
  const missing = [...wanted].filter((id) => !stored.has(id)).length
  const unexpected = [...stored].filter((id) => !wanted.has(id)).length
  return {
    emailTickets,
    inboundRows: rows.length,
    duplicated,
    missing,
    unexpected,
    sharedTickets,
    attachments,
    attachmentsExpected,
    ok: emailTickets === accepted.length && rows.length === accepted.length && duplicated === 0 && missing === 0 &&
      unexpected === 0 && sharedTickets === 0 && attachments === attachmentsExpected
  }
}

export interface EmailResult {
  readonly database: "pglite" | "postgres"
  readonly projects: number
  readonly messages: number
  readonly warmupMessages: number
  readonly senders: number
  readonly senderAddresses: number
  readonly perAddress: number
  readonly withAttachment: number
  readonly averageKiB: number
  readonly composeSeconds: number
  readonly accepted: number
  /** accepted, the warm-up's included: what the check counts against */
  readonly acceptedWithWarmup: number
  readonly refused: Record<string, number>
  readonly errors: Record<string, number>
  readonly wallSeconds: number
  readonly perSecond: number
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number }
  /** p50 of the transactions of mails with and without the attachment */
  readonly p50ByKindMs: { readonly plain: number; readonly attachment: number }
  readonly peakRssMiB: number
  readonly serverCpuPercent: number
  /** CPU the service used per accepted mail over the run, in ms (the jobs each new ticket queues included, as far as they ran) */
  readonly serverCpuMsPerMail: number
  /** PostgreSQL: CPU its backends for the service used per accepted mail, in ms */
  readonly databaseCpuMsPerMail: number | null
  readonly loadGeneratorCpuPercent: number
  readonly loadAverage: number
  /** the share of the run in which some task waited for a core (/proc/pressure/cpu): others' work too */
  readonly cpuPressurePercent: number
  readonly check: EmailCheck
  /** PostgreSQL: the average number of the service's connections in each state over the run (pg_stat_activity) */
  readonly activity: ReadonlyArray<{ readonly what: string; readonly connections: number }>
  readonly serverLog: string
  readonly missed: ReadonlyArray<string>
}

/**
 * The whole scenario on one database: a fresh service with its SMTP listener, a project with the
 * inbound address, a warm-up, the measured run, and the checks.
 */
export const benchEmail = async (options: {
  readonly root: string
  readonly kind: "pglite" | "postgres"
  /** the PostgreSQL server (a scratch database is made on it); unused for PGlite */
  readonly serverUrl?: string | undefined
  readonly serviceEnv: Readonly<Record<string, string>>
  readonly adminToken: string
  readonly messages: number
  readonly senders: number
  readonly maxRssMiB: number
  /**
   * Projects the mails are spread over (1, normally: every mail to support@acme.test). More tells
   * apart what one project's mails wait on together (its ticket counter) from the rest.
   */
  readonly projects?: number | undefined
  /** extra environment for the service only (e.g. NODE_OPTIONS=--cpu-prof while looking for the time) */
  readonly extraEnv?: Readonly<Record<string, string>> | undefined
}): Promise<EmailResult> => {
  const { kind, messages, senders } = options
  const projectCount = Math.max(1, options.projects ?? 1)
  const runId = randomBytes(6).toString("hex")
  const warmupMessages = Math.min(messages, senders * 10)
  const composeStarted = performance.now()
  const warmup = await composeMails(warmupMessages, runId, "warmup-", projectCount)
  const mails = await composeMails(messages, runId, "customer", projectCount)
  const composeSeconds = Math.round((performance.now() - composeStarted) / 100) / 10
  const smtpPort = await freePort()
  const env = {
    ...options.serviceEnv,
    ...options.extraEnv,
    SMTP_LISTEN_PORT: String(smtpPort),
    SMTP_LISTEN_HOST: "127.0.0.1",
    // the default, stated: every address sends at most `perAddress` mails, well under it
    MAIL_SENDER_LIMIT_PER_HOUR: "20"
  }

  const database = kind === "postgres" ? await createScratchDatabase(options.serverUrl!) : undefined
  const dataDir = kind === "pglite" ? await mkdtemp(join(tmpdir(), "bench-mail-")) : undefined
  if (database !== undefined) console.log(`  scratch database ${database.name}`)
  let service: Service | undefined
  try {
    service = await startService(options.root, database !== undefined ? { ...env, DATABASE_URL: database.url } : { ...env, DATA_DIR: dataDir! })
    const projectIds: Array<string> = []
    for (let k = 0; k < projectCount; k++) {
      const project = await requestJson<{ project_id: string }>(service.baseUrl, "POST", "/v1/admin/projects", options.adminToken, 201, {
        name: `bench mail ${k + 1}`
      })
      await requestJson(service.baseUrl, "PUT", `/v1/admin/projects/${project.project_id}/mail`, options.adminToken, 200, {
        inbound_address: inboundAddress(k)
      })
      projectIds.push(project.project_id)
    }
    console.log(`  ${messages} mails composed in ${composeSeconds} s (and ${warmupMessages} for the warm-up); sending over ${senders} connections`)
    const warm = await sendAll(smtpPort, senders, warmup)
    await waitUntilIdle(service.pid)

    const logMark = service.outputMark()
    const rss = sampleRss(service.pid)
    const cpuBefore = cpuSeconds(service.pid)
    const ownCpuBefore = process.cpuUsage()
    const stalledBefore = cpuStalledMicros()
    // both watch from the server's own database, so their connections are not among those they count
    const backendsBefore = database === undefined ? undefined : await backendCpu(options.serverUrl!, database.name)
    const activity = database === undefined ? undefined : await sampleActivity(options.serverUrl!, database.name)
    let sent: Sent
    let activityRows: EmailResult["activity"] = []
    try {
      sent = await sendAll(smtpPort, senders, mails)
    } finally {
      activityRows = (await activity?.stop()) ?? []
    }
    const wallMs = sent.lastAccepted - sent.firstSend
    const wallSeconds = wallMs / 1000
    const serverCpu = cpuSeconds(service.pid) - cpuBefore
    const serverCpuPercent = Math.round((serverCpu / wallSeconds) * 100)
    const databaseCpu = backendsBefore === undefined
      ? undefined
      : backendCpuBetween(backendsBefore, await backendCpu(options.serverUrl!, database!.name))
    const ownCpu = process.cpuUsage(ownCpuBefore)
    const loadGeneratorCpuPercent = Math.round(((ownCpu.user + ownCpu.system) / 1e6 / wallSeconds) * 100)
    const cpuPressurePercent = Math.round((cpuStalledMicros() - stalledBefore) / 1e4 / wallSeconds)
    const peakRssMiB = mib(rss.stop())
    const serverLog = service.outputSince(logMark)

    const accepted = [...warm.accepted, ...sent.accepted]
    const acceptedSet = new Set(accepted)
    const attachmentsExpected = [...warmup, ...mails].filter((m) => m.attachment && acceptedSet.has(m.messageId)).length
    let result: EmailCheck
    if (database !== undefined) {
      const client = new Pg.Client({ connectionString: database.url })
      await client.connect()
      try {
        result = await check((text, params) => client.query(text, params), projectIds, accepted, attachmentsExpected)
      } finally {
        await client.end()
      }
    } else {
      // the embedded database is the service's own: it has to stop before anyone else opens it
      await waitUntilIdle(service.pid)
      await service.stop()
      service = undefined
      const db = await PGlite.create(dataDir!, { extensions: { pg_trgm } })
      try {
        result = await check((text, params) => db.query(text, params), projectIds, accepted, attachmentsExpected)
      } finally {
        await db.close()
      }
    }

    const sorted = [...sent.durations].sort((a, b) => a - b)
    const byKind = (attachment: boolean) => {
      const ids = new Set(mails.filter((m) => m.attachment === attachment).map((m) => m.messageId))
      const spans = sent.accepted.flatMap((id, i) => (ids.has(id) ? [sent.durations[i]!] : [])).sort((a, b) => a - b)
      return round(percentile(spans, 50))
    }
    // nothing accepted leaves no wall clock: 0 a second, not NaN (which would pass any comparison)
    const perSecond = sent.accepted.length === 0 ? 0 : Math.round(sent.accepted.length / wallSeconds)
    const missed: Array<string> = []
    if (!(perSecond >= emailTargets.minPerSecond)) missed.push(`msg/s < ${emailTargets.minPerSecond}`)
    if (peakRssMiB >= options.maxRssMiB) missed.push(`RSS ≥ ${options.maxRssMiB} MB`)
    const merge = (a: Record<string, number>, b: Record<string, number>) => {
      const out = { ...a }
      for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v
      return out
    }
    return {
      database: kind,
      projects: projectCount,
      messages,
      warmupMessages,
      senders,
      senderAddresses: Math.ceil(messages / perAddress),
      perAddress,
      withAttachment: mails.filter((m) => m.attachment).length,
      averageKiB: Math.round(mails.reduce((sum, m) => sum + m.raw.byteLength, 0) / mails.length / 102.4) / 10,
      composeSeconds,
      accepted: sent.accepted.length,
      acceptedWithWarmup: accepted.length,
      refused: merge(warm.refused, sent.refused),
      errors: merge(warm.errors, sent.errors),
      wallSeconds: Math.round(wallSeconds * 100) / 100,
      perSecond,
      latencyMs: {
        p50: round(percentile(sorted, 50)),
        p90: round(percentile(sorted, 90)),
        p99: round(percentile(sorted, 99)),
        max: round(sorted.at(-1) ?? NaN)
      },
      p50ByKindMs: { plain: byKind(false), attachment: byKind(true) },
      peakRssMiB,
      serverCpuPercent,
      serverCpuMsPerMail: round((serverCpu * 1000) / sent.accepted.length),
      databaseCpuMsPerMail: databaseCpu === undefined ? null : round((databaseCpu * 1000) / sent.accepted.length),
      loadGeneratorCpuPercent,
      loadAverage: Math.round(loadavg()[0]! * 100) / 100,
      cpuPressurePercent,
      check: result,
      activity: activityRows,
      serverLog: serverLog.slice(-2000),
      missed
    }
  } catch (error) {
    if (service !== undefined) console.error(`  service output before the failure:\n${service.output().slice(-3000)}`)
    throw error
  } finally {
    if (service !== undefined) {
      const stopped = await service.stop()
      if (stopped.killed) console.log("  !! the service ignored SIGTERM for 10 s and was killed")
    }
    if (database !== undefined) await database.drop()
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true })
  }
}

/** Whether the run saw refusals, transport errors or a failed check. */
export const emailFailed = (r: EmailResult) =>
  Object.keys(r.refused).length > 0 || Object.keys(r.errors).length > 0 || !r.check.ok

export const printEmail = (r: EmailResult, maxRssMiB: number) => {
  const title = r.database === "pglite" ? "PGlite (embedded)" : "PostgreSQL"
  console.log(
    `\n${title}: inbound mail over SMTP, ${r.messages} mails (${r.withAttachment} with a ${attachmentBytes / 1024} KB attachment, ` +
      `${r.averageKiB} KB on average) over ${r.senders} pooled connections, from ${r.senderAddresses} addresses (≤ ${r.perAddress} each), ` +
      `after ${r.warmupMessages} to warm up${r.projects === 1 ? "" : `; spread over ${r.projects} projects`}`
  )
  const refused = Object.values(r.refused).reduce((a, b) => a + b, 0)
  const errors = Object.values(r.errors).reduce((a, b) => a + b, 0)
  const target = `  ≥ ${emailTargets.minPerSecond} msg/s, RSS < ${maxRssMiB} MB`
  const cols: ReadonlyArray<readonly [string, number, string | number]> = [
    ["scenario", -15, "email (SMTP)"],
    ["msg/s", 7, r.perSecond],
    ["p50 ms", 7, r.latencyMs.p50],
    ["p99 ms", 7, r.latencyMs.p99],
    ["refused", 8, refused],
    ["errors", 7, errors],
    ["peak RSS MB", 12, r.peakRssMiB.toFixed(1)],
    ["srv CPU%", 9, r.serverCpuPercent],
    ["load", 5, r.loadAverage.toFixed(1)],
    ["cpu wait%", 10, Number.isNaN(r.cpuPressurePercent) ? "?" : r.cpuPressurePercent],
    [r.database === "pglite" ? "  target (targets are for PostgreSQL)" : "  target", -42, target],
    ["met", 0, r.missed.length === 0 ? "yes" : `NO (${r.missed.join(", ")})`]
  ]
  const line = (texts: ReadonlyArray<string | number>) =>
    texts.map((text, i) => {
      const width = cols[i]![1]
      return width >= 0 ? String(text).padStart(width) : String(text).padEnd(-width)
    }).join(" ")
  const header = line(cols.map((c) => c[0]))
  console.log(header)
  console.log("-".repeat(header.length + 20))
  console.log(line(cols.map((c) => c[2])))
  console.log(
    `msg/s = mails answered 250 over ${r.wallSeconds} s from the first send to the last 250 (${r.accepted} accepted); ` +
      `p50/p99 = one SMTP transaction, MAIL FROM to 250 (p90 ${r.latencyMs.p90}, max ${r.latencyMs.max} ms; ` +
      `p50 plain ${r.p50ByKindMs.plain} ms, with the attachment ${r.p50ByKindMs.attachment} ms); this process ${r.loadGeneratorCpuPercent}% CPU`
  )
  console.log("cpu wait% = share of the run in which some process waited for a core (/proc/pressure/cpu, others' work included)")
  console.log(
    `CPU per mail: the service ${r.serverCpuMsPerMail} ms` +
      (r.databaseCpuMsPerMail === null ? " (the embedded database included)" : `, PostgreSQL's backends ${r.databaseCpuMsPerMail} ms`) +
      " (the background jobs of the new tickets included, as far as they ran during the run)"
  )
  const c = r.check
  console.log(
    `checked with SQL (warm-up included): ${c.emailTickets} email tickets for ${r.acceptedWithWarmup} accepted; ` +
      `${c.inboundRows} inbound Message-IDs, ${c.duplicated} duplicated, ${c.missing} missing, ${c.unexpected} not accepted, ` +
      `${c.sharedTickets} tickets with two; ${c.attachments} of ${c.attachmentsExpected} attachments: ${c.ok ? "every mail once" : "!!!!!! FAILED"}`
  )
  for (const [reason, n] of Object.entries(r.refused)) console.log(`!!!!!! ${n} mails refused: ${reason}`)
  for (const [reason, n] of Object.entries(r.errors)) console.log(`!!!!!! ${n} mails failed: ${reason}`)
  if (r.activity.length > 0) {
    console.log("the service's database connections over the run (pg_stat_activity every 50 ms; average connections in each state):")
    for (const a of r.activity) console.log(`  ${a.connections.toFixed(2).padStart(5)}  ${a.what}`)
  }
  if (r.serverLog.trim() !== "") console.log(`note: the server logged (last lines):\n${r.serverLog.trim().split("\n").slice(-10).join("\n")}`)
}
