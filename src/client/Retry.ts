/**
 * The waiting between attempts. Plain timers, not Effect's Clock: the client runs anywhere and
 * imports nothing.
 */

/**
 * "Full jitter" exponential backoff: a random delay between 0 and `min(maxMs, baseMs * 2^retry)`
 * for the retry numbered `retry` (0 for the first). Spreading retries over the whole window keeps
 * many clients that were refused together from coming back together.
 */
export const backoffDelay = (retry: number, baseMs: number, maxMs: number, random: () => number = Math.random) =>
  Math.floor(random() * Math.min(maxMs, baseMs * 2 ** retry))

/**
 * The wait before an event stream connects again, after `retry` reconnects that were not answered
 * with a stream (0 for the first): the window `min(maxMs, baseMs * 2^retry)` (0.5 s, 1 s, 2 s …
 * 30 s by default), less up to half of it at random, so that the streams a restarting service
 * dropped all at once do not all come back at once.
 */
export const reconnectDelay = (retry: number, baseMs: number, maxMs: number, random: () => number = Math.random) => {
  const window = Math.min(maxMs, baseMs * 2 ** retry)
  return Math.floor(window - (random() * window) / 2)
}

/**
 * `Retry-After` in milliseconds: either delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Anything else is ignored (undefined), and a date in the past means "now".
 */
export const retryAfterMs = (header: string | null, now: number = Date.now()): number | undefined => {
  if (header === null) return undefined
  const value = header.trim()
  if (/^\d+$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** The reason an aborted signal gives, or a standard `AbortError` when it gives none. */
export const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException("This operation was aborted", "AbortError")

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal))
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortReason(signal!))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })
