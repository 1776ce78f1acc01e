import { Context, Duration, Effect, Latch, Layer, Option, Stream } from "effect"
import { DatabaseInfo, type ListenEvent } from "../Database/Database.ts"
import { Conflict, NotFound } from "../Domain/Errors.ts"
import type { ApiKeyId, ProjectId } from "../Domain/Ids.ts"
import type {
  ApiKeySummary,
  IdentitySecretCreated,
  KeyCreated,
  KeyScope,
  ProjectCreated,
  ProjectIdentity,
  UpdateIdentityInput,
  UpdateKeyInput
} from "../Domain/Project.ts"
import { type KeyRow, type NewKey, ProjectsRepo } from "./Repo.ts"
import { newApiKey, newIdentitySecret, sha256 } from "./Secrets.ts"

const projectNotFound = new NotFound({ message: "project not found" })
const keyNotFound = new NotFound({ message: "API key not found" })
const noIdentitySecret = new Conflict({
  message: "the project has no identity secret: create one first (POST /v1/admin/projects/:pid/identity-secret)"
})

/** A fresh key: what is stored (its hash) and what is shown once (the key itself). */
const freshKey = (
  name: string | null,
  scope: KeyScope,
  rateLimitPerMinute: number | null = null
): { readonly apiKey: string; readonly stored: NewKey } => {
  const apiKey = newApiKey()
  return { apiKey, stored: { name, scope, hash: sha256(apiKey), prefix: apiKey.slice(0, 7), rateLimitPerMinute } }
}

/** Keys a busy instance holds in memory at most; past it the cache starts over. */
const maxCachedKeys = 10_000

/** How long a change to what keys' lookups read waits to hear its notification back before it answers anyway. */
const echoTimeout = Duration.seconds(1)

