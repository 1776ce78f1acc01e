/**
 * The webhooks group with its service (Webhooks) swapped for a mock: the real handlers and the
 * real admin-token middleware, served in memory through the contract's own typed client. What is
 * left is what the operator API makes of a request and of the service's answer: a contributor
 * changing the webhook endpoints starts here, with no receiver and no database.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { HttpApiTest } from "effect/http-api"
import { AdminToken } from "../../src/Admin/AdminToken.ts"
import { Agents } from "../../src/Admin/Agents.ts"
import { Api } from "../../src/Api.ts"
import { AdminAuth } from "../../src/Auth/Api.ts"
import { Audit } from "../../src/Audit/Audit.ts"
import type { NewAuditEntry } from "../../src/Audit/Repo.ts"
import { AdminAuthLive } from "../../src/Auth/Http.ts"
import { Unauthorized } from "../../src/Domain/Errors.ts"
import { type ProjectId, WebhookId } from "../../src/Domain/Ids.ts"
import type { CreateWebhookInput } from "../../src/Domain/Webhook.ts"
import { WebhooksHttpLive } from "../../src/Webhooks/Http.ts"
import { Webhooks } from "../../src/Webhooks/Webhooks.ts"
import { defaultSettings, platform, sending, standInClient, standInMiddleware } from "../support/HandlerTest.ts"
import { makeTestLayer } from "../support/TestLayer.ts"

const pid = "5b0c0f7e-3f26-4a0e-8d6c-2d9b7f6f6a11"
const webhookId = WebhookId.make("7c9e2f4a-1b3d-4e5f-9a8b-6c7d8e9f0a1b")

/** A Webhooks that registers what it is given and lists it back; nothing else of it is used. */
const webhooks = (asked: Array<{ projectId: ProjectId; input: CreateWebhookInput }>) =>
  makeTestLayer(Webhooks)({
    register: (projectId, input) =>
      Effect.sync(() => {
        asked.push({ projectId, input })
        return {
          webhook_id: webhookId,
          url: input.url,
          events: input.events ?? ["ticket_created"],
          secret: "whsec_mock",
          retry_schedule: input.retry_schedule ?? "default",
          max_per_second: input.max_per_second ?? null
        }
      }),
    list: () =>
      Effect.succeed({
        webhooks: [{
          webhook_id: webhookId,
          url: "https://hooks.example.com/support",
          events: ["ticket_created"],
          retry_schedule: "default",
          max_per_second: null,
          status: "enabled",
          disabled_at: null,
          disabled_reason: null,
          failing_since: null,
          previous_secret_expires_at: null,
          created_at: "2026-11-28T10:00:00.000Z"
        }]
      })
  })

/** An audit log that keeps what it is told in `audited`. */
const auditLog = (audited: Array<Omit<NewAuditEntry, "at">>) =>
  makeTestLayer(Audit)({ record: (entry) => Effect.sync(() => void audited.push(entry)) })

const served = (
  asked: Array<{ projectId: ProjectId; input: CreateWebhookInput }>,
  audited: Array<Omit<NewAuditEntry, "at">> = []
) =>
  WebhooksHttpLive.pipe(
    Layer.provide(webhooks(asked)),
    Layer.provideMerge(Layer.mergeAll(
      AdminAuthLive.pipe(Layer.provide([
        makeTestLayer(AdminToken)({ token: Option.some("adm_right") }),
        auditLog(audited),
        // the calls here name no agent, so none is looked up
        makeTestLayer(Agents)({}),
        defaultSettings
      ])),
      standInMiddleware.projectAuth,
      standInMiddleware.mailAuth,
      standInMiddleware.idempotent,
      platform
    ))
  )

const asAdmin = (token: string) => Layer.mergeAll(sending(AdminAuth, token), standInClient.projectAuth, standInClient.mailAuth)

describe("the webhooks group, its service swapped for a mock", () => {
  it.effect("registers a webhook with what the operator sent, decoded, and answers 201 with the service's webhook", () => {
    const asked: Array<{ projectId: ProjectId; input: CreateWebhookInput }> = []
    const audited: Array<Omit<NewAuditEntry, "at">> = []
    return Effect.gen(function*() {
      const api = yield* HttpApiTest.groups(Api, ["webhooks"])
      const created = yield* api.webhooks.register({
        params: { pid },
        payload: { url: "https://hooks.example.com/support", events: ["ticket_created", "ticket_replied"] }
      })
      expect(created).toEqual({
        webhook_id: webhookId,
        url: "https://hooks.example.com/support",
        events: ["ticket_created", "ticket_replied"],
        secret: "whsec_mock",
        retry_schedule: "default",
        max_per_second: null
      })
      expect(asked).toEqual([{
        projectId: pid,
        input: { url: "https://hooks.example.com/support", events: ["ticket_created", "ticket_replied"] }
      }])
      expect((yield* api.webhooks.list({ params: { pid } })).webhooks.map((webhook) => webhook.webhook_id)).toEqual([webhookId])
      // the registration is the operator's action on the log; the list, a read, is not
      expect(audited).toEqual([{
        projectId: pid,
        actor: "admin_token",
        agentEmail: null,
        action: "webhooks.register",
        target: {},
        status: 201,
        sourceIp: expect.any(String),
        userAgent: null
      }])
    }).pipe(Effect.provide([served(asked, audited), asAdmin("adm_right")]))
  })

  it.effect("refuses a wrong admin token with 401 before the service is asked anything", () => {
    const asked: Array<{ projectId: ProjectId; input: CreateWebhookInput }> = []
    return Effect.gen(function*() {
      const api = yield* HttpApiTest.groups(Api, ["webhooks"])
      const refused = yield* Effect.flip(api.webhooks.register({ params: { pid }, payload: { url: "https://hooks.example.com/x" } }))
      expect(refused).toBeInstanceOf(Unauthorized)
      expect(asked).toEqual([])
    }).pipe(Effect.provide([served(asked), asAdmin("adm_wrong")]))
  })
})
