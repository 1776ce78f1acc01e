import type { Schema } from "effect"
import { HttpServerResponse } from "effect/http"

/**
 * An answer already in its wire shape, written as JSON without going through its schema again.
 * Only for a hot read whose schema transforms nothing (its Type is its Encoded) and whose value
 * was decoded from its rows a moment before: encoding it would check the same fields twice. The
 * HTTP suites read these answers through the contract's typed client, which decodes them.
 */
export const alreadyEncoded = <S extends Schema.Top>(_schema: S, value: S["Type"] & S["Encoded"]) =>
  HttpServerResponse.jsonUnsafe(value)
