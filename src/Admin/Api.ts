import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Article,
  ArticleCreated,
  ArticleList,
  ArticleListQuery,
  CreateArticleInput,
  UpdateArticleInput
} from "../Domain/Article.ts"
import { Conflict, InternalError, NotFound, PayloadTooLarge, ValidationError } from "../Domain/Errors.ts"
import { ApiKeyId, ArticleId, pathParam, ProjectId, TicketId } from "../Domain/Ids.ts"
import {
  AgentCreated,
  AgentList,
  ApiKeyList,
  ApiKeySummary,
  CreateAgentInput,
  CreateKeyInput,
  CreateProjectInput,
  IdentitySecretCreated,
  KeyCreated,
  ProjectCreated,
  ProjectIdentity,
  ProjectList,
  UpdateIdentityInput,
  UpdateKeyInput
} from "../Domain/Project.ts"
import {
  AdminTicket,
  AgentMessageInput,
  MessageCreated,
  TicketList,
  TicketListQuery,
  UpdateTicketInput
} from "../Domain/Ticket.ts"
import { AdminAuth } from "../Auth/Api.ts"

const ProjectPath = { pid: pathParam(ProjectId) }
const KeyPath = { ...ProjectPath, key_id: pathParam(ApiKeyId) }
const ArticleItemPath = { ...ProjectPath, id: pathParam(ArticleId) }
const TicketItemPath = { ...ProjectPath, id: pathParam(TicketId) }
const error = [ValidationError.wire, NotFound.wire, Conflict.wire, PayloadTooLarge.wire, InternalError.wire]

export class AdminApi extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("createProject", "/v1/admin/projects", {
      payload: CreateProjectInput,
      success: ProjectCreated.pipe(HttpApiSchema.status(201)),
      error
    }),
    HttpApiEndpoint.get("listProjects", "/v1/admin/projects", { success: ProjectList, error }),
    HttpApiEndpoint.post("createKey", "/v1/admin/projects/:pid/api-keys", {
      params: ProjectPath,
      payload: CreateKeyInput,
      success: KeyCreated.pipe(HttpApiSchema.status(201)),
      error
    }),
    HttpApiEndpoint.get("listKeys", "/v1/admin/projects/:pid/api-keys", { params: ProjectPath, success: ApiKeyList, error })
      .annotate(OpenApi.Summary, "List the project's API keys, newest first, without the keys themselves"),
    HttpApiEndpoint.patch("updateKey", "/v1/admin/projects/:pid/api-keys/:key_id", {
      params: KeyPath,
      payload: UpdateKeyInput,
      success: ApiKeySummary,
      error
    }).annotate(
      OpenApi.Summary,
      "Set the key's own rate limit, in requests a minute, or null for the service's; counted from its next request"
    ),
    HttpApiEndpoint.delete("revokeKey", "/v1/admin/projects/:pid/api-keys/:key_id", {
      params: KeyPath,
      success: HttpApiSchema.NoContent,
      error
    }),
    HttpApiEndpoint.post("createIdentitySecret", "/v1/admin/projects/:pid/identity-secret", {
      params: ProjectPath,
      success: IdentitySecretCreated.pipe(HttpApiSchema.status(201)),
      error
    }).annotate(
      OpenApi.Summary,
      "Create or rotate the secret that signs the project's visitor tokens (HS256); shown only in this answer"
    ),
    HttpApiEndpoint.delete("removeIdentitySecret", "/v1/admin/projects/:pid/identity-secret", {
      params: ProjectPath,
      success: HttpApiSchema.NoContent,
      error
    }).annotate(OpenApi.Summary, "Remove the identity secret; verified visitors are no longer required"),
    HttpApiEndpoint.get("getIdentity", "/v1/admin/projects/:pid/identity", {
      params: ProjectPath,
      success: ProjectIdentity,
      error
    }).annotate(OpenApi.Summary, "Whether the project has an identity secret and requires verified visitors (never the secret)"),
    HttpApiEndpoint.patch("updateIdentity", "/v1/admin/projects/:pid/identity", {
      params: ProjectPath,
      payload: UpdateIdentityInput,
      success: ProjectIdentity,
      error
    }).annotate(
      OpenApi.Summary,
      "Require verified visitors of the project's widget keys, or stop requiring them; 409 without an identity secret"
    ),
    HttpApiEndpoint.post("createArticle", "/v1/admin/projects/:pid/articles", {
      params: ProjectPath,
      payload: CreateArticleInput,
      success: ArticleCreated.pipe(HttpApiSchema.status(201)),
      error
    }),
    HttpApiEndpoint.get("listArticles", "/v1/admin/projects/:pid/articles", {
      params: ProjectPath,
      query: ArticleListQuery,
      success: ArticleList,
      error
    }).annotate(OpenApi.Summary, "List the project's articles, published or not, newest first, a page at a time"),
    HttpApiEndpoint.get("getArticle", "/v1/admin/projects/:pid/articles/:id", {
      params: ArticleItemPath,
      success: Article,
      error
    }),
    HttpApiEndpoint.patch("updateArticle", "/v1/admin/projects/:pid/articles/:id", {
      params: ArticleItemPath,
      payload: UpdateArticleInput,
      success: Article,
      error
    }),
    HttpApiEndpoint.delete("deleteArticle", "/v1/admin/projects/:pid/articles/:id", {
      params: ArticleItemPath,
      success: HttpApiSchema.NoContent,
      error
    }),
    HttpApiEndpoint.post("createAgent", "/v1/admin/projects/:pid/agents", {
      params: ProjectPath,
      payload: CreateAgentInput,
      success: AgentCreated.pipe(HttpApiSchema.status(201)),
      error
    }),
    HttpApiEndpoint.get("listAgents", "/v1/admin/projects/:pid/agents", { params: ProjectPath, success: AgentList, error })
      .annotate(OpenApi.Summary, "List the project's agents by email"),
    HttpApiEndpoint.get("listTickets", "/v1/admin/projects/:pid/tickets", {
      params: ProjectPath,
      query: TicketListQuery,
      success: TicketList,
      error
    }).annotate(OpenApi.Summary, "List the project's tickets with filters, newest or recently updated first, a page at a time"),
    HttpApiEndpoint.get("getTicket", "/v1/admin/projects/:pid/tickets/:id", {
      params: TicketItemPath,
      success: AdminTicket,
      error
    }),
    HttpApiEndpoint.patch("updateTicket", "/v1/admin/projects/:pid/tickets/:id", {
      params: TicketItemPath,
      payload: UpdateTicketInput,
      success: AdminTicket,
      error
    }),
    HttpApiEndpoint.post("addAgentMessage", "/v1/admin/projects/:pid/tickets/:id/messages", {
      params: TicketItemPath,
      payload: AgentMessageInput,
      success: MessageCreated.pipe(HttpApiSchema.status(201)),
      error
    })
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API")
  .annotate(OpenApi.Description, "Authenticated with the ADMIN_TOKEN setting; not part of the published interface") {}
