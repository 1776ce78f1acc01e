import { Buffer } from "node:buffer"
import { hash, timingSafeEqual } from "node:crypto"

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")

/** `tf_` and 32 random bytes; the key is shown once and only its hash is stored. */
export const newApiKey = () => `tf_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`

/**
 * `ids_` and 32 random bytes: the key of the HS256 tokens a site signs for its visitors. The
 * service verifies with it, so it is kept as it is; it is shown once, when made.
 */
export const newIdentitySecret = () => `ids_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`

export const newAdminToken = () => `adm_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`

// one-shot: a Hash object per call costs several times more
export const sha256 = (text: string): Buffer => hash("sha256", text, "buffer")

/** Compares hashes, so the time taken says nothing about how much of the token was right. */
export const sameSecret = (given: string, expected: string) => timingSafeEqual(sha256(given), sha256(expected))
