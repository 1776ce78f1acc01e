import { Context, Effect, Layer, Option } from "effect"
import { Conflict } from "../Domain/Errors.ts"
import type { ProjectId } from "../Domain/Ids.ts"
import type { AgentCreated } from "../Domain/Project.ts"
import { Projects } from "../Projects/Projects.ts"
import { AgentsRepo } from "./Repo.ts"

/** The people who answer tickets: assignees, authors of replies, receivers of notifications. */
export class Agents extends Context.Service<Agents>()("app/Admin/Agents", {
  make: Effect.gen(function*() {
    const repo = yield* AgentsRepo
    const projects = yield* Projects

    const create = Effect.fn("Agents.create")(function*(projectId: ProjectId, email: string, name: string) {
      yield* projects.requireProject(projectId)
      const agent = yield* repo.insert(projectId, email, name)
      if (Option.isNone(agent)) return yield* new Conflict({ message: `an agent with email ${email} exists` })
      return { agent_id: agent.value.id, email: agent.value.email, name: agent.value.name } satisfies AgentCreated
    })

    const list = Effect.fn("Agents.list")(function*(projectId: ProjectId) {
      yield* projects.requireProject(projectId)
      return { agents: yield* repo.list(projectId) }
    })

    /** The project's agent with this address; the project must exist (404 otherwise). */
    const findInProject = (projectId: ProjectId, email: string) =>
      Effect.andThen(projects.requireProject(projectId), repo.findByEmail(projectId, email))

    return { create, list, findInProject }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([AgentsRepo.layer, Projects.layer]))
}