export class Projects extends Context.Service<Projects>()("app/Projects", {
  make: Effect.gen(function*() {
    const repo = yield* ProjectsRepo
    const database = yield* DatabaseInfo

    /**
     * Keys found recently, so that a request costs no key lookup. They are held by the key itself,
     * which the process has in hand on every request anyway (hashing it first would cost each
     * request more than the lookup); only the database keeps hashes, for keys at rest. Every
     * revocation, and every change to what a lookup reads (a key's budget, its project's identity
     * settings), on any instance, empties it (NOTIFY api_keys at commit, and the change answers
     * once the notification has come back: `heardEverywhere`), and it is not used at all while
     * the listening connection is down, so a revoked key is refused on the next request
     * everywhere. A lookup that started before a revocation does not put its answer back (the
     * generation).
     */
    const knownKeys = new Map<string, KeyRow>()
    let listening = false
    let generation = 0
    const forgetKeys = () => {
      generation++
      knownKeys.clear()
    }
    /** Changes of this instance waiting to hear their notification back. */
    const awaitingEcho = new Set<Latch.Latch>()
    const heard = (event: ListenEvent) => {
      forgetKeys()
      if (event !== "notified") listening = event === "subscribed"
      // a connection lost or made again also ends the wait: the cache was emptied either way
      for (const echo of awaitingEcho) echo.openUnsafe()
      awaitingEcho.clear()
    }
    yield* database.listen("api_keys").pipe(
      Stream.runForEach((event) => Effect.sync(() => heard(event))),
      Effect.withTracerEnabled(false),
      Effect.forkScoped
    )

    const requireProject = (projectId: ProjectId) =>
      Effect.flatMap(repo.projectExists(projectId), (exists) => exists ? Effect.void : Effect.fail(projectNotFound))

    /** Resolves a presented API key; `None` for unknown and revoked keys alike. */
    const authenticate = (apiKey: string): Effect.Effect<Option.Option<KeyRow>> => {
      if (!apiKey.startsWith("tf_") || apiKey.length > 100) return Effect.succeedNone
      const known = listening ? knownKeys.get(apiKey) : undefined
      if (known !== undefined) return Effect.succeedSome(known)
      const asked = generation
      return Effect.tap(repo.findKeyByHash(sha256(apiKey)), (found) =>
        Effect.sync(() => {
          if (!listening || asked !== generation || Option.isNone(found)) return
          if (knownKeys.size >= maxCachedKeys) knownKeys.clear()
          knownKeys.set(apiKey, found.value)
        }))
    }

    /**
     * Runs `write`, a statement that NOTIFYs api_keys when it changes anything (`changed` says
     * whether it did), and answers once this instance has heard its notification back.
     * PostgreSQL signals every listening connection at the commit, so by then the others have
     * been sent it too, and a client that goes on to another instance finds the change in force
     * there (a revoked key refused, a new budget counted): answering at the commit left only the
     * client's next round trip for the notification to get through, which a busy machine once
     * took longer than. An earlier notification still on its way can end the wait a little
     * early; it is bounded, as a notification that never comes must not hold the answer.
     */
    const heardEverywhere = <A, E>(write: Effect.Effect<A, E>, changed: (result: A) => boolean): Effect.Effect<A, E> =>
      Effect.acquireUseRelease(
        // in place before the commit: the notification can arrive before the statement's answer
        Effect.tap(Effect.suspend(() => Latch.make(!listening)), (echo) => Effect.sync(() => awaitingEcho.add(echo))),
        (echo) =>
          Effect.gen(function*() {
            const result = yield* write
            if (!changed(result)) return result
            // this instance forgets at once
            forgetKeys()
            yield* Effect.timeoutOption(echo.await, echoTimeout)
            return result
          }),
        (echo) => Effect.sync(() => awaitingEcho.delete(echo))
      )

    const create = Effect.fn("Projects.create")(function*(name: string) {
      const key = freshKey("default", "full")
      const created = yield* repo.insertProject(name, key.stored)
      return { ...created, api_key: key.apiKey } satisfies ProjectCreated
    })

    const createKey = Effect.fn("Projects.createKey")(function*(
      projectId: ProjectId,
      input: {
        readonly name?: string | null
        readonly scope?: KeyScope | null
        readonly rate_limit_per_minute?: number | null
      }
    ) {
      yield* requireProject(projectId)
      const scope = input.scope ?? "full"
      const limit = input.rate_limit_per_minute ?? null
      const key = freshKey(input.name ?? null, scope, limit)
      const keyId = yield* repo.insertKey(projectId, key.stored)
      return { key_id: keyId, api_key: key.apiKey, scope, rate_limit_per_minute: limit } satisfies KeyCreated
    })

    /** Answers once every instance has been told to forget the key (`heardEverywhere`). */
    const revokeKey = Effect.fn("Projects.revokeKey")(function*(projectId: ProjectId, keyId: ApiKeyId) {
      yield* requireProject(projectId)
      if (!(yield* heardEverywhere(repo.revokeKey(projectId, keyId), (revoked) => revoked))) return yield* keyNotFound
    })

    /** The key's own budget, or (null) the service's again; counted from the key's next request on every instance. */
    const updateKey = Effect.fn("Projects.updateKey")(function*(projectId: ProjectId, keyId: ApiKeyId, input: UpdateKeyInput) {
      yield* requireProject(projectId)
      const updated = yield* heardEverywhere(repo.setKeyLimit(projectId, keyId, input.rate_limit_per_minute), Option.isSome)
      if (Option.isNone(updated)) return yield* keyNotFound
      return updated.value satisfies ApiKeySummary
    })

    const identityOf = (projectId: ProjectId) =>
      Effect.flatMap(repo.getIdentity(projectId), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value satisfies ProjectIdentity) : Effect.fail(projectNotFound))

    /** A new identity secret, in force at once everywhere; the earlier one stops verifying. Shown only now. */
    const createIdentitySecret = Effect.fn("Projects.createIdentitySecret")(function*(projectId: ProjectId) {
      const secret = newIdentitySecret()
      const made = yield* heardEverywhere(repo.setIdentitySecret(projectId, secret), Option.isSome)
      if (Option.isNone(made)) return yield* projectNotFound
      return { identity_secret: secret, created_at: made.value } satisfies IdentitySecretCreated
    })

    /** Verified visitors can be required only of a project that has the secret to verify them with. */
    const updateIdentity = Effect.fn("Projects.updateIdentity")(function*(projectId: ProjectId, input: UpdateIdentityInput) {
      yield* requireProject(projectId)
      const updated = yield* heardEverywhere(
        repo.setRequireVerifiedVisitors(projectId, input.require_verified_visitors),
        Option.isSome
      )
      if (Option.isNone(updated)) return yield* noIdentitySecret
      return updated.value satisfies ProjectIdentity
    })

    /** No identity secret, and so no verified visitor required. */
    const removeIdentitySecret = Effect.fn("Projects.removeIdentitySecret")(function*(projectId: ProjectId) {
      if (!(yield* heardEverywhere(repo.removeIdentitySecret(projectId), (removed) => removed))) {
        return yield* projectNotFound
      }
    })

    const listKeys = Effect.fn("Projects.listKeys")(function*(projectId: ProjectId) {
      yield* requireProject(projectId)
      return { api_keys: yield* repo.listKeys(projectId) }
    })

    return {
      authenticate,
      listKeys,
      create,
      createKey,
      revokeKey,
      updateKey,
      getIdentity: Effect.fn("Projects.getIdentity")(identityOf),
      createIdentitySecret,
      updateIdentity,
      removeIdentitySecret,
      requireProject,
      list: repo.listProjects,
      count: repo.countProjects,
      getSetting: (name: string) => Effect.map(repo.getSetting(name), Option.getOrUndefined),
      putSetting: repo.putSetting
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(ProjectsRepo.layer))
}
