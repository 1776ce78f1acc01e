import { Context, Effect, Layer, Option, Stream } from "effect"
import { DatabaseInfo, type ListenEvent } from "../Database/Database.ts"
import { NotFound } from "../Domain/Errors.ts"
import { isUuid } from "../Domain/Fields.ts"
import type { KeyCreated, KeyScope, ProjectCreated } from "../Domain/Project.ts"
import { type KeyRow, type NewKey, ProjectsRepo } from "./Repo.ts"
import { newApiKey, sha256 } from "./Secrets.ts"

const projectNotFound = new NotFound({ message: "project not found" })

/** A fresh key: what is stored (its hash) and what is shown once (the key itself). */
const freshKey = (name: string | null, scope: KeyScope): { readonly apiKey: string; readonly stored: NewKey } => {
  const apiKey = newApiKey()
  return { apiKey, stored: { name, scope, hash: sha256(apiKey), prefix: apiKey.slice(0, 7) } }
}

/** Keys a busy instance holds in memory at most; past it the cache starts over. */
const maxCachedKeys = 10_000

export class Projects extends Context.Service<Projects>()("app/Projects", {
  make: Effect.gen(function*() {
    const repo = yield* ProjectsRepo
    const database = yield* DatabaseInfo

    /**
     * Keys found recently, so that a request costs no key lookup. They are held by the key itself,
     * which the process has in hand on every request anyway (hashing it first would cost each
     * request more than the lookup); only the database keeps hashes, for keys at rest. Every
     * revocation, on any instance, empties it (NOTIFY api_keys at commit), and it is not used at
     * all while the listening connection is down, so a revoked key is refused on the next request
     * everywhere. A lookup that started before a revocation does not put its answer back (the
     * generation).
     */
    const knownKeys = new Map<string, KeyRow>()
    let listening = false
    let generation = 0
    const forgetKeys = (event: ListenEvent) => {
      generation++
      knownKeys.clear()
      if (event !== "notified") listening = event === "subscribed"
    }
    yield* database.listen("api_keys").pipe(
      Stream.runForEach((event) => Effect.sync(() => forgetKeys(event))),
      Effect.withTracerEnabled(false),
      Effect.forkScoped
    )

    const requireProject = (projectId: string) =>
      isUuid(projectId)
        ? Effect.flatMap(repo.projectExists(projectId), (exists) => exists ? Effect.void : Effect.fail(projectNotFound))
        : Effect.fail(projectNotFound)

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
      projectId: string,
      input: { readonly name?: string | null; readonly scope?: KeyScope | null }
    ) {
      yield* requireProject(projectId)
      const scope = input.scope ?? "full"
      const key = freshKey(input.name ?? null, scope)
      const keyId = yield* repo.insertKey(projectId, key.stored)
      return { key_id: keyId, api_key: key.apiKey, scope } satisfies KeyCreated
    })

    const revokeKey = Effect.fn("Projects.revokeKey")(function*(projectId: string, keyId: string) {
      yield* requireProject(projectId)
      const revoked = isUuid(keyId) ? yield* repo.revokeKey(projectId, keyId) : false
      if (!revoked) return yield* new NotFound({ message: "API key not found" })
      // this instance forgets at once, without waiting for its own notification
      forgetKeys("notified")
    })

    const listKeys = Effect.fn("Projects.listKeys")(function*(projectId: string) {
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
