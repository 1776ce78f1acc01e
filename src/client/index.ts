/**
 * The TypeScript client of the support-ticketing service: no dependencies, native `fetch`,
 * retries with exponential backoff and jitter, and event streams that reconnect by themselves. Runs unchanged in Node 18+, Deno, Bun, browsers
 * and edge runtimes.
 *
 * @module
 */
export {
  type AddMessageOptions,
  type CallOptions,
  type ClaimTicketOptions,
  type ClientOptions,
  clientVersion,
  createClient,
  type CreateOptions,
  type DownloadAttachmentOptions,
  type DownloadedAttachment,
  type EventStream,
  type GetTicketOptions,
  type ListVisitorTicketsOptions,
  type RetryInfo,
  type StreamOptions,
  type SupportClient,
  type TicketAccessOptions,
  type TicketStreamOptions,
  type UploadFileOptions
} from "./Client.ts"
export { ApiError, NetworkError, SupportClientError, TimeoutError, WebhookVerificationError } from "./Errors.ts"
export { backoffDelay } from "./Retry.ts"
export type * from "./Types.ts"
export { verifyWebhook, type WebhookDelivery } from "./verifyWebhook.ts"
