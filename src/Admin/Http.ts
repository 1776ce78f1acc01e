import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { ActingAgent } from "../Auth/Api.ts"
import { Articles } from "../Articles/Articles.ts"
import { ApiKeyId, ArticleId, ProjectId, TicketId } from "../Domain/Ids.ts"
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
    const inProject = <A, E>(pid: string, work: (projectId: ProjectId) => Effect.Effect<A, E>) => {
      const projectId = ProjectId.make(pid)
      return Effect.andThen(projects.requireProject(projectId), work(projectId))
    }
    return handlers
      .handle("createProject", ({ payload }) => projects.create(payload.name))
      .handle("listProjects", () => Effect.map(projects.list, (list) => ({ projects: list })))
      .handle("createKey", ({ params, payload }) => projects.createKey(ProjectId.make(params.pid), payload))
      .handle("listKeys", ({ params }) => projects.listKeys(ProjectId.make(params.pid)))
      .handle("updateKey", ({ params, payload }) =>
        projects.updateKey(ProjectId.make(params.pid), ApiKeyId.make(params.key_id), payload))
      .handle("revokeKey", ({ params }) => projects.revokeKey(ProjectId.make(params.pid), ApiKeyId.make(params.key_id)))
      .handle("createIdentitySecret", ({ params }) => projects.createIdentitySecret(ProjectId.make(params.pid)))
      .handle("removeIdentitySecret", ({ params }) => projects.removeIdentitySecret(ProjectId.make(params.pid)))
      .handle("getIdentity", ({ params }) => projects.getIdentity(ProjectId.make(params.pid)))
      .handle("updateIdentity", ({ params, payload }) => projects.updateIdentity(ProjectId.make(params.pid), payload))
      .handle("createArticle", ({ params, payload }) => inProject(params.pid, (pid) => articles.create(pid, payload)))
      .handle("listArticles", ({ params, query }) => inProject(params.pid, (pid) => articles.list(pid, query)))
      .handle("getArticle", ({ params }) => inProject(params.pid, (pid) => articles.get(pid, ArticleId.make(params.id))))
      .handle("updateArticle", ({ params, payload }) =>
        inProject(params.pid, (pid) => articles.update(pid, ArticleId.make(params.id), payload)))
      .handle("deleteArticle", ({ params }) =>
        inProject(params.pid, (pid) => articles.remove(pid, ArticleId.make(params.id))))
      .handle("createAgent", ({ params, payload }) => agents.create(ProjectId.make(params.pid), payload.email, payload.name))
      .handle("listAgents", ({ params }) => agents.list(ProjectId.make(params.pid)))
      .handle("listTickets", ({ params, query }) => inProject(params.pid, (pid) => tickets.list(pid, query)))
      .handle("getTicket", ({ params }) => inProject(params.pid, (pid) => tickets.adminGet(pid, TicketId.make(params.id))))
      .handle("updateTicket", ({ params, payload }) =>
        inProject(params.pid, (pid) => tickets.adminUpdate(pid, TicketId.make(params.id), payload)))
      .handle("addAgentMessage", ({ params, payload }) =>
        inProject(params.pid, (pid) => tickets.addAgentMessage(pid, TicketId.make(params.id), payload)).pipe(
          // a reply's author acted, unless X-Agent-Email named who wrote it in their name
          Effect.tap(() =>
            Effect.gen(function*() {
              if (payload.author_email != null) yield* (yield* ActingAgent).actAs(payload.author_email)
            })
          )
        ))
  }))
