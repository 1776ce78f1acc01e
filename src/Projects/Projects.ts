import { Effect, Option } from "effect"
import { NotFound } from "../Domain/Errors.ts"
import { isUuid } from "../Domain/Fields.ts"
import type { KeyCreated, KeyScope, ProjectCreated } from "../Domain/Project.ts"
import { ProjectsRepo } from "./Repo.ts"
import { newApiKey, sha256 } from "./Secrets.ts"

const projectNotFound = new NotFound({ message: "project not found" })

export class Projects extends Effect.Service<Projects>()("app/Projects", {
  dependencies: [ProjectsRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* ProjectsRepo

    const issueKey = (projectId: string, name: string | null, scope: KeyScope) => {
      const apiKey = newApiKey()
      return Effect.map(
        repo.insertKey({ projectId, name, scope, hash: sha256(apiKey), prefix: apiKey.slice(0, 7) }),
        (keyId): KeyCreated => ({ key_id: keyId, api_key: apiKey, scope })
      )
    }

    const requireProject = (projectId: string) =>
      isUuid(projectId)
        ? Effect.filterOrFail(repo.projectExists(projectId), (exists) => exists, () => projectNotFound)
        : Effect.fail(projectNotFound)

    /** Resolves a presented API key; `None` for unknown and revoked keys alike. */
    const authenticate = Effect.fn("Projects.authenticate")(function*(apiKey: string) {
      if (!apiKey.startsWith("tf_") || apiKey.length > 100) return Option.none()
      return yield* repo.findKeyByHash(sha256(apiKey))
    })

    const create = Effect.fn("Projects.create")(function*(name: string) {
      return yield* repo.withTransaction(Effect.gen(function*() {
        const project = yield* repo.insertProject(name)
        const key = yield* issueKey(project.id, "default", "full")
        return { project_id: project.id, name: project.name, api_key: key.api_key, key_id: key.key_id } satisfies ProjectCreated
      })).pipe(Effect.orDie)
    })

    const createKey = Effect.fn("Projects.createKey")(function*(
      projectId: string,
      input: { readonly name?: string | null; readonly scope?: KeyScope | null }
    ) {
      yield* requireProject(projectId)
      return yield* issueKey(projectId, input.name ?? null, input.scope ?? "full")
    })

    const revokeKey = Effect.fn("Projects.revokeKey")(function*(projectId: string, keyId: string) {
      yield* requireProject(projectId)
      const revoked = isUuid(keyId) ? yield* repo.revokeKey(projectId, keyId) : false
      if (!revoked) return yield* new NotFound({ message: "API key not found" })
    })

    return {
      authenticate,
      create,
      createKey,
      revokeKey,
      requireProject,
      list: repo.listProjects,
      count: repo.countProjects,
      getSetting: repo.getSetting,
      putSetting: repo.putSetting
    } as const
  })
}) {}
