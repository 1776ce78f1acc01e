import { hash, timingSafeEqual } from "node:crypto"

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")

/** `tf_` and 32 random bytes; the key is shown once and only its hash is stored. */
export const newApiKey = () => `tf_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`

export const newAdminToken = () => `adm_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`

// the one-shot hash: every request hashes its key, and a Hash object per call costs several times more
export const sha256 = (text: string): Buffer => hash("sha256", text, "buffer")

/** The same hash as text, cheaper again: what the key cache is keyed by. */
export const sha256Base64 = (text: string): string => hash("sha256", text, "base64")

/** Compares hashes, so the time taken says nothing about how much of the token was right. */
export const sameSecret = (given: string, expected: string) => timingSafeEqual(sha256(given), sha256(expected))
