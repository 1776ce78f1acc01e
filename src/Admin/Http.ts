import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../Api.ts"
import { Articles } from "../Articles/Articles.ts"
import { Conflict } from "../Domain/Errors.ts"
import { Projects } from "../Projects/Projects.ts"
import { Tickets } from "../Tickets/Tickets.ts"
import { AgentsRepo } from "./Repo.ts"

export const AdminHttpLive = HttpApiBuilder.group(Api, "admin", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* Projects
    const articles = yield* Articles
    const tickets = yield* Tickets
    const agents = yield* AgentsRepo
    return handlers
      .handle("createProject", ({ payload }) => projects.create(payload.name))
      .handle("listProjects", () => Effect.map(projects.list, (list) => ({ projects: list })))
      .handle("createKey", ({ path, payload }) => projects.createKey(path.pid, payload))
      .handle("revokeKey", ({ path }) => projects.revokeKey(path.pid, path.key_id))
      .handle("createArticle", ({ path, payload }) =>
        Effect.zipRight(projects.requireProject(path.pid), articles.create(path.pid, payload)))
      .handle("updateArticle", ({ path, payload }) =>
        Effect.zipRight(projects.requireProject(path.pid), articles.update(path.pid, path.id, payload)))
      .handle("deleteArticle", ({ path }) =>
        Effect.zipRight(projects.requireProject(path.pid), articles.remove(path.pid, path.id)))
      .handle("createAgent", ({ path, payload }) =>
        Effect.gen(function*() {
          yield* projects.requireProject(path.pid)
          const agent = yield* agents.insert(path.pid, payload.email, payload.name)
          if (agent === undefined) return yield* new Conflict({ message: `an agent with email ${payload.email} exists` })
          return { agent_id: agent.id, email: agent.email, name: agent.name }
        }))
      .handle("getTicket", ({ path }) =>
        Effect.zipRight(projects.requireProject(path.pid), tickets.adminGet(path.pid, path.id)))
      .handle("updateTicket", ({ path, payload }) =>
        Effect.zipRight(projects.requireProject(path.pid), tickets.adminUpdate(path.pid, path.id, payload)))
      .handle("addAgentMessage", ({ path, payload }) =>
        Effect.zipRight(projects.requireProject(path.pid), tickets.addAgentMessage(path.pid, path.id, payload)))
  }))
