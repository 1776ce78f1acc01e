import { ByteSize, Effect } from "effect"
import { type HttpServerError, HttpIncomingMessage, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { PayloadTooLarge, UnsupportedMediaType, ValidationError } from "../Domain/Errors.ts"
import { errorResponse, maxBodyBytes, tooLarge } from "./Failures.ts"

/**
 * How deep arrays and objects may nest in a JSON body. Schema decoding and JSON.stringify recurse
 * once per level, and a few thousand levels fit in 10 KB; no field of the API needs more than a
 * handful, and metadata gets the rest.
 */
export const maxJsonDepth = 64

const tooDeep = () =>
  errorResponse(
    new ValidationError({ message: `request body must not nest arrays or objects more than ${maxJsonDepth} levels deep` })
  )

const wrongType = () => errorResponse(new UnsupportedMediaType({ message: "Content-Type must be application/json" }))

const quote = 0x22
const backslash = 0x5c

/** Whether the quote at `at` follows an odd number of backslashes. */
const isEscaped = (bytes: Uint8Array, at: number) => {
  let before = at - 1
  while (before >= 0 && bytes[before] === backslash) before--
  return (at - 1 - before) % 2 === 1
}

/**
 * Whether a JSON text nests deeper than `maxJsonDepth`, in one pass over its bytes without
 * parsing it. Every byte of a multi-byte UTF-8 character is above 0x7f, so brackets, braces and
 * quotes are found in the bytes alone; a string is skipped to its closing quote. Text that is not
 * JSON can be counted wrong, and JSON.parse refuses it later anyway.
 */
const nestsTooDeep = (bytes: Uint8Array) => {
  // a body of n bytes holds at most n / 2 levels
  if (bytes.length <= 2 * maxJsonDepth) return false
  let depth = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]
    if (byte === quote) {
      let end = bytes.indexOf(quote, i + 1)
      while (end !== -1 && isEscaped(bytes, end)) end = bytes.indexOf(quote, end + 1)
      if (end === -1) return false
      i = end
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > maxJsonDepth) return true
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--
    }
  }
  return false
}

const hasBody = (method: string) => method === "POST" || method === "PATCH" || method === "PUT"

/** The media type of a Content-Type, without its parameters, as the contract's decoder reads it. */
const mediaTypeOf = (contentType: string) => contentType.split(";", 1)[0]!.trim().toLowerCase()

/**
 * Only `application/json` (any parameters, any case): the decoder has no other, and answered any
 * other JSON type (`application/vnd.api+json`) with a plain-text 415 of its own. No type at all is
 * read as JSON.
 */
const isJson = (contentType: string | undefined) => contentType === undefined || mediaTypeOf(contentType) === "application/json"

/** A route whose body is not JSON: a file or a mail, in one of `mediaTypes`, at most `maxBytes`. */
export interface RawBody {
  readonly mediaTypes: ReadonlyArray<string>
  readonly maxBytes: number
}

const sizeText = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes.toLocaleString("en-US")} bytes`

const rawTooLarge = (raw: RawBody) =>
  errorResponse(new PayloadTooLarge({ message: `request body must be at most ${sizeText(raw.maxBytes)}` }))

const wrongRawType = (raw: RawBody) =>
  errorResponse(new UnsupportedMediaType({ message: `Content-Type must be ${raw.mediaTypes.join(" or ")}` }))

/**
 * The body of a request that carries one, checked before anything decodes it: at most 1 MiB
 * (a declared length over it is refused before a byte is read; one cut off on the way is refused
 * by the platform's MaxBodySize, set for the server), JSON, and no deeper than `maxJsonDepth`. The
 * body is kept, so the decoder reads these same bytes again. A route `rawBodyOf` names takes its
 * own media types and size instead, and its handler reads the body as it streams in.
 */
export const checkingBody = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  rawBodyOf: (path: string) => RawBody | undefined,
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E | HttpServerError.HttpServerError, R> => {
  if (!hasBody(request.method)) return app
  const raw = rawBodyOf(path)
  if (raw !== undefined) {
    if (Number(request.headers["content-length"] ?? 0) > raw.maxBytes) return Effect.succeed(rawTooLarge(raw))
    const type = request.headers["content-type"]
    if (type === undefined || !raw.mediaTypes.includes(mediaTypeOf(type))) return Effect.succeed(wrongRawType(raw))
    return Effect.provideService(app, HttpIncomingMessage.MaxBodySize, ByteSize.bytes(raw.maxBytes))
  }
  if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes) return Effect.succeed(tooLarge())
  if (!isJson(request.headers["content-type"])) return Effect.succeed(wrongType())
  return Effect.flatMap(
    request.arrayBuffer,
    (body) => nestsTooDeep(new Uint8Array(body)) ? Effect.succeed(tooDeep()) : app
  )
}
