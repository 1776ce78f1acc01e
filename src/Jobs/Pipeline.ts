import { Effect, Layer } from "effect"
import { Automation } from "../Automation/Automation.ts"
import { AppConfig } from "../Config.ts"
import { contactNotificationOf, JobFailed, notificationOf } from "../Domain/Jobs.ts"
import { ErrorTracker } from "../ErrorTracker/ErrorTracker.ts"
import * as Sentry from "../ErrorTracker/Sentry.ts"
import { Mailer } from "../Notifier/Mailer.ts"
import { type Notification, Notifier } from "../Notifier/Notifier.ts"
import { Satisfaction } from "../Satisfaction/Satisfaction.ts"
import { Sla } from "../Sla/Sla.ts"
import { Followups } from "../Tickets/Followups.ts"
import * as LocalTriage from "../Triage/Local.ts"
import * as OpenAiTriage from "../Triage/OpenAi.ts"
import type { Triage } from "../Triage/Triage.ts"
import { Webhooks } from "../Webhooks/Webhooks.ts"
import { JobsRepo } from "./Repo.ts"
import { JobHandlers, RunnerLive } from "./Runner.ts"

/** The services at the edge, chosen by the settings: a model, an error tracker, a mail server. */
export const EdgeServicesLive = Layer.mergeAll(
  Layer.unwrap(AppConfig.useSync((config) =>
    config.triageProvider === "openai" ? OpenAiTriage.layer(LocalTriage.layer) : LocalTriage.layer
  )),
  Layer.unwrap(AppConfig.useSync((config) => config.errorTracker === "sentry" ? Sentry.layer : ErrorTracker.none)),
  Notifier.layer.pipe(Layer.provide(Mailer.layer))
)

/** Which service does each kind of job. */
const HandlersLive = Layer.effect(
  JobHandlers,
  Effect.gen(function*() {
    const followups = yield* Followups
    const webhooks = yield* Webhooks
    const automation = yield* Automation
    const notifier = yield* Notifier
    const notify = (notification: Notification) =>
      notifier.notify(notification).pipe(
        Effect.mapError((error) => new JobFailed({ message: error.message, cause: error }))
      )
    return {
      triage: followups.runTriage,
      duplicate_check: followups.checkDuplicate,
      error_link: followups.linkIssues,
      webhook_delivery: webhooks.deliver,
      automation: automation.run,
      notify: (job) => notify(notificationOf(job)),
      contact_notify: (job) => notify(contactNotificationOf(job)),
      sla_update: (yield* Sla).runUpdate,
      sla_check: (yield* Sla).runCheck,
      satisfaction_request: (yield* Satisfaction).ask,
      webhook_replay: webhooks.runReplay,
      endpoint_disabled_mail: webhooks.mailDisabled
    }
  })
).pipe(Layer.provide([Sla.layer, Followups.layer, Satisfaction.layer]))

/**
 * The background pipeline of one instance: the job runner with every handler. `edge` swaps the
 * services at the edge, which is how tests put mocks (a fixed triage, a fake tracker) in.
 */
export const pipelineLayer = <E, R>(edge: Layer.Layer<Triage | ErrorTracker | Notifier, E, R>) =>
  RunnerLive.pipe(Layer.provide(HandlersLive), Layer.provide(JobsRepo.layer), Layer.provide(edge))

export const PipelineLive = pipelineLayer(EdgeServicesLive)
