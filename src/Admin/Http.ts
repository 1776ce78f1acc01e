import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Articles } from "../Articles/Articles.ts"
import { Projects } from "../Projects/Projects.ts"
import { Tickets } from "../Tickets/Tickets.ts"
import { Agents } from "./Agents.ts"

export const AdminHttpLive = HttpApiBuilder.group(Api, "admin", (handlers) =>
  Effect.gen(function*() {
    const projects = yield* Projects
    const articles = yield* Articles
    const tickets = yield* Tickets
    const agents = yield* Agents
    /** Every path under a project first checks that the project exists. */
    const inProject = <A, E>(projectId: string, effect: Effect.Effect<A, E>) =>
      Effect.andThen(projects.requireProject(projectId), effect)
    return handlers
      .handle("createProject", ({ payload }) => projects.create(payload.name))
      .handle("listProjects", () => Effect.map(projects.list, (list) => ({ projects: list })))
      .handle("createKey", ({ params, payload }) => projects.createKey(params.pid, payload))
      .handle("listKeys", ({ params }) => projects.listKeys(params.pid))
      .handle("revokeKey", ({ params }) => projects.revokeKey(params.pid, params.key_id))
      .handle("createArticle", ({ params, payload }) => inProject(params.pid, articles.create(params.pid, payload)))
      .handle("listArticles", ({ params, query }) => inProject(params.pid, articles.list(params.pid, query)))
      .handle("getArticle", ({ params }) => inProject(params.pid, articles.get(params.pid, params.id)))
      .handle("updateArticle", ({ params, payload }) =>
        inProject(params.pid, articles.update(params.pid, params.id, payload)))
      .handle("deleteArticle", ({ params }) => inProject(params.pid, articles.remove(params.pid, params.id)))
      .handle("createAgent", ({ params, payload }) => agents.create(params.pid, payload.email, payload.name))
      .handle("listAgents", ({ params }) => agents.list(params.pid))
      .handle("listTickets", ({ params, query }) => inProject(params.pid, tickets.list(params.pid, query)))
      .handle("getTicket", ({ params }) => inProject(params.pid, tickets.adminGet(params.pid, params.id)))
      .handle("updateTicket", ({ params, payload }) =>
        inProject(params.pid, tickets.adminUpdate(params.pid, params.id, payload)))
      .handle("addAgentMessage", ({ params, payload }) =>
        inProject(params.pid, tickets.addAgentMessage(params.pid, params.id, payload)))
  }))
