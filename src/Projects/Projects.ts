import { Context, Duration, Effect, Latch, Layer, Option, Stream } from "effect"
import { DatabaseInfo, type ListenEvent } from "../Database/Database.ts"
import { NotFound } from "../Domain/Errors.ts"
import type { ApiKeyId, ProjectId } from "../Domain/Ids.ts"
import type { KeyCreated, KeyScope, ProjectCreated } from "../Domain/Project.ts"
import { type KeyRow, type NewKey, ProjectsRepo } from "./Repo.ts"
import { newApiKey, sha256 } from "./Secrets.ts"

const projectNotFound = new NotFound({ message: "project not found" })
const keyNotFound = new NotFound({ message: "API key not found" })

/** A fresh key: what is stored (its hash) and what is shown once (the key itself). */
const freshKey = (name: string | null, scope: KeyScope): { readonly apiKey: string; readonly stored: NewKey } => {
  const apiKey = newApiKey()
  return { apiKey, stored: { name, scope, hash: sha256(apiKey), prefix: apiKey.slice(0, 7) } }
}

/** Keys a busy instance holds in memory at most; past it the cache starts over. */
const maxCachedKeys = 10_000

/** How long a revocation waits to hear its notification back before it answers anyway. */
const echoTimeout = Duration.seconds(1)

export class Projects extends Context.Service<Projects>()("app/Projects", {
  make: Effect.gen(function*() {
    const repo = yield* ProjectsRepo
    const database = yield* DatabaseInfo

    /**
     * Keys found recently, so that a request costs no key lookup. They are held by the key itself,
     * which the process has in hand on every request anyway (hashing it first would cost each
     * request more than the lookup); only the database keeps hashes, for keys at rest. Every
     * revocation, on any instance, empties it (NOTIFY api_keys at commit, and the revocation
     * answers once the notification has come back: `revokeKey`), and it is not used at all while
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
    /** Revocations of this instance waiting to hear their notification back. */
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

    const create = Effect.fn("Projects.create")(function*(name: string) {
      const key = freshKey("default", "full")
      const created = yield* repo.insertProject(name, key.stored)
      return { ...created, api_key: key.apiKey } satisfies ProjectCreated
    })

    const createKey = Effect.fn("Projects.createKey")(function*(
      projectId: ProjectId,
      input: { readonly name?: string | null; readonly scope?: KeyScope | null }
    ) {
      yield* requireProject(projectId)
      const scope = input.scope ?? "full"
      const key = freshKey(input.name ?? null, scope)
      const keyId = yield* repo.insertKey(projectId, key.stored)
      return { key_id: keyId, api_key: key.apiKey, scope } satisfies KeyCreated
    })

    /**
     * A revocation answers once this instance has heard its notification back. PostgreSQL signals
     * every listening connection at the commit, so by then the others have been sent it too, and
     * a client that goes on to another instance finds the key refused there: answering at the
     * commit left only the client's next round trip for the notification to get through, which a
     * busy machine once took longer than. An earlier notification still on its way can end the
     * wait a little early; it is bounded, as a notification that never comes must not hold the
     * answer.
     */
    const revokeKey = Effect.fn("Projects.revokeKey")(function*(projectId: ProjectId, keyId: ApiKeyId) {
      yield* requireProject(projectId)
      yield* Effect.acquireUseRelease(
        // in place before the commit: the notification can arrive before the statement's answer
        Effect.tap(Effect.suspend(() => Latch.make(!listening)), (echo) => Effect.sync(() => awaitingEcho.add(echo))),
        (echo) =>
          Effect.gen(function*() {
            if (!(yield* repo.revokeKey(projectId, keyId))) return yield* keyNotFound
            // this instance forgets at once
            forgetKeys()
            yield* Effect.timeoutOption(echo.await, echoTimeout)
          }),
        (echo) => Effect.sync(() => awaitingEcho.delete(echo))
      )
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
