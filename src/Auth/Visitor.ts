import { Clock, Effect } from "effect"
import { errors, jwtVerify } from "jose"
import { Unauthorized } from "../Domain/Errors.ts"
import { isEmail } from "../Domain/Fields.ts"
import type { VerifiedVisitor } from "../Domain/Visitor.ts"

/** The clock difference allowed between the site's backend and this service. */
const clockToleranceSeconds = 60
/** A token may live a day at most: a leaked one is worth little for long. */
const longestLifeSeconds = 24 * 60 * 60

const refused = (why: string) => new Unauthorized({ message: `the visitor token (X-Visitor-Token) ${why}` })

const encoder = new TextEncoder()

/** What each failure of jose's checks tells the site's developer; never anything of the secret. */
const explain = (error: unknown): Unauthorized => {
  if (error instanceof errors.JWTExpired) {
    const exp = typeof error.payload.exp === "number" ? ` at ${new Date(error.payload.exp * 1000).toISOString()}` : ""
    return refused(`expired${exp}: sign a fresh one when the page is served`)
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return refused("has a signature that this project's identity secret does not verify: sign it with HS256 and the project's current identity secret")
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return refused("must be signed with HS256")
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return error.claim === "nbf" || error.claim === "iat"
      ? refused(`is not valid yet (its ${error.claim} claim is in the future)`)
      : refused(`has a bad ${error.claim} claim: ${error.reason === "missing" ? "it is required" : error.message}`)
  }
  return refused("is not a JWT: three base64url parts separated by dots, signed with HS256")
}

/**
 * The visitor a token names, when the project's identity secret verifies it (HS256, with `sub`
 * and `exp`, at most a day long, 60 s of clock difference allowed); else 401 saying which check
 * failed.
 */
export const verifyVisitor = (token: string, identitySecret: string | null) =>
  Effect.gen(function*() {
    if (identitySecret === null) {
      return yield* refused("was sent, but this project has no identity secret: create one with the operator API or `npm run cli -- identity secret`")
    }
    const { payload } = yield* Effect.tryPromise({
      try: () =>
        jwtVerify(token, encoder.encode(identitySecret), {
          algorithms: ["HS256"],
          clockTolerance: clockToleranceSeconds,
          requiredClaims: ["sub", "exp"]
        }),
      catch: explain
    })
    const { sub, exp, iat, email, name } = payload
    if (typeof sub !== "string" || sub.length === 0 || sub.length > 255) {
      return yield* refused("has a bad sub claim: it must be the user's id, 1 to 255 characters")
    }
    const issuedAt = typeof iat === "number" ? iat : Math.floor((yield* Clock.currentTimeMillis) / 1000)
    if (typeof exp === "number" && exp - issuedAt > longestLifeSeconds + clockToleranceSeconds) {
      return yield* refused("lives too long: exp may be at most 24 hours after iat")
    }
    if (email !== undefined && (typeof email !== "string" || !isEmail(email.trim().toLowerCase()))) {
      return yield* refused("has a bad email claim: it must be an email address")
    }
    if (name !== undefined && (typeof name !== "string" || name.length > 200)) {
      return yield* refused("has a bad name claim: it must be text of at most 200 characters")
    }
    return {
      sub,
      email: typeof email === "string" ? email.trim().toLowerCase() : null,
      name: typeof name === "string" && name.trim() !== "" ? name.trim() : null
    } satisfies VerifiedVisitor
  })
