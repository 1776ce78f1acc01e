import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Article, ArticleCreated, CreateArticleInput, UpdateArticleInput } from "../Domain/Article.ts"
import { ConflictWire, NotFoundWire, ValidationErrorWire } from "../Domain/Errors.ts"
import {
  AgentCreated,
  CreateAgentInput,
  CreateKeyInput,
  CreateProjectInput,
  KeyCreated,
  ProjectCreated,
  ProjectList
} from "../Domain/Project.ts"
import { AdminTicket, AgentMessageInput, MessageCreated, UpdateTicketInput } from "../Domain/Ticket.ts"
import { AdminAuth } from "../Http/Security.ts"

const ProjectPath = Schema.Struct({ pid: Schema.String })
const KeyPath = Schema.Struct({ pid: Schema.String, key_id: Schema.String })
const ItemPath = Schema.Struct({ pid: Schema.String, id: Schema.String })
const NoContent = HttpApiSchema.NoContent

export class AdminApi extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("createProject", "/v1/admin/projects")
      .setPayload(CreateProjectInput)
      .addSuccess(ProjectCreated, { status: 201 })
  )
  .add(HttpApiEndpoint.get("listProjects", "/v1/admin/projects").addSuccess(ProjectList))
  .add(
    HttpApiEndpoint.post("createKey", "/v1/admin/projects/:pid/api-keys")
      .setPath(ProjectPath)
      .setPayload(CreateKeyInput)
      .addSuccess(KeyCreated, { status: 201 })
  )
  .add(
    HttpApiEndpoint.del("revokeKey", "/v1/admin/projects/:pid/api-keys/:key_id")
      .setPath(KeyPath)
      .addSuccess(NoContent)
  )
  .add(
    HttpApiEndpoint.post("createArticle", "/v1/admin/projects/:pid/articles")
      .setPath(ProjectPath)
      .setPayload(CreateArticleInput)
      .addSuccess(ArticleCreated, { status: 201 })
  )
  .add(
    HttpApiEndpoint.patch("updateArticle", "/v1/admin/projects/:pid/articles/:id")
      .setPath(ItemPath)
      .setPayload(UpdateArticleInput)
      .addSuccess(Article)
  )
  .add(
    HttpApiEndpoint.del("deleteArticle", "/v1/admin/projects/:pid/articles/:id")
      .setPath(ItemPath)
      .addSuccess(NoContent)
  )
  .add(
    HttpApiEndpoint.post("createAgent", "/v1/admin/projects/:pid/agents")
      .setPath(ProjectPath)
      .setPayload(CreateAgentInput)
      .addSuccess(AgentCreated, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("getTicket", "/v1/admin/projects/:pid/tickets/:id")
      .setPath(ItemPath)
      .addSuccess(AdminTicket)
  )
  .add(
    HttpApiEndpoint.patch("updateTicket", "/v1/admin/projects/:pid/tickets/:id")
      .setPath(ItemPath)
      .setPayload(UpdateTicketInput)
      .addSuccess(AdminTicket)
  )
  .add(
    HttpApiEndpoint.post("addAgentMessage", "/v1/admin/projects/:pid/tickets/:id/messages")
      .setPath(ItemPath)
      .setPayload(AgentMessageInput)
      .addSuccess(MessageCreated, { status: 201 })
  )
  .addError(ValidationErrorWire)
  .addError(NotFoundWire)
  .addError(ConflictWire)
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API")
  .annotate(OpenApi.Description, "Authenticated with the ADMIN_TOKEN setting; not part of the published interface") {}
