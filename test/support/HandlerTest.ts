import { type Context, Effect, Layer } from "effect"
import { HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { AdminAuth, MailAuth, ProjectAuth } from "../../src/Auth/Api.ts"
import { ApiKeyId, type ProjectId } from "../../src/Domain/Ids.ts"
import { AppConfig } from "../../src/Config.ts"
import { Idempotent } from "../../src/Idempotency/Api.ts"
import { testSettings } from "./Settings.ts"
import { makeTestLayer } from "./TestLayer.ts"

/**
 * HttpApiTest builds a route for every endpoint of the API, the groups a test leaves out with
 * handlers that fail, and so needs every middleware the contract names: these stand in for the
 * ones a test does not use. Each fails loudly if a request ever reaches it.
 */
export const standInMiddleware = {
  projectAuth: makeTestLayer(ProjectAuth)({}),
  adminAuth: makeTestLayer(AdminAuth)({}),
  mailAuth: makeTestLayer(MailAuth)({}),
  idempotent: Layer.succeed(Idempotent, () => Effect.die(new Error("Idempotent: not part of this test")))
}

/** A full key of `projectId` as authentication finds it, for a mock `Projects`. */
export const fullKeyOf = (projectId: ProjectId) => ({
  key_id: ApiKeyId.make("0e8c4bd4-7f8a-4a55-9c2a-3f1a8e0c2f10"),
  project_id: projectId,
  scope: "full",
  rate_limit_per_minute: null,
  identity_secret: null,
  require_verified_visitors: false
} as const)

/** The service's settings as the defaults give them, for layers that read one. */
export const defaultSettings = Layer.effect(AppConfig, testSettings({}))

/** The platform services HttpApiTest's builder needs, with nothing of the process behind them. */
export const platform = HttpServer.layerServices

/** A typed client's side of the project key or admin token middleware: it sends `token`. */
export const sending = <Id extends HttpApiMiddleware.AnyId, S>(middleware: Context.Key<Id, S>, token: string) =>
  HttpApiMiddleware.layerClient(middleware, ({ next, request }) => next(HttpClientRequest.bearerToken(request, token)))

/** The client's side of the middleware a test does not use: the typed client of the whole API asks for both. */
export const standInClient = {
  projectAuth: sending(ProjectAuth, "tf_not_part_of_this_test"),
  adminAuth: sending(AdminAuth, "not part of this test"),
  mailAuth: sending(MailAuth, "tf_not_part_of_this_test")
}
