import { Schema } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import type { CurrentKey } from "../Auth/Api.ts"
import { Conflict, ValidationError } from "../Domain/Errors.ts"

/** The header, declared on each endpoint that takes it: the OpenAPI document and the typed client show it. */
export const IdempotencyHeaders = {
  "idempotency-key": Schema.optionalKey(Schema.String.annotate({
    description: "1 to 255 characters; a repeat within 24 hours gets the first answer, with Idempotent-Replayed: true"
  }))
}

/**
 * `Idempotency-Key` on a POST that creates something: the first answer is kept for 24 hours and
 * a repeat gets it again, a repeat still in flight gets 409 with Retry-After, and the same key
 * with another request gets 409. Runs inside the project's authentication, whose key it needs.
 */
export class Idempotent extends HttpApiMiddleware.Service<Idempotent, { requires: CurrentKey }>()(
  "app/Idempotency/Idempotent",
  { error: [ValidationError.wire, Conflict.wire] }
) {}
