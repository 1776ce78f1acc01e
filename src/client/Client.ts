import { ApiError, NetworkError, TimeoutError } from "./Errors.ts"
import { randomId } from "./randomId.ts"
import { abortReason, backoffDelay, reconnectDelay, retryAfterMs, sleep } from "./Retry.ts"
import { SseParser } from "./Sse.ts"
import type {
  AddedMessage,
  AddMessageInput,
  ArticleSearchResponse,
  Attachment,
  ClaimedTicket,
  ContactTicketList,
  CreatedTicket,
  CreateTicketInput,
  Health,
  PublicArticle,
  RateInput,
  RatingRecorded,
  RatingRequest,
  SearchResponse,
  SearchType,
  StreamEvent,
  Ticket,
  Upload
} from "./Types.ts"

/** The version this client reports in its `User-Agent`. */
export const clientVersion = "0.1.0"

/** Settings of a client; only `apiKey` and `baseUrl` are required. */
export interface ClientOptions {
  /**
   * A project API key (`tf_…`). A `widget` key may file tickets and read articles, and read,
   * answer and stream a ticket with its `ticketToken` or as the verified visitor who filed it.
   */
  readonly apiKey: string
  /** Where the service answers, such as `https://support.example.com` (a path prefix is kept). */
  readonly baseUrl: string
  /** Retries after the first attempt, when a retry is allowed (see the README). Default 3. */
  readonly maxRetries?: number
  /** Limit for each attempt, until its answer is read in full, in milliseconds. Default 30,000. */
  readonly timeoutMs?: number
  /** Backoff window of the first retry when the service sent no `Retry-After`; it doubles per retry. Default 500. */
  readonly retryBaseDelayMs?: number
  /** The most the backoff window grows to, in milliseconds. Default 30,000. */
  readonly retryMaxDelayMs?: number
  /** The `fetch` to use; the runtime's own by default. */
  readonly fetch?: typeof fetch
  /**
   * Sent as `User-Agent` outside browsers (browsers own that header). Default
   * `support-ticketing-client/<version>`.
   */
  readonly userAgent?: string
  /**
   * A verified visitor, for a `widget` key: the token (an HS256 JWT) the site's backend signed for
   * its signed-in user with the project's identity secret. Sent as `X-Visitor-Token` on every call
   * that sends the key; such a visitor reads, answers and streams their own tickets on any device,
   * and `listVisitorTickets` lists them. A call's own `visitorToken` overrides it.
   */
  readonly visitorToken?: string
  /**
   * Told before each retry, and before each reconnect of an event stream: what failed and how long
   * the client waits. For logs and metrics.
   */
  readonly onRetry?: (retry: RetryInfo) => void
}

/** What `onRetry` is told. */
export interface RetryInfo {
  readonly method: "GET" | "POST"
  readonly path: string
  /** The attempt about to be made: 2 for the first retry (of a stream: its connection, counting from 1). */
  readonly attempt: number
  /** How long the client waits before it, in milliseconds. */
  readonly delayMs: number
  /**
   * Why the previous attempt failed. A stream that the service ended (when it restarts, say) is
   * a `NetworkError` too.
   */
  readonly error: ApiError | NetworkError | TimeoutError
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborts the call, also while it waits to retry; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal
  /** Overrides the client's `timeoutMs` for this call. */
  readonly timeoutMs?: number
}

/** Options of the calls that create something. */
export interface CreateOptions extends CallOptions {
  /**
   * Makes retries safe: the service does the work once per key and answers repeats with the first
   * answer. The client generates one per call when none is given; pass your own to make a retry
   * of your own (after a crash, say) safe too.
   */
  readonly idempotencyKey?: string
}

/** How a `widget` key shows it may reach a ticket: with the ticket's secret, or as its verified visitor. */
export interface TicketAccessOptions {
  /**
   * The ticket's `access_token` (`tat_…`) that `createTicket` returned, sent as `X-Ticket-Token`.
   * A `widget` key reads, answers and streams a ticket only with it (or as the verified visitor
   * who filed it); without either the service answers 403, with a wrong one 404. A `full` key
   * needs neither.
   */
  readonly ticketToken?: string
  /** Overrides the client's `visitorToken` for this call. */
  readonly visitorToken?: string
}

/** Options of `getTicket`. */
export interface GetTicketOptions extends CallOptions, TicketAccessOptions {
  /** Finds the ticket only when this contact filed it. */
  readonly contactEmail?: string
}

