import { Effect, Schema, SchemaGetter, SchemaParser } from "effect"

/**
 * A uuid of ours, as text from outside (a path, a cursor, a command line) brings it: an id that is
 * not one names nothing, so it fails with the message the API gives for its resource not found.
 */
const uuid = (notFound: string) => Schema.String.check(Schema.isGUID({ message: notFound }))

export const ProjectId = uuid("project not found").pipe(Schema.brand("ProjectId"))
export type ProjectId = typeof ProjectId.Type
export const TicketId = uuid("ticket not found").pipe(Schema.brand("TicketId"))
export type TicketId = typeof TicketId.Type
export const MessageId = uuid("message not found").pipe(Schema.brand("MessageId"))
export type MessageId = typeof MessageId.Type
export const ContactId = uuid("contact not found").pipe(Schema.brand("ContactId"))
export type ContactId = typeof ContactId.Type
export const AgentId = uuid("agent not found").pipe(Schema.brand("AgentId"))
export type AgentId = typeof AgentId.Type
export const ArticleId = uuid("article not found").pipe(Schema.brand("ArticleId"))
export type ArticleId = typeof ArticleId.Type
export const ApiKeyId = uuid("API key not found").pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type
export const WebhookId = uuid("webhook not found").pipe(Schema.brand("WebhookId"))
export type WebhookId = typeof WebhookId.Type
export const DeliveryId = uuid("delivery not found").pipe(Schema.brand("DeliveryId"))
export type DeliveryId = typeof DeliveryId.Type
export const RuleId = uuid("automation rule not found").pipe(Schema.brand("RuleId"))
export type RuleId = typeof RuleId.Type
export const AttachmentId = uuid("attachment not found").pipe(Schema.brand("AttachmentId"))
export type AttachmentId = typeof AttachmentId.Type
export const SlaPolicyId = uuid("SLA policy not found").pipe(Schema.brand("SlaPolicyId"))
export type SlaPolicyId = typeof SlaPolicyId.Type
/** A satisfaction link's secret: `csat_` and 32 random bytes, base64url; anything else names no rating. */
export const RatingToken = Schema.String.check(Schema.isPattern(/^csat_[A-Za-z0-9_-]{43}$/, { message: "rating not found" }))
  .pipe(Schema.brand("RatingToken"))
export type RatingToken = typeof RatingToken.Type
export const CustomFieldId = uuid("custom field not found").pipe(Schema.brand("CustomFieldId"))
export type CustomFieldId = typeof CustomFieldId.Type

/*
 * The same ids as a uuid column gives them back, for row schemas: branded without the check,
 * which the column's type has already made (the check costs 100-150 ns an id, on every row of
 * the ticket read and the lists).
 */
export const ProjectIdFromRow = Schema.String.pipe(Schema.brand("ProjectId"))
export const TicketIdFromRow = Schema.String.pipe(Schema.brand("TicketId"))
export const MessageIdFromRow = Schema.String.pipe(Schema.brand("MessageId"))
export const ContactIdFromRow = Schema.String.pipe(Schema.brand("ContactId"))
export const AgentIdFromRow = Schema.String.pipe(Schema.brand("AgentId"))
export const ArticleIdFromRow = Schema.String.pipe(Schema.brand("ArticleId"))
export const ApiKeyIdFromRow = Schema.String.pipe(Schema.brand("ApiKeyId"))
export const WebhookIdFromRow = Schema.String.pipe(Schema.brand("WebhookId"))
export const DeliveryIdFromRow = Schema.String.pipe(Schema.brand("DeliveryId"))
export const RuleIdFromRow = Schema.String.pipe(Schema.brand("RuleId"))
export const AttachmentIdFromRow = Schema.String.pipe(Schema.brand("AttachmentId"))
export const SlaPolicyIdFromRow = Schema.String.pipe(Schema.brand("SlaPolicyId"))
export const CustomFieldIdFromRow = Schema.String.pipe(Schema.brand("CustomFieldId"))

const pathParams = new Map<Schema.Top, Schema.Codec<string, string>>()

/**
 * `id` as a path parameter: the server decodes it with `id`, so a malformed one fails with the
 * not-found message `id` carries, which Http/Failures answers as that 404. A caller's typed client
 * sends it as given, unchecked and typed as text, so it can name any path and hear the server's
 * answer; the handler brands the checked text with `id`. One schema per id, shared by every path
 * that names it.
 */
export const pathParam = <S extends Schema.Codec<string, string> & { readonly DecodingServices: never }>(
  id: S
): Schema.Codec<string, string> => {
  const known = pathParams.get(id)
  if (known !== undefined) return known
  const isId = Schema.is(id)
  const decodeId = SchemaParser.decodeUnknownEffect(id)
  const param = Schema.String.pipe(Schema.decodeTo(Schema.String, {
    // the check alone for a well-formed id; only a malformed one is decoded in full, for its issue
    decode: SchemaGetter.transformEffect((text: string) => isId(text) ? Effect.succeed(text) : Effect.as(decodeId(text), text)),
    encode: SchemaGetter.passthrough()
  }))
  pathParams.set(id, param)
  return param
}
