/**
 * Every id in a path is decoded by its schema (Domain/Ids.ts) before any handler runs: a malformed
 * one is its resource's 404, with the body an unknown id gets, and never reaches the database.
 * What a query or a body gets wrong stays a 400.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

const notFound = (message: string) => ({ error: { code: "NOT_FOUND", message } })

describe.each(databaseKinds)("ids in paths on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("a malformed id is its resource's 404, the first malformed one of the path when there are several", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key, projectId } = yield* createProject(server)
        const admin = yield* server.api(adminToken)
        const webhook = yield* admin.webhooks.register({ params: { pid: projectId }, payload: { url: "https://receiver.example/hooks" } })
        const project = `/v1/admin/projects/${projectId}`
        const cases: ReadonlyArray<readonly [method: string, path: string, token: string, message: string]> = [
          ["GET", "/v1/tickets/not-a-uuid", key, "ticket not found"],
          ["POST", "/v1/tickets/not-a-uuid/messages", key, "ticket not found"],
          // a NUL byte once reached PostgreSQL, which refused it with an error of its own: a 500
          ["GET", "/v1/articles/a%00b", key, "article not found"],
          ["GET", "/v1/articles/Not%20a%20slug", key, "article not found"],
          ["GET", "/v1/admin/projects/not-a-uuid/tickets", adminToken, "project not found"],
          ["GET", "/v1/admin/projects/not-a-uuid/tickets/not-a-uuid-either", adminToken, "project not found"],
          ["GET", `${project}/tickets/not-a-uuid`, adminToken, "ticket not found"],
          ["PATCH", `${project}/articles/not-a-uuid`, adminToken, "article not found"],
          ["DELETE", `${project}/api-keys/not-a-uuid`, adminToken, "API key not found"],
          ["DELETE", `${project}/webhooks/not-a-uuid`, adminToken, "webhook not found"],
          ["POST", `${project}/webhooks/${webhook.webhook_id}/deliveries/not-a-uuid/redeliver`, adminToken, "delivery not found"],
          ["GET", `${project}/automation-rules/not-a-uuid/runs`, adminToken, "automation rule not found"]
        ]
        for (const [method, path, token, message] of cases) {
          const response = yield* Effect.promise(() =>
            server.request(method, path, { key: token, ...(method === "GET" || method === "DELETE" ? {} : { body: { body: "x" } }) }))
          expect([method, path, response.status, response.body]).toEqual([method, path, 404, notFound(message)])
        }
      }))

    it.effect("a query or a body that does not decode is still a 400 beside a well-formed id", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { key } = yield* createProject(server)
        const id = crypto.randomUUID()
        const query = yield* Effect.promise(() => server.request("GET", `/v1/tickets/${id}?contact_email=nobody`, { key }))
        expect([query.status, query.body.error.code]).toEqual([400, "VALIDATION_ERROR"])
        const body = yield* Effect.promise(() => server.request("POST", `/v1/tickets/${id}/messages`, { key, body: {} }))
        expect([body.status, body.body]).toEqual([400, { error: { code: "VALIDATION_ERROR", message: "body is required" } }])
      }))
  })
})
