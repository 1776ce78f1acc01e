import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuth, MailAuth } from "../Auth/Api.ts"
import { Conflict, Forbidden, InternalError, NotFound, PayloadTooLarge, RateLimited, ValidationError } from "../Domain/Errors.ts"
import { Email } from "../Domain/Fields.ts"
import { pathParam, ProjectId } from "../Domain/Ids.ts"
import { InboundResult, MailSettings } from "../Domain/Mail.ts"

const rawMail = (contentType: string) =>
  Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType })).annotate({
    description: "the whole mail as it arrived (RFC 5322), headers and body"
  })

export class MailApi extends HttpApiGroup.make("mail")
  .add(
    HttpApiEndpoint.post("inbound", "/v1/inbound/mail", {
      payload: [rawMail("message/rfc822"), rawMail("application/octet-stream")],
      success: InboundResult.pipe(HttpApiSchema.status(202)),
      error: [ValidationError.wire, Forbidden.wire, PayloadTooLarge.wire, RateLimited.wire, InternalError.wire]
    }).annotate(
      OpenApi.Summary,
      "Take a raw mail (a mail provider's inbound webhook): a new ticket with source email, or a message on the ticket it answers; full keys"
    )
  )
  .middleware(MailAuth)
  .annotate(OpenApi.Title, "Inbound mail")
  .annotate(
    OpenApi.Description,
    "The HTTP door for mail; the SMTP listener (SMTP_LISTEN_PORT) is the other. Auto-replies, bounces, list mail and the service's own mail are ignored; a mail delivered twice files once."
  ) {}

const ProjectPath = { pid: pathParam(ProjectId) }

export const MailSettingsInput = Schema.Struct({
  inbound_address: Schema.NullOr(Email("inbound_address")).annotate({
    description: "the address, without +tag; null stops taking mail"
  })
}).annotate({ message: "request body must be a JSON object", identifier: "MailSettingsInput" })

export class MailAdminApi extends HttpApiGroup.make("mailAdmin")
  .add(
    HttpApiEndpoint.get("getMail", "/v1/admin/projects/:pid/mail", {
      params: ProjectPath,
      success: MailSettings,
      error: [NotFound.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "The project's inbound mail address"),
    HttpApiEndpoint.put("updateMail", "/v1/admin/projects/:pid/mail", {
      params: ProjectPath,
      payload: MailSettingsInput,
      success: MailSettings,
      error: [ValidationError.wire, NotFound.wire, Conflict.wire, InternalError.wire]
    }).annotate(OpenApi.Summary, "Set the address mail to the project is sent to (409 when another project has it), or null")
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Operator API: mail")
  .annotate(
    OpenApi.Description,
    "Where a project takes mail: its inbound address, to point an MX, a relay or a provider's inbound route at"
  ) {}

