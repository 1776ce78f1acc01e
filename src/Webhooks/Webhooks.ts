import { Clock, Context, DateTime, Duration, Effect, Layer, Option, Random } from "effect"
import { HttpClient, HttpClientRequest, UrlParams } from "effect/http"
import { AppConfig } from "../Config.ts"
import { DatabaseInfo } from "../Database/Database.ts"
import { Conflict, NotFound, ValidationError } from "../Domain/Errors.ts"
import * as Events from "../Domain/Events.ts"
import type { DeliveryId, ProjectId, WebhookId } from "../Domain/Ids.ts"
import { type ClaimedJob, JobFailed, type JobHandler, type NewJob, projectEventJobs } from "../Domain/Jobs.ts"
import type { CreateWebhookInput, ReplayInput, RotateSecretInput, UpdateWebhookInput } from "../Domain/Webhook.ts"
import { delayAfter, webhookPolicy } from "../Jobs/Retry.ts"
import { Mailer } from "../Notifier/Mailer.ts"
import { recordDelivery } from "../Observability/Metrics.ts"
import { Projects } from "../Projects/Projects.ts"
import { deliveryClient } from "./Connections.ts"
import { type DeliveryTarget, WebhooksRepo } from "./Repo.ts"
import { deliveryHeaders, newSecret } from "./Signing.ts"
import { checkTarget, guardedLookup, parseTarget } from "./Targets.ts"

const webhookNotFound = new NotFound({ message: "webhook not found" })
const userAgent = "SupportTicketing-Webhooks/1.0"
/** The deliveries log shows the newest ones; older ones stay in the table. */
const deliveriesShown = 100

/**
 * An endpoint's URL as the operator API shows it: a user and password in it (Basic auth for the
 * receiver) are sent with every delivery but never shown again, as traces never show them either.
 */
const shownUrl = (url: string) => UrlParams.redactUrl(url)

/** The replays listed: the newest. */
const replaysShown = 50
/**
 * How many deliveries one run of a replay job sends before handing over to the next run: at
 * WEBHOOK_TIMEOUT's default each, well inside a job's time box.
 */
const replayChunk = 20

interface AttemptOutcome {
  readonly delivered: boolean
  readonly statusCode: number | null
  readonly error: string | null
  /** the wait a `429` or `503` asked for in `Retry-After` */
  readonly retryAfter?: Duration.Duration | undefined
}

/**
 * `Retry-After` as RFC 9110 writes it: whole seconds, or an HTTP date (read against `now`);
 * undefined when absent or unreadable, which leaves the schedule alone.
 */
