import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { HttpClient, HttpClientRequest, UrlParams } from "effect/http"
import { AppConfig } from "../Config.ts"
import { DatabaseInfo } from "../Database/Database.ts"
import { NotFound, ValidationError } from "../Domain/Errors.ts"
import { EventKinds } from "../Domain/Events.ts"
import type { DeliveryId, ProjectId, WebhookId } from "../Domain/Ids.ts"
import { JobFailed, type JobHandler } from "../Domain/Jobs.ts"
import type { CreateWebhookInput } from "../Domain/Webhook.ts"
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

interface AttemptOutcome {
  readonly delivered: boolean
  readonly statusCode: number | null
  readonly error: string | null
}

export class Webhooks extends Context.Service<Webhooks>()("app/Webhooks", {
  make: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const projects = yield* Projects
    const config = yield* AppConfig
    const database = yield* DatabaseInfo
    // on a developer's machine receivers live on localhost; a shared server must not reach its own network
    const allowPrivate = Option.getOrElse(config.webhookAllowPrivateTargets, () => database.kind === "embedded")
    const client = yield* deliveryClient(guardedLookup(allowPrivate))

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
      const chosen = input.events
      const events = chosen == null ? "all" : EventKinds.filter((kind) => chosen.includes(kind))
      const secret = input.secret ?? newSecret()
      const row = yield* repo.insert(projectId, input.url, events, secret)
      return { webhook_id: row.webhook_id, url: shownUrl(row.url), events: row.events, secret }
    })

    const list = Effect.fn("Webhooks.list")(function*(projectId: ProjectId) {
      yield* projects.requireProject(projectId)
      const webhooks = yield* repo.list(projectId)
      return { webhooks: webhooks.map((webhook) => ({ ...webhook, url: shownUrl(webhook.url) })) }
    })

    const remove = Effect.fn("Webhooks.remove")(function*(projectId: ProjectId, webhookId: WebhookId) {
      yield* projects.requireProject(projectId)
      if (!(yield* repo.remove(projectId, webhookId))) return yield* webhookNotFound
    })

    const rotateSecret = Effect.fn("Webhooks.rotateSecret")(function*(projectId: ProjectId, webhookId: WebhookId) {
      yield* projects.requireProject(projectId)
      const secret = newSecret()
      if (!(yield* repo.rotateSecret(projectId, webhookId, secret))) return yield* webhookNotFound
      return { secret }
    })

    const deliveries = Effect.fn("Webhooks.deliveries")(function*(projectId: ProjectId, webhookId: WebhookId) {
      yield* requireWebhook(projectId, webhookId)
      return { deliveries: yield* repo.deliveries(webhookId, deliveriesShown) }
    })

    const redeliver = Effect.fn("Webhooks.redeliver")(function*(projectId: ProjectId, webhookId: WebhookId, deliveryId: DeliveryId) {
      yield* requireWebhook(projectId, webhookId)
      const now = yield* Clock.currentTimeMillis
      if (!(yield* repo.redeliver(projectId, webhookId, deliveryId, now))) {
        return yield* new NotFound({ message: "delivery not found" })
      }
      return { delivery_id: deliveryId, status: "pending" as const }
    })

    const attempt = (target: DeliveryTarget) =>
      Effect.gen(function*() {
        const url = parseTarget(target.url)
        if (typeof url === "string") return { delivered: false, statusCode: null, error: url }
        yield* checkTarget(url, allowPrivate)
        const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.bodyText(target.body, "application/json"),
          HttpClientRequest.setHeaders(deliveryHeaders({
            secret: target.secret,
            deliveryId: target.id,
            event: target.event,
            body: target.body,
            timestamp,
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
          error: status >= 300 && status < 400 ? `redirect (${status}) not followed` : `receiver answered ${status}`
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

    /** The `webhook_delivery` job: one attempt, logged; a failure is retried on the webhook schedule. */
    const deliver: JobHandler<"webhook_delivery"> = (job, { retryDelay }) =>
      Effect.gen(function*() {
        const target = yield* repo.target(job.payload.delivery_id)
        // the endpoint was deleted, or this is a re-run of an attempt that got through before a crash
        if (target === undefined || (target.status === "delivered" && job.payload.once !== true)) return
        const sent = yield* Clock.currentTimeNanos
        const outcome = yield* attempt(target)
        recordDelivery(
          yield* Effect.context<never>(),
          outcome.delivered ? "delivered" : outcome.statusCode === null ? "unreachable" : "rejected",
          Number((yield* Clock.currentTimeNanos) - sent) / 1e9
        )
        const now = yield* Clock.currentTimeMillis
        const nextAttemptAt = outcome.delivered ? Option.none() : Option.map(retryDelay, (delay) => now + Duration.toMillis(delay))
        yield* repo.recordAttempt({
          deliveryId: target.id,
          atLeast: job.payload.once === true ? 0 : job.attempts,
          status: outcome.delivered ? "delivered" : Option.isSome(nextAttemptAt) ? "pending" : "failed",
          statusCode: outcome.statusCode,
          error: outcome.error,
          nextAttemptAt: Option.getOrNull(nextAttemptAt),
          now
        })
        if (!outcome.delivered) return yield* new JobFailed({ message: outcome.error ?? "not delivered" })
      })

    return { register, list, remove, rotateSecret, deliveries, redeliver, deliver }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([WebhooksRepo.layer, Projects.layer]))
}