/** Options of `listVisitorTickets`. */
export interface ListVisitorTicketsOptions extends CallOptions {
  /** 1 to 50; default 10. */
  readonly limit?: number
  /** The previous page's `next_cursor`. */
  readonly cursor?: string
  /** Overrides the client's `visitorToken` for this call. */
  readonly visitorToken?: string
}

/** Options of `claimTicket`. */
export interface ClaimTicketOptions extends CallOptions {
  /** Overrides the client's `visitorToken` for this call. */
  readonly visitorToken?: string
}

/** Options of `streamEvents`. */
export interface StreamOptions {
  /**
   * Resume right after this event id (a `StreamEvent`'s `id` you handled before); the service
   * then sends every later event once, or `reset` first when it no longer has them. Without it,
   * the stream starts with the next event. Reconnects resume from the last id the stream gave.
   */
  readonly lastEventId?: string
  /** Ends the stream: the iteration finishes (no error), also while it waits to reconnect. */
  readonly signal?: AbortSignal
  /** Limit for each connection to be answered, in milliseconds; the client's `timeoutMs` by default. */
  readonly timeoutMs?: number
  /**
   * A connection that brings nothing (not even the keep-alive the service sends every 15 s) for
   * this long is given up and made again, in milliseconds. Default 45,000.
   */
  readonly idleTimeoutMs?: number
}

/** Options of `streamTicketEvents`. */
export interface TicketStreamOptions extends StreamOptions, TicketAccessOptions {}

/**
 * The events of a stream, for `for await`. It connects when first iterated and reads while asked
 * for the next event (what a slow loop has not asked for yet waits at the service). It reconnects
 * by itself after a dropped connection or the end of the stream (backoff from `retryBaseDelayMs`
 * doubling up to `retryMaxDelayMs`, back to the start once connected), resuming after the last
 * event it gave, and runs until the signal aborts or the loop is left (`break`, `return`, a throw), which closes
 * the connection. An answer that will not change by trying again (400, 401, 403, 404 and other
 * 4xx but 408 and 429) ends it with an `ApiError`.
 */
export type EventStream = AsyncGenerator<StreamEvent, void, undefined>

/** Options of `addMessage`. */
export interface AddMessageOptions extends CreateOptions, TicketAccessOptions {
  /**
   * Internal notes cannot be added with a project key: the public API has no internal flag, and
   * sending one would publish the note to the contact. Only `false` is accepted; agents add
   * internal notes through the operator API (`POST /v1/admin/projects/:pid/tickets/:id/messages`
   * with `internal: true`).
   */
  readonly isInternal?: false
}

/** Options of `uploadFile`. */
export interface UploadFileOptions extends CallOptions {
  /** The file's name as the ticket will show it (a path is cut to its last part). */
  readonly filename: string
  /**
   * Its media type, such as `image/png`; a `Blob`'s own `type` when not given, else
   * `application/octet-stream`.
   */
  readonly contentType?: string
}

/** Options of `downloadAttachment`. */
export interface DownloadAttachmentOptions extends CallOptions, TicketAccessOptions {}

/** What `downloadAttachment` gives: the file's bytes as stored, its name and the type it was served as. */
export interface DownloadedAttachment {
  readonly bytes: Uint8Array
  /**
   * From the answer's `Content-Disposition` (`filename*`, else `filename`). A browser on another
   * origin cannot read that header: there it is the `Attachment`'s `filename` when one was
   * passed, else the id.
   */
  readonly filename: string
  /**
   * The answer's `Content-Type`: the type as uploaded, or `application/octet-stream` for a type a
   * browser could run (HTML, SVG, …); the `Attachment`'s `content_type` has the uploaded one.
   */
  readonly contentType: string
}

