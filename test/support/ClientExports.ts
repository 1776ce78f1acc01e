/** What the client's entry point exports, sorted: the package and the tarball must both offer exactly this. */
export const clientExports = [
  "ApiError",
  "NetworkError",
  "SupportClientError",
  "TimeoutError",
  "WebhookVerificationError",
  "backoffDelay",
  "clientVersion",
  "createClient",
  "verifyWebhook"
]
