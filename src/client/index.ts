/**
 * The TypeScript client of the support-ticketing service: no dependencies, native `fetch`, and
 * retries with exponential backoff and jitter. Runs unchanged in Node 18+, Deno, Bun, browsers
 * and edge runtimes.
 *
 * @module
 */
export {
  type AddMessageOptions,
  type CallOptions,
  type ClientOptions,
  clientVersion,
  createClient,
  type CreateOptions,
  type RetryInfo,
  type SupportClient
} from "./Client.ts"
export { ApiError, NetworkError, SupportClientError, TimeoutError, WebhookVerificationError } from "./Errors.ts"
export { backoffDelay } from "./Retry.ts"
export type * from "./Types.ts"
export { verifyWebhook, type WebhookDelivery } from "./verifyWebhook.ts"