/** The public API, one method per endpoint. Every method rejects with a `SupportClientError` subclass. */
export interface SupportClient {
  /** `GET /health`: liveness and version; needs no key. */
  health(options?: CallOptions): Promise<Health>
  /** `POST /v1/tickets`: files a ticket (202); triage and the rest happen in the background. */
  createTicket(input: CreateTicketInput, options?: CreateOptions): Promise<CreatedTicket>
  /**
   * `GET /v1/tickets/:id`: the ticket, its opening `body` and its public messages. With
   * `contactEmail`, only a ticket of that contact is found. A `widget` key gives `ticketToken`
   * (or is the ticket's verified visitor).
   */
  getTicket(ticketId: string, options?: GetTicketOptions): Promise<Ticket>
  /**
   * `GET /v1/tickets?contact_email=…`: a contact's tickets, newest first, a page at a time (`limit`
   * 1..50, default 10; `cursor` is the previous page's `next_cursor`). A `full` key only.
   */
  listTickets(
    contactEmail: string,
    options?: CallOptions & { readonly limit?: number; readonly cursor?: string }
  ): Promise<ContactTicketList>
  /**
   * `GET /v1/tickets` with a `widget` key and a verified visitor (`visitorToken`): the visitor's
   * tickets in the project, newest first, a page at a time, whatever device filed them.
   */
  listVisitorTickets(options?: ListVisitorTicketsOptions): Promise<ContactTicketList>
  /**
   * `POST /v1/tickets/:id/messages`: adds a contact's message; a resolved or closed ticket reopens.
   * A `widget` key gives `ticketToken` (or is the ticket's verified visitor).
   */
  addMessage(ticketId: string, input: AddMessageInput, options?: AddMessageOptions): Promise<AddedMessage>
  /**
   * `POST /v1/tickets/:id/claim`: adds a ticket this browser filed before its visitor signed in
   * (proved by its `access_token`) to the verified visitor's list. A `widget` key with a
   * `visitorToken`.
   */
  claimTicket(ticketId: string, ticketToken: string, options?: ClaimTicketOptions): Promise<ClaimedTicket>
  /**
   * `GET /v1/tickets/:id/events`: the ticket's events as they happen (Server-Sent Events), such as
   * `ticket_replied` when an agent answers; a `widget` key sees the public ones (messages and
   * status) and gives `ticketToken` (or is the ticket's verified visitor). See `EventStream`.
   *
   * ```ts
   * for await (const { event, data } of support.streamTicketEvents(ticketId, { ticketToken, signal })) {
   *   if (event === "ticket_replied") show(data)
   *   else if (event === "reset") reload()
   * }
   * ```
   */
  streamTicketEvents(ticketId: string, options?: TicketStreamOptions): EventStream
  /** `GET /v1/events`: every event of the project (the five webhook events), as a stream; a `full` key. See `EventStream`. */
  streamEvents(options?: StreamOptions): EventStream
  /** `GET /v1/articles/search`: full-text search of published articles (`limit` 1..50, default 10). */
  searchArticles(q: string, options?: CallOptions & { readonly limit?: number }): Promise<ArticleSearchResponse>
  /** `GET /v1/articles/:id`: a published article by its id or slug (a `widget` key may read it too). */
  getArticle(idOrSlug: string, options?: CallOptions): Promise<PublicArticle>
  /** `GET /v1/search`: tickets, articles and contacts of the project, most relevant first. */
  search(
    q: string,
    options?: CallOptions & { readonly types?: ReadonlyArray<SearchType>; readonly limit?: number }
  ): Promise<SearchResponse>
  /**
   * `POST /v1/uploads` (multipart/form-data): uploads one file (201), for `createTicket` or
   * `addMessage` to name its `upload_id` in `attachment_ids` within 24 hours. A `widget` key may
   * upload too. A file over the service's limit (10 MiB by default) is a 413 `PAYLOAD_TOO_LARGE`.
   * Sent without an Idempotency-Key, so only a 429 is retried.
   *
   * ```ts
   * const { upload_id } = await support.uploadFile(screenshot, { filename: "screen.png", contentType: "image/png" })
   * await support.createTicket({ subject: "Broken page", body: "See the screenshot", attachment_ids: [upload_id] })
   * ```
   */
  uploadFile(file: Blob | Uint8Array, options: UploadFileOptions): Promise<Upload>
  /**
   * `GET /v1/attachments/:id`: a file of a ticket, by its `Attachment` (from `getTicket`), its
   * `url`, or its id. A `widget` key gives `ticketToken` (or is the ticket's verified visitor).
   */
  downloadAttachment(
    attachment: Attachment | string,
    options?: DownloadAttachmentOptions
  ): Promise<DownloadedAttachment>
  /**
   * `GET /v1/ratings/:token`: what a rating link (`…/rate/<token>` in a resolved ticket's mail)
   * asks about, and the rating once given. The token is the credential: no key is sent.
   */
  getRating(token: string, options?: CallOptions): Promise<RatingRequest>
  /**
   * `POST /v1/ratings/:token`: records the contact's rating (1-5, or `good`/`bad`, as the
   * project asks) and an optional comment, once: a second is a 409 `CONFLICT`. No key is sent.
   */
  rate(token: string, input: RateInput, options?: CallOptions): Promise<RatingRecorded>
  /**
   * `POST /v1/tickets/:id/rating`: the same for a ticket whose contact was asked (its
   * `satisfaction` is not null), once. A `widget` key gives `ticketToken` (or is the ticket's
   * verified visitor).
   */
  rateTicket(ticketId: string, input: RateInput, options?: CallOptions & TicketAccessOptions): Promise<RatingRecorded>
}

