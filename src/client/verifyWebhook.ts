import { WebhookVerificationError } from "./Errors.ts"
import type { WebhookEvent } from "./Types.ts"

/** What `verifyWebhook` needs from one delivery. */
export interface WebhookDelivery {
  /** The endpoint's secret, as the service gave it at registration or rotation (`whsec_…`). */
  readonly secret: string
  /**
   * The request body exactly as received, before any JSON parsing: a string or the raw bytes.
   * A re-serialized object would not match the signature.
   */
  readonly body: string | Uint8Array | ArrayBuffer
  /** The `X-Service-Signature` header: `sha256=` and a hex HMAC-SHA256 of the body. */
  readonly signature: string | null | undefined
}

const encoder = new TextEncoder()

const bytesOf = (body: WebhookDelivery["body"]) => {
  if (typeof body === "string") return encoder.encode(body)
  // a copy: WebCrypto takes no view of a SharedArrayBuffer
  if (body instanceof Uint8Array) return new Uint8Array(body)
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  throw new TypeError("body must be the raw request body (a string, Uint8Array or ArrayBuffer), not parsed JSON")
}

const hexToBytes = (hex: string): Uint8Array | undefined => {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined
  const bytes = new Uint8Array(hex.length / 2)
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

/** Compares every byte whatever the first difference, so the time taken tells nothing of where it is. */
const constantTimeEqual = (a: Uint8Array, b: Uint8Array) => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!
  return difference === 0
}

/**
 * WebCrypto's `subtle`: a global in browsers, Deno, Bun, edge runtimes and Node 19+. Node 18 keeps
 * it in `node:crypto`, loaded only there, through a name bundlers do not follow.
 */
const subtleCrypto = async (): Promise<SubtleCrypto> => {
  const global = (globalThis as { crypto?: Crypto }).crypto
  if (global?.subtle !== undefined) return global.subtle
  const nodeCrypto = "node:crypto"
  const module = (await import(/* @vite-ignore */ nodeCrypto)) as { webcrypto?: { subtle?: SubtleCrypto } }
  if (module.webcrypto?.subtle === undefined) throw new TypeError("this runtime has no WebCrypto")
  return module.webcrypto.subtle
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Checks that a webhook delivery comes from the service and returns its event.
 *
 * Recomputes the HMAC-SHA256 of the raw body with the endpoint secret (WebCrypto) and compares it
 * with `X-Service-Signature` in constant time. Rejects with `WebhookVerificationError` when the
 * header is missing or malformed, the signature does not match, or the signed body is not an event.
 *
 * ```ts
 * const event = await verifyWebhook({ secret, body: await request.text(), signature: request.headers.get("x-service-signature") })
 * if (event.event === "ticket_created") console.log(event.data.subject)
 * ```
 */
export const verifyWebhook = async (delivery: WebhookDelivery): Promise<WebhookEvent> => {
  if (typeof delivery?.secret !== "string" || delivery.secret === "") throw new TypeError("secret is required")
  const body = bytesOf(delivery.body)
  const header = delivery.signature?.trim()
  if (header === undefined || header === "") throw new WebhookVerificationError("the signature header is missing")
  const expected = header.startsWith("sha256=") ? hexToBytes(header.slice(7)) : undefined
  if (expected === undefined || expected.length !== 32) {
    throw new WebhookVerificationError("the signature header is not sha256=<64 hex digits>")
  }
  const subtle = await subtleCrypto()
  const key = await subtle.importKey("raw", encoder.encode(delivery.secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign"
  ])
  const actual = new Uint8Array(await subtle.sign("HMAC", key, body))
  if (!constantTimeEqual(actual, expected)) throw new WebhookVerificationError("the signature does not match the body")
  let event: unknown
  try {
    event = JSON.parse(new TextDecoder().decode(body))
  } catch {
    throw new WebhookVerificationError("the signed body is not JSON")
  }
  if (!isObject(event) || typeof event.event !== "string" || typeof event.timestamp !== "string" || !isObject(event.data)) {
    throw new WebhookVerificationError("the signed body is not a webhook event")
  }
  return event as unknown as WebhookEvent
}
