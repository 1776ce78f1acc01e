/**
 * A repeat of an Idempotency-Key whose first request is still in flight is told 409 with
 * `Retry-After: 1`; once the first is answered, a repeat gets its answer again. The first request
 * is held in flight on purpose, so the repeat certainly meets it:
 * - on PostgreSQL, the real server and SQL, the first create waiting on a row lock the test holds;
 * - in memory, the real middleware over a stand-in repository and a create held by a gate. On
 *   PGlite the 409 cannot happen: its one session serves one transaction at a time, so a repeat
 *   waits for the first and is answered with its replay (test/Http/Access.test.ts).
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option } from "effect"
import { HttpApiTest, HttpApiMiddleware } from "effect/http-api"
import { HttpClientRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { Api } from "../../src/Api.ts"
import { ProjectAuth } from "../../src/Auth/Api.ts"
import { ProjectAuthLive } from "../../src/Auth/Http.ts"
import { ProjectId, TicketId } from "../../src/Domain/Ids.ts"
import { IdempotentLive } from "../../src/Idempotency/Http.ts"
import { IdempotencyRepo, type Prior } from "../../src/Idempotency/Repo.ts"
import { Projects } from "../../src/Projects/Projects.ts"
import { RateLimit } from "../../src/RateLimit/RateLimit.ts"
import { TicketAccess } from "../../src/Auth/TicketAccess.ts"
import { EventLog } from "../../src/Events/EventLog.ts"
import { TicketsHttpLive } from "../../src/Tickets/Http.ts"
import { Tickets } from "../../src/Tickets/Tickets.ts"
import { eventually } from "../support/Eventually.ts"
import { defaultSettings, fullKeyOf, platform, standInClient, standInMiddleware } from "../support/HandlerTest.ts"
import { describeNeeding, postgresMissing } from "../support/Requires.ts"
import { makeTestLayer } from "../support/TestLayer.ts"
import { createProject, TestServer, testServer } from "../support/TestServer.ts"

const inProgress = "a request with this Idempotency-Key is still in progress"
const ticket = { subject: "Held", body: "In flight" }

describeNeeding(postgresMissing, "a repeat of an Idempotency-Key in flight on postgres", () => {
  layer(testServer("postgres", { RATE_LIMIT_PER_MINUTE: "100000" }), { excludeTestServices: true })((it) => {
    it.effect("is refused with 409 and Retry-After: 1 while the first is held, and replayed once it is answered", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const { key, projectId } = yield* createProject(server)
        const post = () =>
          server.request("POST", "/v1/tickets", { key, body: ticket, headers: { "idempotency-key": "held-order" } })

        // the project row, locked: a create waits on it for its ticket number, inside the key's transaction
        const locked = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const holder = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`
          yield* Deferred.succeed(locked, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(locked)
        const first = yield* Effect.forkChild(Effect.promise(post))
        yield* eventually(
          "the first create to wait on the project row",
          Effect.map(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%ticket_seq%'`,
            ([row]) => ({ done: row!.n > 0, value: row!.n })
          )
        )

        const repeat = yield* Effect.promise(post)
        expect(repeat.status).toBe(409)
        expect(repeat.body.error).toEqual({ code: "CONFLICT", message: inProgress })
        expect(repeat.headers.get("retry-after")).toBe("1")

        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
        const answered = yield* Fiber.join(first)
        expect(answered.status).toBe(202)
        const replayed = yield* Effect.promise(post)
        expect(replayed.status).toBe(202)
        expect(replayed.headers.get("idempotent-replayed")).toBe("true")
        expect(replayed.body).toEqual(answered.body)
      }))
  })
})

describe("a repeat of an Idempotency-Key in flight, in memory", () => {
  const projectId = ProjectId.make("5b0c0f7e-3f26-4a0e-8d6c-2d9b7f6f6a11")
  const key = fullKeyOf(projectId)

  /** The repository's contract in memory: a key's lock is held until its transaction ends, answers are kept. */
  const memoryRepo = () => {
    // each lock's holder: the fiber of the transaction that took it
    const held = new Map<string, number>()
    const answers = new Map<string, Prior>()
    return makeTestLayer(IdempotencyRepo)({
      tryLock: (project, idempotencyKey) =>
        Effect.withFiber((fiber) => {
          const lock = `${project}:${idempotencyKey}`
          const holder = held.get(lock)
          if (holder !== undefined && holder !== fiber.id) return Effect.succeed(false)
          held.set(lock, fiber.id)
          return Effect.succeed(true)
        }),
      find: (project, idempotencyKey) => Effect.sync(() => Option.fromNullishOr(answers.get(`${project}:${idempotencyKey}`))),
      store: (project, idempotencyKey, entry) =>
        Effect.sync(() =>
          void answers.set(`${project}:${idempotencyKey}`, {
            request_hash: entry.requestHash,
            response_status: entry.status,
            response_body: entry.body
          })
        ),
      withTransaction: (effect) =>
        Effect.ensuring(
          effect,
          Effect.withFiber((fiber) =>
            Effect.sync(() => {
              for (const [lock, holder] of held) if (holder === fiber.id) held.delete(lock)
            })
          )
        )
    })
  }

  /** A create that waits at the gate until the test opens it. */
  const gatedTickets = (entered: Deferred.Deferred<void>, gate: Deferred.Deferred<void>) =>
    makeTestLayer(Tickets)({
      create: () =>
        Deferred.succeed(entered, undefined).pipe(
          Effect.andThen(Deferred.await(gate)),
          Effect.as({ ticket_id: TicketId.make("9d2f7a1e-6c3b-4f8e-a1d0-7b5c2e4f9a30"), ticket_number: 7 })
        )
    })

  /** The key the middleware knows, sent by the client, and the headers of every answer it gets. */
  const seenHeaders: Array<Record<string, string>> = []
  const client = Layer.mergeAll(
    HttpApiMiddleware.layerClient(ProjectAuth, ({ next, request }) =>
      Effect.tap(
        next(HttpClientRequest.bearerToken(request, "tf_known")),
        (response) => Effect.sync(() => void seenHeaders.push({ ...response.headers }))
      )),
    standInClient.adminAuth, standInClient.mailAuth
  )

  it.effect("is refused with 409 and Retry-After: 1 while the first waits at the gate, and replayed once it is answered", () =>
    Effect.gen(function*() {
      const entered = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const served = TicketsHttpLive.pipe(
        Layer.provide([gatedTickets(entered, gate), TicketAccess.layerFrom("in-flight-test"), makeTestLayer(EventLog)({})]),
        Layer.provideMerge(Layer.mergeAll(
          ProjectAuthLive.pipe(Layer.provide([
            makeTestLayer(Projects)({ authenticate: (apiKey) => Effect.succeed(apiKey === "tf_known" ? Option.some(key) : Option.none()) }),
            makeTestLayer(RateLimit)({ check: () => Effect.void }),
            defaultSettings
          ])),
          IdempotentLive.pipe(Layer.provide(memoryRepo())),
          standInMiddleware.adminAuth,
      standInMiddleware.mailAuth,
          platform
        ))
      )
      yield* Effect.gen(function*() {
        const api = yield* HttpApiTest.groups(Api, ["tickets"])
        const create = api.tickets.create({ payload: ticket, headers: { "idempotency-key": "held-order" } })
        const first = yield* Effect.forkChild(create)
        yield* Deferred.await(entered)

        seenHeaders.length = 0
        const repeat = yield* Effect.flip(create)
        expect(repeat._tag).toBe("Conflict")
        expect(repeat.message).toBe(inProgress)
        expect(seenHeaders[0]?.["retry-after"]).toBe("1")

        yield* Deferred.succeed(gate, undefined)
        const answered = yield* Fiber.join(first)
        seenHeaders.length = 0
        expect(yield* create).toEqual(answered)
        expect(seenHeaders[0]?.["idempotent-replayed"]).toBe("true")
      }).pipe(Effect.provide(Layer.mergeAll(served, client)))
    }))
})
