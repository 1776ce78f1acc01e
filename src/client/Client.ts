import { ApiError, NetworkError, TimeoutError } from "./Errors.ts"
import { randomId } from "./randomId.ts"
import { abortReason, backoffDelay, retryAfterMs, sleep } from "./Retry.ts"
import type {
  AddedMessage,
  AddMessageInput,
  ArticleSearchResponse,
  ContactTicketList,
  CreatedTicket,
  CreateTicketInput,
  Health,
  PublicArticle,
  SearchResponse,
  SearchType,
  Ticket
} from "./Types.ts"

/** The version this client reports in its `User-Agent`. */
export const clientVersion = "0.1.0"

/** Settings of a client; only `apiKey` and `baseUrl` are required. */
export interface ClientOptions {
  /** A project API key (`tf_…`). A `widget` key may only file tickets and read articles. */
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
  /** Told before each retry: what failed and how long the client waits. For logs and metrics. */
  readonly onRetry?: (retry: RetryInfo) => void
}

/** What `onRetry` is told. */
export interface RetryInfo {
  readonly method: "GET" | "POST"
  readonly path: string
  /** The attempt about to be made: 2 for the first retry. */
  readonly attempt: number
  /** How long the client waits before it, in milliseconds. */
  readonly delayMs: number
  /** Why the previous attempt failed. */
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

/** Options of `addMessage`. */
export interface AddMessageOptions extends CreateOptions {
  /**
   * Internal notes cannot be added with a project key: the public API has no internal flag, and
   * sending one would publish the note to the contact. Only `false` is accepted; agents add
   * internal notes through the operator API (`POST /v1/admin/projects/:pid/tickets/:id/messages`
   * with `internal: true`).
   */
  readonly isInternal?: false
}

/** The public API, one method per endpoint. Every method rejects with a `SupportClientError` subclass. */
export interface SupportClient {
  /** `GET /health`: liveness and version; needs no key. */
  health(options?: CallOptions): Promise<Health>
  /** `POST /v1/tickets`: files a ticket (202); triage and the rest happen in the background. */
  createTicket(input: CreateTicketInput, options?: CreateOptions): Promise<CreatedTicket>
  /**
   * `GET /v1/tickets/:id`: the ticket and its public messages. With `contactEmail`, only a ticket
   * of that contact is found (a `widget` key must give it).
   */
  getTicket(ticketId: string, options?: CallOptions & { readonly contactEmail?: string }): Promise<Ticket>
  /**
   * `GET /v1/tickets?contact_email=…`: a contact's tickets, newest first, a page at a time (`limit`
   * 1..50, default 10; `cursor` is the previous page's `next_cursor`). A `full` key only.
   */
  listTickets(
    contactEmail: string,
    options?: CallOptions & { readonly limit?: number; readonly cursor?: string }
  ): Promise<ContactTicketList>
  /** `POST /v1/tickets/:id/messages`: adds a contact's message; a resolved or closed ticket reopens. */
  addMessage(ticketId: string, input: AddMessageInput, options?: AddMessageOptions): Promise<AddedMessage>
  /** `GET /v1/articles/search`: full-text search of published articles (`limit` 1..50, default 10). */
  searchArticles(q: string, options?: CallOptions & { readonly limit?: number }): Promise<ArticleSearchResponse>
  /** `GET /v1/articles/:id`: a published article by its id or slug (a `widget` key may read it too). */
  getArticle(idOrSlug: string, options?: CallOptions): Promise<PublicArticle>
  /** `GET /v1/search`: tickets, articles and contacts of the project, most relevant first. */
  search(
    q: string,
    options?: CallOptions & { readonly types?: ReadonlyArray<SearchType>; readonly limit?: number }
  ): Promise<SearchResponse>
}

interface Call {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly query?: Record<string, string | number | undefined>
  readonly body?: unknown
  readonly idempotencyKey?: string
  readonly authenticated?: boolean
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
      const text = await response.text()
      return { response, text }
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

  const send = async <A>(call: Call): Promise<A> => {
    const url = new URL(`${baseUrl}${call.path}`)
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value))
    }
    const requestId = randomId()
    const headers: Record<string, string> = { accept: "application/json", "x-request-id": requestId }
    if (call.authenticated !== false) headers.authorization = `Bearer ${options.apiKey}`
    if (call.body !== undefined) headers["content-type"] = "application/json"
    if (call.idempotencyKey !== undefined) headers["idempotency-key"] = call.idempotencyKey
    if (!isBrowser()) headers["user-agent"] = userAgent
    const init: RequestInit = {
      method: call.method,
      headers,
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) })
    }
    // Repeating is harmless for a read, and for a create that the service deduplicates by key.
    const repeatable = call.method === "GET" || call.idempotencyKey !== undefined
    const signal = call.options?.signal

    for (let retry = 0;; retry++) {
      if (signal?.aborted) throw abortReason(signal)
      let failure: ApiError | NetworkError | TimeoutError
      try {
        const { response, text } = await attempt(url.href, init, requestId, call)
        if (response.ok) {
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

  const ticketPath = (ticketId: string) => {
    if (typeof ticketId !== "string" || ticketId === "") throw new TypeError("ticketId is required")
    return `/v1/tickets/${encodeURIComponent(ticketId)}`
  }

  /** Every create carries an Idempotency-Key, which is what makes its retries safe. */
  const create = <A>(path: string, body: unknown, callOptions: CreateOptions | undefined) =>
    send<A>({ method: "POST", path, body, idempotencyKey: callOptions?.idempotencyKey ?? randomId(), options: callOptions })

  // Methods are async so that a bad argument rejects like every other failure, never throws.
  return {
    health: async (callOptions) => send<Health>({ method: "GET", path: "/health", authenticated: false, options: callOptions }),

    createTicket: async (input, callOptions) => create<CreatedTicket>("/v1/tickets", input, callOptions),

    getTicket: async (ticketId, callOptions) =>
      send<Ticket>({
        method: "GET",
        path: ticketPath(ticketId),
        query: { contact_email: callOptions?.contactEmail },
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
      return create<AddedMessage>(`${ticketPath(ticketId)}/messages`, input, callOptions)
    },

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
      })
  }
}