interface Call {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly query?: Record<string, string | number | undefined>
  readonly body?: unknown
  /** A multipart body, sent as it is (fetch writes its Content-Type and boundary). */
  readonly form?: FormData
  /** The answer's bytes, not JSON. */
  readonly binary?: boolean
  readonly idempotencyKey?: string
  readonly authenticated?: boolean
  readonly access?: TicketAccessOptions | undefined
  readonly options: CallOptions | undefined
}

const isBrowser = () => typeof (globalThis as { document?: unknown }).document !== "undefined"

const nonNegative = (name: string, value: number | undefined, fallback: number) => {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number`)
  return value
}

/** 5xx that may succeed on another try; 501 and 505 never will. */
const isTransient = (status: number) => status >= 500 && status !== 501 && status !== 505

/**
 * The file name a `Content-Disposition` gives: `filename*` (RFC 8187: `UTF-8''` and
 * percent-encoded bytes) before the plain `filename`, which may be a stand-in in ASCII.
 */
export const filenameOf = (header: string | null): string | undefined => {
  if (header === null) return undefined
  const extended = /;\s*filename\*\s*=\s*([^';]*)'[^']*'([^;\s]*)/i.exec(header)
  if (extended !== null) {
    const [, charset, encoded] = extended
    try {
      if (/^utf-8$/i.test(charset!.trim())) return decodeURIComponent(encoded!)
      // ISO-8859-1, the one other charset RFC 8187 names: one byte per character
      return encoded!.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    } catch {
      // a malformed encoding: the plain name then
    }
  }
  const plain = /;\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header)
  if (plain === null) return undefined
  return plain[1] !== undefined ? plain[1].replace(/\\(.)/g, "$1") : plain[2]
}

/** An event's data as JSON; the text itself should it not be. */
const parseData = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * Makes a client of the public API.
 *
 * ```ts
 * const support = createClient({ apiKey: process.env.SUPPORT_API_KEY!, baseUrl: "https://support.example.com" })
 * const { ticket_id } = await support.createTicket({ subject: "Cannot log in", body: "Since this morning…" })
 * ```
 */
export const createClient = (options: ClientOptions): SupportClient => {
  if (typeof options?.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new TypeError("apiKey is required")
  }
  let base: URL
  try {
    base = new URL(options.baseUrl)
  } catch {
    throw new TypeError("baseUrl must be an absolute http(s) URL")
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new TypeError("baseUrl must be an absolute http(s) URL")
  }
  const baseUrl = `${base.origin}${base.pathname.replace(/\/+$/, "")}`
  const maxRetries = Math.floor(nonNegative("maxRetries", options.maxRetries, 3))
  const timeoutMs = nonNegative("timeoutMs", options.timeoutMs, 30_000)
  const retryBaseDelayMs = nonNegative("retryBaseDelayMs", options.retryBaseDelayMs, 500)
  const retryMaxDelayMs = nonNegative("retryMaxDelayMs", options.retryMaxDelayMs, 30_000)
  const runtimeFetch = options.fetch ?? (typeof fetch === "function" ? fetch.bind(globalThis) : undefined)
  if (runtimeFetch === undefined) throw new TypeError("no fetch in this runtime: pass options.fetch")
  const userAgent = options.userAgent ?? `support-ticketing-client/${clientVersion}`
  if (options.visitorToken !== undefined && typeof options.visitorToken !== "string") {
    throw new TypeError("visitorToken must be a string")
  }

  /** The headers of an authenticated request: the key, and what shows the caller may reach a ticket. */
  const keyHeaders = (access: TicketAccessOptions | undefined) => {
    const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey}` }
    const visitorToken = access?.visitorToken ?? options.visitorToken
    if (visitorToken !== undefined && visitorToken !== "") headers["x-visitor-token"] = visitorToken
    if (access?.ticketToken !== undefined && access.ticketToken !== "") headers["x-ticket-token"] = access.ticketToken
    return headers
  }

  /** One attempt, until its body is read: the timeout covers a slow body as well as a slow start. */
  const attempt = async (url: string, init: RequestInit, requestId: string, call: Call) => {
    const limit = call.options?.timeoutMs ?? timeoutMs
    const callSignal = call.options?.signal
    const controller = new AbortController()
    let timedOut = false
    const onAbort = () => controller.abort(abortReason(callSignal!))
    callSignal?.addEventListener("abort", onAbort, { once: true })
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, limit)
    try {
      const response = await runtimeFetch(url, { ...init, signal: controller.signal })
      if (call.binary && response.ok) return { response, text: "", bytes: new Uint8Array(await response.arrayBuffer()) }
      const text = await response.text()
      return { response, text, bytes: undefined }
    } catch (cause) {
      if (callSignal?.aborted) throw abortReason(callSignal)
      if (timedOut) throw new TimeoutError(limit, requestId)
      throw new NetworkError(
        `${call.method} ${call.path} got no answer: ${cause instanceof Error ? cause.message : String(cause)}`,
        requestId,
        { cause }
      )
    } finally {
      clearTimeout(timer)
      callSignal?.removeEventListener("abort", onAbort)
    }
  }

  const toApiError = (response: Response, text: string) => {
    const requestId = response.headers.get("x-request-id") ?? undefined
    const wait = retryAfterMs(response.headers.get("retry-after"))
    let envelope: unknown
    try {
      envelope = JSON.parse(text)
    } catch {
      envelope = undefined
    }
    const error = (envelope as { error?: { code?: unknown; message?: unknown } } | undefined)?.error
    if (typeof error?.code === "string" && typeof error.message === "string") {
      return new ApiError(response.status, error.code, error.message, requestId, wait)
    }
    const snippet = text.length > 200 ? `${text.slice(0, 200)}…` : text
    return new ApiError(
      response.status,
      "UNEXPECTED_RESPONSE",
      `HTTP ${response.status} without an error envelope${snippet === "" ? "" : `: ${snippet}`}`,
      requestId,
      wait
    )
  }

  /** The call, retried where that is harmless, until a 2xx answer read in full. */
  const exchange = async (call: Call) => {
    const url = new URL(`${baseUrl}${call.path}`)
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value))
    }
    const requestId = randomId()
    const headers: Record<string, string> = {
      accept: call.binary ? "*/*" : "application/json",
      "x-request-id": requestId,
      ...(call.authenticated === false ? {} : keyHeaders(call.access))
    }
    if (call.body !== undefined) headers["content-type"] = "application/json"
    if (call.idempotencyKey !== undefined) headers["idempotency-key"] = call.idempotencyKey
    if (!isBrowser()) headers["user-agent"] = userAgent
    const init: RequestInit = {
      method: call.method,
      headers,
      ...(call.form !== undefined ? { body: call.form } : call.body === undefined ? {} : { body: JSON.stringify(call.body) })
    }
    // Repeating is harmless for a read, and for a create that the service deduplicates by key.
    const repeatable = call.method === "GET" || call.idempotencyKey !== undefined
    const signal = call.options?.signal

    for (let retry = 0;; retry++) {
      if (signal?.aborted) throw abortReason(signal)
      let failure: ApiError | NetworkError | TimeoutError
      try {
        const answer = await attempt(url.href, init, requestId, call)
        const { response, text } = answer
        if (response.ok) return answer
        failure = toApiError(response, text)
        // A 429 was refused before any work was done, so any call may repeat it. A 409 with
        // Retry-After is an earlier attempt of this very call still in flight (after a timeout).
        const retryable = response.status === 429 ||
          (repeatable && (isTransient(response.status) || (response.status === 409 && failure.retryAfterMs !== undefined)))
        if (!retryable) throw failure
      } catch (error) {
        if (!(error instanceof NetworkError || error instanceof TimeoutError) || !repeatable) throw error
        failure = error
      }
      if (retry >= maxRetries) throw failure
      const delayMs = (failure instanceof ApiError ? failure.retryAfterMs : undefined) ??
        backoffDelay(retry, retryBaseDelayMs, retryMaxDelayMs)
      options.onRetry?.({ method: call.method, path: call.path, attempt: retry + 2, delayMs, error: failure })
      await sleep(delayMs, signal)
    }
  }

  const send = async <A>(call: Call): Promise<A> => {
    const { response, text } = await exchange(call)
    try {
      return JSON.parse(text) as A
    } catch {
      throw new ApiError(
        response.status,
        "UNEXPECTED_RESPONSE",
        `HTTP ${response.status} with a body that is not JSON`,
        response.headers.get("x-request-id") ?? undefined
      )
    }
  }

  /**
   * The path of a file to download: an `Attachment`'s `url`, a path of the service, a URL under
   * `baseUrl`, or an id. The key goes to the service only, never to another origin.
   */
  const attachmentPath = (attachment: Attachment | string) => {
    const given = typeof attachment === "string" ? attachment : attachment?.url
    if (typeof given !== "string" || given === "") throw new TypeError("an attachment, its url or its id is required")
    if (given.startsWith(`${baseUrl}/`)) return given.slice(baseUrl.length)
    if (given.startsWith("/") && !given.startsWith("//")) return given
    if (/^[a-z][a-z0-9+.-]*:/i.test(given)) {
      throw new TypeError(`${given} is not a URL of the service at ${baseUrl}: the key is not sent there`)
    }
    return `/v1/attachments/${encodeURIComponent(given)}`
  }

  const ratingPath = (token: string) => {
    if (typeof token !== "string" || token === "") throw new TypeError("token is required")
    return `/v1/ratings/${encodeURIComponent(token)}`
  }

  const ticketPath = (ticketId: string) => {
    if (typeof ticketId !== "string" || ticketId === "") throw new TypeError("ticketId is required")
    return `/v1/tickets/${encodeURIComponent(ticketId)}`
  }

  /** Every create carries an Idempotency-Key, which is what makes its retries safe. */
  const create = <A>(
    path: string,
    body: unknown,
    callOptions: CreateOptions | undefined,
    access?: TicketAccessOptions | undefined
  ) =>
    send<A>({
      method: "POST",
      path,
      body,
      idempotencyKey: callOptions?.idempotencyKey ?? randomId(),
      access,
      options: callOptions
    })

  const accessOf = (callOptions: TicketAccessOptions | undefined): TicketAccessOptions => ({
    ...(callOptions?.ticketToken === undefined ? {} : { ticketToken: callOptions.ticketToken }),
    ...(callOptions?.visitorToken === undefined ? {} : { visitorToken: callOptions.visitorToken })
  })

  const requireVisitor = (what: string, callOptions: { readonly visitorToken?: string } | undefined) => {
    const token = callOptions?.visitorToken ?? options.visitorToken
    if (typeof token !== "string" || token === "") {
      throw new TypeError(`${what} needs a verified visitor: pass visitorToken to createClient or to this call`)
    }
  }

  /**
   * An event stream: one connection at a time, made again after a drop or an end, resuming after
   * the last event given. A generator, so that leaving the consumer's loop runs the finally that
   * closes the connection.
   */
  const eventStream = async function*(
    path: () => string,
    access: TicketAccessOptions | undefined,
    streamOptions: StreamOptions | undefined
  ): EventStream {
    const signal = streamOptions?.signal
    const connectLimit = nonNegative("timeoutMs", streamOptions?.timeoutMs, timeoutMs)
    const idleLimit = nonNegative("idleTimeoutMs", streamOptions?.idleTimeoutMs, 45_000)
    let lastId = streamOptions?.lastEventId
    if (lastId !== undefined && (typeof lastId !== "string" || lastId === "")) {
      throw new TypeError("lastEventId must be a non-empty string")
    }
    const name = path()
    const url = `${baseUrl}${name}`
    /** Reconnects since the last connection that was answered with a stream. */
    let retry = 0
    for (let connection = 1;; connection++) {
      if (signal?.aborted) return
      const requestId = randomId()
      const headers: Record<string, string> = {
        accept: "text/event-stream",
        "x-request-id": requestId,
        ...keyHeaders(access)
      }
      if (lastId !== undefined) headers["last-event-id"] = lastId
      if (!isBrowser()) headers["user-agent"] = userAgent
      const controller = new AbortController()
      const onAbort = () => controller.abort(abortReason(signal!))
      signal?.addEventListener("abort", onAbort, { once: true })
      let timer: ReturnType<typeof setTimeout> | undefined
      let timedOut: number | undefined
      const limit = (ms: number) => {
        clearTimeout(timer)
        timedOut = undefined
        timer = setTimeout(() => {
          timedOut = ms
          controller.abort()
        }, ms)
      }
      /** What ended a connection that is worth making again. */
      const lost = (cause: unknown): NetworkError | TimeoutError =>
        timedOut !== undefined
          ? new TimeoutError(timedOut, requestId)
          : new NetworkError(
            `GET ${name} lost its connection: ${cause instanceof Error ? cause.message : String(cause)}`,
            requestId,
            { cause }
          )
      let failure: ApiError | NetworkError | TimeoutError | undefined
      try {
        limit(connectLimit)
        let response: Response | undefined
        try {
          response = await runtimeFetch(url, { method: "GET", headers, signal: controller.signal })
        } catch (cause) {
          if (signal?.aborted) return
          failure = lost(cause)
        }
        if (response === undefined) {
          // failure is set: the connection was not made
        } else if (!response.ok) {
          let text: string | undefined
          try {
            text = await response.text()
          } catch (cause) {
            if (signal?.aborted) return
            failure = lost(cause)
          }
          if (text !== undefined) {
            failure = toApiError(response, text)
            const status = response.status
            if (!(status === 408 || status === 429 || isTransient(status))) throw failure
          }
        } else if (
          !/^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "") || response.body === null
        ) {
          throw new ApiError(
            response.status,
            "UNEXPECTED_RESPONSE",
            `HTTP ${response.status} with ${response.headers.get("content-type") ?? "no content type"}, not an event stream`,
            response.headers.get("x-request-id") ?? undefined
          )
        } else {
          retry = 0
          const reader = response.body.getReader()
          const decoder = new TextDecoder()
          const parser = new SseParser()
          for (;;) {
            limit(idleLimit)
            let chunk: ReadableStreamReadResult<Uint8Array>
            try {
              chunk = await reader.read()
            } catch (cause) {
              if (signal?.aborted) return
              failure = lost(cause)
              break
            }
            if (chunk.done) {
              failure = new NetworkError(`GET ${name}: the service ended the stream`, requestId)
              break
            }
            // no limit while the consumer holds an event: what it does with it is its own time
            clearTimeout(timer)
            for (const message of parser.push(decoder.decode(chunk.value, { stream: true }))) {
              if (message.id !== undefined && message.id !== "") lastId = message.id
              yield { id: message.id, event: message.event, data: parseData(message.data) }
              if (signal?.aborted) return
            }
          }
        }
      } finally {
        clearTimeout(timer)
        signal?.removeEventListener("abort", onAbort)
        // closes the connection: after a failure, an abort, or the consumer leaving its loop
        controller.abort()
      }
      if (signal?.aborted || failure === undefined) return
      const delayMs = (failure instanceof ApiError ? failure.retryAfterMs : undefined) ??
        reconnectDelay(retry, retryBaseDelayMs, retryMaxDelayMs)
      retry++
      options.onRetry?.({ method: "GET", path: name, attempt: connection + 1, delayMs, error: failure })
      try {
        await sleep(delayMs, signal)
      } catch {
        return
      }
    }
  }

  // Methods are async so that a bad argument rejects like every other failure, never throws.
  return {
    health: async (callOptions) => send<Health>({ method: "GET", path: "/health", authenticated: false, options: callOptions }),

    createTicket: async (input, callOptions) => create<CreatedTicket>("/v1/tickets", input, callOptions),

    getTicket: async (ticketId, callOptions) =>
      send<Ticket>({
        method: "GET",
        path: ticketPath(ticketId),
        query: { contact_email: callOptions?.contactEmail },
        access: accessOf(callOptions),
        options: callOptions
      }),

    listTickets: async (contactEmail, callOptions) =>
      send<ContactTicketList>({
        method: "GET",
        path: "/v1/tickets",
        query: { contact_email: contactEmail, limit: callOptions?.limit, cursor: callOptions?.cursor },
        options: callOptions
      }),

    addMessage: async (ticketId, input, callOptions) => {
      if ((callOptions as { isInternal?: unknown } | undefined)?.isInternal === true) {
        throw new TypeError(
          "isInternal: the public API cannot add internal notes (the note would be public); " +
            "agents add them through the operator API with internal: true"
        )
      }
      return create<AddedMessage>(`${ticketPath(ticketId)}/messages`, input, callOptions, accessOf(callOptions))
    },

    listVisitorTickets: async (callOptions) => {
      requireVisitor("listVisitorTickets", callOptions)
      return send<ContactTicketList>({
        method: "GET",
        path: "/v1/tickets",
        query: { limit: callOptions?.limit, cursor: callOptions?.cursor },
        access: accessOf(callOptions),
        options: callOptions
      })
    },

    claimTicket: async (ticketId, ticketToken, callOptions) => {
      const path = `${ticketPath(ticketId)}/claim`
      if (typeof ticketToken !== "string" || ticketToken === "") throw new TypeError("ticketToken is required")
      requireVisitor("claimTicket", callOptions)
      return send<ClaimedTicket>({
        method: "POST",
        path,
        access: { ...accessOf(callOptions), ticketToken },
        options: callOptions
      })
    },

    streamTicketEvents: (ticketId, streamOptions) =>
      eventStream(() => `${ticketPath(ticketId)}/events`, accessOf(streamOptions), streamOptions),

    streamEvents: (streamOptions) => eventStream(() => "/v1/events", undefined, streamOptions),

    searchArticles: async (q, callOptions) =>
      send<ArticleSearchResponse>({
        method: "GET",
        path: "/v1/articles/search",
        query: { q, limit: callOptions?.limit },
        options: callOptions
      }),

    getArticle: async (idOrSlug, callOptions) => {
      if (typeof idOrSlug !== "string" || idOrSlug === "") throw new TypeError("idOrSlug is required")
      return send<PublicArticle>({
        method: "GET",
        path: `/v1/articles/${encodeURIComponent(idOrSlug)}`,
        options: callOptions
      })
    },

    search: async (q, callOptions) =>
      send<SearchResponse>({
        method: "GET",
        path: "/v1/search",
        query: { q, types: callOptions?.types?.join(","), limit: callOptions?.limit },
        options: callOptions
      }),

    uploadFile: async (file, callOptions) => {
      const filename = callOptions?.filename
      if (typeof filename !== "string" || filename.trim() === "") throw new TypeError("options.filename is required")
      const contentType = callOptions.contentType
      let blob: Blob
      if (typeof Blob !== "undefined" && file instanceof Blob) {
        blob = contentType === undefined || contentType === file.type ? file : new Blob([file], { type: contentType })
      } else if (file instanceof Uint8Array) {
        // a view of a SharedArrayBuffer is no BlobPart: copied, as a view of a plain ArrayBuffer
        const bytes = file.buffer instanceof ArrayBuffer ? (file as Uint8Array<ArrayBuffer>) : new Uint8Array(file)
        blob = new Blob([bytes], { type: contentType ?? "application/octet-stream" })
      } else {
        throw new TypeError("file must be a Blob (or File) or a Uint8Array")
      }
      const form = new FormData()
      form.append("file", blob, filename)
      // no Idempotency-Key (uploads take none): like every POST without one, only a 429 is retried
      return send<Upload>({ method: "POST", path: "/v1/uploads", form, options: callOptions })
    },

    getRating: async (token, callOptions) =>
      send<RatingRequest>({ method: "GET", path: ratingPath(token), authenticated: false, options: callOptions }),

    // not repeated after a network failure: the rating may have been recorded, and a repeat would be a 409
    rate: async (token, input, callOptions) =>
      send<RatingRecorded>({ method: "POST", path: ratingPath(token), body: input, authenticated: false, options: callOptions }),

    rateTicket: async (ticketId, input, callOptions) =>
      send<RatingRecorded>({
        method: "POST",
        path: `${ticketPath(ticketId)}/rating`,
        body: input,
        access: accessOf(callOptions),
        options: callOptions
      }),

    downloadAttachment: async (attachment, callOptions) => {
      const path = attachmentPath(attachment)
      const { response, bytes } = await exchange({
        method: "GET",
        path,
        binary: true,
        access: accessOf(callOptions),
        options: callOptions
      })
      const fallback = typeof attachment === "object" && typeof attachment.filename === "string"
        ? attachment.filename
        : decodeURIComponent(path.slice(path.lastIndexOf("/") + 1))
      return {
        bytes: bytes ?? new Uint8Array(0),
        filename: filenameOf(response.headers.get("content-disposition")) ?? fallback,
        contentType: response.headers.get("content-type") ?? "application/octet-stream"
      }
    }
  }
}