export const parseRetryAfter = (value: string | undefined, now: number): Duration.Duration | undefined => {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Duration.seconds(Number(text))
  const at = DateTime.make(text)
  if (Option.isNone(at) || !/[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT/.test(text)) return undefined
  return Duration.millis(Math.max(0, DateTime.toEpochMillis(at.value) - now))
}

/** `410 Gone`: the receiver says the endpoint is no more, so it is disabled rather than retried. */
const gone = 410

export class Webhooks extends Context.Service<Webhooks>()("app/Webhooks", {
  make: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const projects = yield* Projects
    const config = yield* AppConfig
    const database = yield* DatabaseInfo
    // on a developer's machine receivers live on localhost; a shared server must not reach its own network
    const allowPrivate = Option.getOrElse(config.webhookAllowPrivateTargets, () => database.kind === "embedded")
    const client = yield* deliveryClient(guardedLookup(allowPrivate))
    const mailer = yield* Mailer
    const extendedRetries = webhookPolicy(config.webhookExtendedRetrySchedule)

    const requireWebhook = (projectId: ProjectId, webhookId: WebhookId) =>
      Effect.gen(function*() {
        yield* projects.requireProject(projectId)
        if (!(yield* repo.exists(projectId, webhookId))) return yield* webhookNotFound
      })

    const register = Effect.fn("Webhooks.register")(function*(projectId: ProjectId, input: CreateWebhookInput) {
      yield* projects.requireProject(projectId)
      const url = parseTarget(input.url)
      if (typeof url === "string") return yield* new ValidationError({ message: url })
      // names are resolved before each attempt; an address written into the URL can be judged now
      if (/^(\[.*\]|[\d.]+)$/.test(url.hostname) || url.hostname === "localhost") {
        yield* checkTarget(url, allowPrivate).pipe(
          Effect.mapError((refused) => new ValidationError({ message: `url: ${refused.message}` }))
        )
      }
      const secret = input.secret ?? newSecret()
      const row = yield* repo.insert(projectId, {
        url: input.url,
        events: chosenEvents(input.events) ?? "all",
        secret,
        retrySchedule: input.retry_schedule ?? "default",
        maxPerSecond: input.max_per_second ?? null
      }, yield* Clock.currentTimeMillis)
      return {
        webhook_id: row.webhook_id,
        url: shownUrl(row.url),
        events: row.events,
        secret,
        retry_schedule: row.retry_schedule,
        max_per_second: row.max_per_second
      }
    })

    /** The kinds named, in the order of EventKinds; absent or null, every kind there is or will be. */
    const chosenEvents = (chosen: ReadonlyArray<string> | null | undefined) =>
      chosen == null ? undefined : Events.EventKinds.filter((kind) => chosen.includes(kind))

    const shown = <W extends { readonly url: string }>(webhook: W) => ({ ...webhook, url: shownUrl(webhook.url) })

    const list = Effect.fn("Webhooks.list")(function*(projectId: ProjectId) {
      yield* projects.requireProject(projectId)
      const webhooks = yield* repo.list(projectId, yield* Clock.currentTimeMillis)
      return { webhooks: webhooks.map(shown) }
    })

    const update = Effect.fn("Webhooks.update")(function*(projectId: ProjectId, webhookId: WebhookId, input: UpdateWebhookInput) {
      yield* projects.requireProject(projectId)
      const updated = yield* repo.update(projectId, webhookId, {
        events: chosenEvents(input.events),
        retrySchedule: input.retry_schedule ?? undefined,
        maxPerSecond: input.max_per_second
      }, yield* Clock.currentTimeMillis)
      if (Option.isNone(updated)) return yield* webhookNotFound
      return shown(updated.value)
    })

    /** Takes deliveries again; what failed meanwhile is in the log, for a replay to send. */
    const enable = Effect.fn("Webhooks.enable")(function*(projectId: ProjectId, webhookId: WebhookId) {
      yield* projects.requireProject(projectId)
      const enabled = yield* repo.enable(projectId, webhookId, yield* Clock.currentTimeMillis)
      if (Option.isNone(enabled)) return yield* webhookNotFound
      return shown(enabled.value)
    })

    const remove = Effect.fn("Webhooks.remove")(function*(projectId: ProjectId, webhookId: WebhookId) {
      yield* projects.requireProject(projectId)
      if (!(yield* repo.remove(projectId, webhookId))) return yield* webhookNotFound
    })

    const rotateSecret = Effect.fn("Webhooks.rotateSecret")(
      function*(projectId: ProjectId, webhookId: WebhookId, input: RotateSecretInput | undefined) {
        yield* projects.requireProject(projectId)
        const secret = newSecret()
        const overlap = input?.overlap_minutes == null ? config.webhookSecretOverlap : Duration.minutes(input.overlap_minutes)
        const until = Duration.isZero(overlap) ? null : (yield* Clock.currentTimeMillis) + Duration.toMillis(overlap)
        if (!(yield* repo.rotateSecret(projectId, webhookId, secret, until))) return yield* webhookNotFound
        return { secret, previous_secret_expires_at: until === null ? null : new Date(until).toISOString() }
      }
    )

    const deliveries = Effect.fn("Webhooks.deliveries")(function*(projectId: ProjectId, webhookId: WebhookId) {
      yield* requireWebhook(projectId, webhookId)
      return { deliveries: yield* repo.deliveries(webhookId, deliveriesShown) }
    })

    const refuseDisabled = (projectId: ProjectId, webhookId: WebhookId) =>
      Effect.gen(function*() {
        if (yield* repo.isDisabled(projectId, webhookId)) {
          return yield* new Conflict({ message: "the webhook is disabled: enable it first, then send again" })
        }
      })

    const redeliver = Effect.fn("Webhooks.redeliver")(function*(projectId: ProjectId, webhookId: WebhookId, deliveryId: DeliveryId) {
      yield* requireWebhook(projectId, webhookId)
      yield* refuseDisabled(projectId, webhookId)
      const now = yield* Clock.currentTimeMillis
      if (!(yield* repo.redeliver(projectId, webhookId, deliveryId, now))) {
        return yield* new NotFound({ message: "delivery not found" })
      }
      return { delivery_id: deliveryId, status: "pending" as const }
    })

    /**
     * Replays a range of an endpoint's deliveries, oldest first, one after the other: each is
     * marked pending under the replay at once, so the log shows what is still to go.
     */
    const replay = Effect.fn("Webhooks.replay")(function*(projectId: ProjectId, webhookId: WebhookId, input: ReplayInput) {
      yield* requireWebhook(projectId, webhookId)
      yield* refuseDisabled(projectId, webhookId)
      const now = yield* Clock.currentTimeMillis
      const since = Date.parse(input.since)
      const until = input.until == null ? now : Date.parse(input.until)
      if (until <= since) return yield* new ValidationError({ message: "until must be later than since" })
      return yield* repo.startReplay({
        id: crypto.randomUUID(),
        projectId,
        webhookId,
        since,
        until,
        onlyFailed: (input.only ?? "failed") === "failed",
        now
      })
    })

    const replays = Effect.fn("Webhooks.replays")(function*(projectId: ProjectId, webhookId: WebhookId) {
      yield* requireWebhook(projectId, webhookId)
      return { replays: yield* repo.replays(webhookId, replaysShown) }
    })

    /** The Standard Webhooks signatures go with both secrets while the one rotated out still signs. */
    const signingSecrets = (target: DeliveryTarget, now: number) =>
      target.previous_secret !== null && target.previous_secret_until !== null && target.previous_secret_until > now
        ? [target.secret, target.previous_secret]
        : [target.secret]

    const attempt = (target: DeliveryTarget) =>
      Effect.gen(function*() {
        const url = parseTarget(target.url)
        if (typeof url === "string") return { delivered: false, statusCode: null, error: url }
        yield* checkTarget(url, allowPrivate)
        const now = yield* Clock.currentTimeMillis
        const request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.bodyText(target.body, "application/json"),
          HttpClientRequest.setHeaders(deliveryHeaders({
            secrets: signingSecrets(target, now),
            deliveryId: target.id,
            event: target.event,
            body: target.body,
            timestamp: Math.floor(now / 1000),
            userAgent
          }))
        )
        const response = yield* client.execute(request)
        // the answer's body means nothing to us, but reading it frees the connection for reuse
        yield* response.arrayBuffer.pipe(Effect.ignore)
        const status = response.status
        if (status >= 200 && status < 300) return { delivered: true, statusCode: status, error: null }
        return {
          delivered: false,
          statusCode: status,
          error: status >= 300 && status < 400
            ? `redirect (${status}) not followed`
            : status === gone
            ? "receiver answered 410 Gone: the endpoint is disabled"
            : `receiver answered ${status}`,
          retryAfter: status === 429 || status === 503
            ? parseRetryAfter(response.headers["retry-after"], yield* Clock.currentTimeMillis)
            : undefined
        }
      }).pipe(
        // CONTRACT lists the headers of a delivery exactly: no trace context goes to receivers
        Effect.provideService(HttpClient.TracerPropagationEnabled, false),
        Effect.timeoutOrElse({
          duration: config.webhookTimeout,
          orElse: () => Effect.fail(`no answer within ${Duration.format(config.webhookTimeout)}`)
        }),
        Effect.catch((error): Effect.Effect<AttemptOutcome> =>
          Effect.succeed({
            delivered: false,
            statusCode: null,
            error: typeof error === "string"
              ? error
              : error._tag === "TargetRefused"
              ? error.message
              : `cannot reach the receiver: ${error.message}`
          })
        )
      )

    /** The event and the operators' mail that tell of an endpoint disabled now. */
    const disabledNotice = (target: DeliveryTarget, reason: string, now: number): ReadonlyArray<NewJob> => [
      ...projectEventJobs(Events.endpointDisabled({
        webhook_id: target.webhook_id,
        project_id: target.project_id,
        reason,
        disabled_at: new Date(now).toISOString()
      })),
      {
        kind: "endpoint_disabled_mail",
        projectId: target.project_id,
        ticketId: null,
        payload: { webhook_id: target.webhook_id },
        runAt: new Date(now).toISOString()
      }
    ]

    /**
     * What an attempt tells of its endpoint: a success ends a run of failures; a `410` disables
     * it; a failure starts the run, or disables it once the run has lasted WEBHOOK_DISABLE_AFTER.
     * True when the endpoint is disabled now.
     */
    const judgeEndpoint = (target: DeliveryTarget, outcome: AttemptOutcome, now: number) =>
      Effect.gen(function*() {
        if (outcome.delivered) {
          if (target.failing_since !== null) yield* repo.markHealthy(target.webhook_id)
          return false
        }
        const reason = outcome.statusCode === gone
          ? "the receiver answered 410 Gone"
          : target.failing_since !== null && now - target.failing_since >= Duration.toMillis(config.webhookDisableAfter)
          ? `no delivery got through for ${Duration.format(config.webhookDisableAfter)}; last: ${outcome.error ?? "not delivered"}`
          : undefined
        if (reason === undefined) {
          if (target.failing_since === null) yield* repo.markFailing(target.webhook_id, now)
          return false
        }
        yield* repo.disable(target.webhook_id, reason, now, disabledNotice(target, reason, now))
        return true
      })

    /**
     * The wait before the next attempt: the endpoint's schedule's, made longer when the receiver
     * asked (capped); none for an attempt a person asked for, which is not retried.
     */
    const nextDelay = (target: DeliveryTarget, job: ClaimedJob<"webhook_delivery">, scheduled: Option.Option<Duration.Duration>, outcome: AttemptOutcome) =>
      Effect.gen(function*() {
        if (job.payload.once === true) return Option.none<Duration.Duration>()
        const delay = target.retry_schedule === "extended" ? yield* delayAfter(extendedRetries, job.attempts) : scheduled
        const asked = outcome.retryAfter
        if (Option.isNone(delay) || asked === undefined) return delay
        return Option.some(Duration.max(delay.value, Duration.min(asked, config.webhookRetryAfterMax)))
      })

    /**
     * Whether the endpoint's budget for this second is spent (false when it has none); a slot is
     * taken otherwise. Every instance counts in the same row.
     */
    const throttled = (target: DeliveryTarget) =>
      Effect.gen(function*() {
        if (target.max_per_second === null) return false
        const second = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        return !(yield* repo.takeThrottleSlot(target.webhook_id, second))
      })

    /** A wait into the next second, spread so the throttled do not all come back at its start. */
    const untilNextSecond = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return Duration.millis(1000 - (now % 1000) + Math.floor((yield* Random.next) * 1000))
    })

    /** One attempt, its metric and what it says of the endpoint. */
    const attemptAndJudge = (target: DeliveryTarget) =>
      Effect.gen(function*() {
        const sent = yield* Clock.currentTimeNanos
        const outcome = yield* attempt(target)
        recordDelivery(
          yield* Effect.context<never>(),
          outcome.delivered ? "delivered" : outcome.statusCode === null ? "unreachable" : "rejected",
          Number((yield* Clock.currentTimeNanos) - sent) / 1e9
        )
        const now = yield* Clock.currentTimeMillis
        const disabledNow = yield* judgeEndpoint(target, outcome, now)
        return { outcome, now, disabledNow }
      })

    const endpointDisabled = "the webhook is disabled"

    /**
     * The `webhook_delivery` job: one attempt, logged; a failure is retried on the endpoint's
     * schedule, no sooner than the receiver asked. A disabled endpoint is not tried: the delivery
     * fails and stays in the log, for a replay once it is enabled again.
     */
    const deliver: JobHandler<"webhook_delivery"> = (job, { retryDelay }) =>
      Effect.gen(function*() {
        const target = yield* repo.target(job.payload.delivery_id)
        // the endpoint was deleted, or this is a re-run of an attempt that got through before a crash
        if (target === undefined || (target.status === "delivered" && job.payload.once !== true)) return
        if (target.disabled) {
          return yield* repo.recordAttempt({
            deliveryId: target.id,
            atLeast: 0,
            status: "failed",
            statusCode: null,
            error: endpointDisabled,
            nextAttemptAt: null,
            now: yield* Clock.currentTimeMillis
          })
        }
        if (yield* throttled(target)) {
          return yield* new JobFailed({ message: "the endpoint's deliveries a second are spent", postponeFor: yield* untilNextSecond })
        }
        const { disabledNow, now, outcome } = yield* attemptAndJudge(target)
        const delay = outcome.delivered || disabledNow || outcome.statusCode === gone
          ? Option.none<Duration.Duration>()
          : yield* nextDelay(target, job, retryDelay, outcome)
        const nextAttemptAt = Option.map(delay, (wait) => now + Duration.toMillis(wait))
        yield* repo.recordAttempt({
          deliveryId: target.id,
          atLeast: job.payload.once === true ? 0 : job.attempts,
          status: outcome.delivered ? "delivered" : Option.isSome(nextAttemptAt) ? "pending" : "failed",
          statusCode: outcome.statusCode,
          error: outcome.error,
          nextAttemptAt: Option.getOrNull(nextAttemptAt),
          now
        })
        if (!outcome.delivered) return yield* new JobFailed({ message: outcome.error ?? "not delivered", retryDelay: delay })
      })

    /**
     * The `webhook_replay` job: the replay's next deliveries, oldest first, one attempt each and
     * one at a time, so the receiver gets them in order; then the next run takes over. A crash
     * sends again only the delivery it cut off.
     */
    const runReplay: JobHandler<"webhook_replay"> = (job) =>
      Effect.gen(function*() {
        const replayId = job.payload.replay_id
        const targets = yield* repo.replayNext(replayId, replayChunk)
        for (const target of targets) {
          if (target.disabled) {
            return yield* repo.abandonReplay(replayId, endpointDisabled, yield* Clock.currentTimeMillis)
          }
          while (yield* throttled(target)) yield* Effect.sleep(yield* untilNextSecond)
          const { disabledNow, now, outcome } = yield* attemptAndJudge(target)
          yield* repo.recordAttempt({
            deliveryId: target.id,
            atLeast: 0,
            status: outcome.delivered ? "delivered" : "failed",
            statusCode: outcome.statusCode,
            error: outcome.error,
            nextAttemptAt: null,
            now
          })
          yield* repo.countReplayed(replayId, outcome.delivered, now)
          if (disabledNow) return yield* repo.abandonReplay(replayId, endpointDisabled, now)
        }
        if (targets.length === replayChunk) yield* repo.continueReplay(job.projectId, replayId, yield* Clock.currentTimeMillis)
      })

    /** The `endpoint_disabled_mail` job: the project's operators hear that an endpoint stopped. */
    const mailDisabled: JobHandler<"endpoint_disabled_mail"> = (job) =>
      Effect.gen(function*() {
        const endpoint = yield* repo.endpoint(job.payload.webhook_id)
        // deleted or enabled again since: nothing to tell any more
        if (Option.isNone(endpoint) || !endpoint.value.disabled) return
        const addresses = yield* repo.operatorAddresses(job.projectId)
        if (!mailer.configured || addresses.length === 0) {
          return yield* Effect.logWarning("an endpoint was disabled and nobody could be mailed (no SMTP_URL, or no agents)")
            .pipe(Effect.annotateLogs({ webhook_id: job.payload.webhook_id }))
        }
        const url = shownUrl(endpoint.value.url)
        yield* Effect.forEach(addresses, (to) =>
          mailer.send({
            to,
            subject: `Webhook endpoint disabled: ${url}`,
            text: [
              `The webhook endpoint ${url} (id ${job.payload.webhook_id}) no longer receives events.`,
              "",
              `Why: ${endpoint.value.disabled_reason ?? "disabled"}.`,
              "",
              "Its deliveries from now on are kept in its log as failed. Once the receiver is fixed, enable it",
              `again (POST /v1/admin/projects/${job.projectId}/webhooks/${job.payload.webhook_id}/enable, or`,
              `npm run cli -- webhooks enable ${job.projectId} ${job.payload.webhook_id}) and replay what it missed.`
            ].join("\n"),
            autoSubmitted: "auto-generated"
          }), { discard: true }).pipe(Effect.mapError((error) => new JobFailed({ message: error.message, cause: error })))
      })

    return {
      register,
      list,
      update,
      enable,
      remove,
      rotateSecret,
      deliveries,
      redeliver,
      replay,
      replays,
      deliver,
      runReplay,
      mailDisabled
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([WebhooksRepo.layer, Projects.layer, Mailer.layer]))
}
