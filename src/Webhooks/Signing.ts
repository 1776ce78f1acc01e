import { createHmac } from "node:crypto"

const prefix = "whsec_"

/** `whsec_` and 32 random bytes in standard base64: the form Standard Webhooks verifiers accept. */
export const newSecret = () => `${prefix}${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`

/** `X-Service-Signature`: `sha256=` and the hex HMAC of the exact body, keyed with the whole secret. */
export const serviceSignature = (secret: string, body: string) =>
  `sha256=${createHmac("sha256", Buffer.from(secret, "utf8")).update(body, "utf8").digest("hex")}`

/**
 * The Standard Webhooks key: the base64 part of a `whsec_` secret. A secret given in another
 * form keys with its UTF-8 bytes, which those verifiers accept as a raw secret.
 */
const standardKey = (secret: string) => {
  const encoded = secret.startsWith(prefix) ? secret.slice(prefix.length) : undefined
  return encoded !== undefined && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded)
    ? Buffer.from(encoded, "base64")
    : Buffer.from(secret, "utf8")
}

/** `webhook-signature`: `v1,` and the base64 HMAC of `{id}.{timestamp}.{body}`. */
export const standardSignature = (secret: string, deliveryId: string, timestamp: number, body: string) =>
  `v1,${createHmac("sha256", standardKey(secret)).update(`${deliveryId}.${timestamp}.${body}`, "utf8").digest("base64")}`

/** Every header of one attempt, CONTRACT's and Standard Webhooks'. */
export const deliveryHeaders = (options: {
  readonly secret: string
  readonly deliveryId: string
  readonly event: string
  readonly body: string
  readonly timestamp: number
  readonly userAgent: string
}): Record<string, string> => ({
  "content-type": "application/json",
  "user-agent": options.userAgent,
  "x-service-event": options.event,
  "x-service-signature": serviceSignature(options.secret, options.body),
  "x-service-delivery": options.deliveryId,
  "x-service-timestamp": String(options.timestamp),
  "webhook-id": options.deliveryId,
  "webhook-timestamp": String(options.timestamp),
  "webhook-signature": standardSignature(options.secret, options.deliveryId, options.timestamp, options.body)
})
