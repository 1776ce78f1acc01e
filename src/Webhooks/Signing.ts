import { Buffer } from "node:buffer"
import { createHmac, createSecretKey, type KeyObject } from "node:crypto"

const prefix = "whsec_"

/** `whsec_` and 32 random bytes in standard base64: the form Standard Webhooks verifiers accept. */
export const newSecret = () => `${prefix}${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64")}`

/** `X-Service-Signature`: `sha256=` and the hex HMAC of the exact body, keyed with the whole secret. */
export const serviceSignature = (secret: string, body: string) =>
  // a string key is its UTF-8 bytes; given as a Buffer, Node takes 6 times as long to sign
  `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`

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

/**
 * The Standard Webhooks keys of the secrets in use, decoded once: keyed with a Buffer, an HMAC
 * cost 10 µs of the delivery's time, with a KeyObject under 2. A handful of webhooks at a time
 * is the common case; the cache starts over rather than grow past a bound.
 */
const standardKeys = new Map<string, KeyObject>()
const standardKeyObject = (secret: string) => {
  let key = standardKeys.get(secret)
  if (key === undefined) {
    if (standardKeys.size >= 1000) standardKeys.clear()
    standardKeys.set(secret, key = createSecretKey(standardKey(secret)))
  }
  return key
}

/** `webhook-signature`: `v1,` and the base64 HMAC of `{id}.{timestamp}.{body}`. */
export const standardSignature = (secret: string, deliveryId: string, timestamp: number, body: string) =>
  `v1,${createHmac("sha256", standardKeyObject(secret)).update(`${deliveryId}.${timestamp}.${body}`, "utf8").digest("base64")}`

/**
 * Every header of one attempt, CONTRACT's and Standard Webhooks'. `secrets` are the current one
 * first, then one rotated out that still signs: `X-Service-Signature` carries the current one,
 * `webhook-signature` one signature for each, space-separated as Standard Webhooks allows.
 */
export const deliveryHeaders = (options: {
  readonly secrets: ReadonlyArray<string>
  readonly deliveryId: string
  readonly event: string
  readonly body: string
  readonly timestamp: number
  readonly userAgent: string
}): Record<string, string> => ({
  "content-type": "application/json",
  "user-agent": options.userAgent,
  "x-service-event": options.event,
  "x-service-signature": serviceSignature(options.secrets[0]!, options.body),
  "x-service-delivery": options.deliveryId,
  "x-service-timestamp": String(options.timestamp),
  "webhook-id": options.deliveryId,
  "webhook-timestamp": String(options.timestamp),
  "webhook-signature": options.secrets.map((secret) =>
    standardSignature(secret, options.deliveryId, options.timestamp, options.body)
  ).join(" ")
})
