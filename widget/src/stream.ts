import { backoffDelay } from "../../src/client/Retry.ts"
import { headers, rateLimit, type TicketRef, visitorRefused } from "./api.ts"
import type { WidgetConfig } from "./config.ts"

/** The polling fallback's first and longest wait between reads. */
export const POLL_MIN_MS = 5_000
export const POLL_MAX_MS = 60_000
/** Answers of a missing stream endpoint (404/405/501, with the ticket still readable) before polling. */
const MISSES = 2

export interface Follow {
  /** A Server-Sent Event (its `data` parsed as JSON; `{}` when it is not). */
  event(name: string, data: any): void
  /** The last event id, to keep for the next page. */
  id(id: string): void
  /** Connected, or down and trying again. */
  up(connected: boolean): void
  /**
   * Reads the ticket afresh; resolves to `gone` (stop), `fresh` (something new), or the wait a
   * 429 asks for in ms; anything else is `same`.
   */
  read(): Promise<"gone" | "fresh" | "same" | number>
  /** Whether a poll of the fallback is worth its request now (someone looks at the conversation). */
  wanted(): boolean
  /** The visitor token was refused: nothing more to try. */
  refused(): void
}

export interface Follower {
  stop(): void
  /** Streaming now (not polling, not down). */
  live(): boolean
}

/**
 * Parses a text/event-stream body: fields per line, an event per blank line, `:` comments
 * skipped. Calls `dispatch` with the event's name (default `message`), data and id.
 */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  dispatch: (name: string, data: string, id: string | undefined) => void
) {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  let name = ""
  let data: string[] = []
  let id: string | undefined
  for (;;) {
    const { done, value } = await reader.read()
    buffer += done ? "\n" : decoder.decode(value, { stream: true })
    const lines = buffer.split(/\r\n|\r|\n/)
    buffer = lines.pop()!
    for (const line of lines) {
      if (line === "") {
        if (data.length || id !== undefined) dispatch(name || "message", data.join("\n"), id)
        name = ""
        data = []
        id = undefined
        continue
      }
      const colon = line.indexOf(":")
      if (colon === 0) continue
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1))
      if (field === "event") name = value
      else if (field === "data") data.push(value)
      else if (field === "id" && !value.includes("\0")) id = value
    }
    if (done) return
  }
}

/**
 * Follows one ticket: its event stream read with fetch (so the headers go along), resumed with
 * `Last-Event-ID` after a drop (backoff 1 s to 30 s), a `reset` answered by a read. Where streaming
 * cannot work (no readable body, or the endpoint missing) it polls instead, while someone looks:
 * every 5 s, doubling up to 60 s while nothing changes.
 */
export function follow(config: WidgetConfig, ticket: TicketRef, lastId: string | undefined, on: Follow): Follower {
  let stopped = false
  let streaming = false
  let control: AbortController | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  const wait = (ms: number) => new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
  const url = `${config.baseUrl}/v1/tickets/${encodeURIComponent(ticket.ticket_id)}/events`

  const poll = async () => {
    let delay = POLL_MIN_MS
    while (!stopped) {
      await wait(delay)
      if (stopped || !on.wanted()) continue
      const read = await on.read()
      if (read === "gone") return
      delay = typeof read === "number"
        ? Math.min(Math.max(read, delay), POLL_MAX_MS)
        : read === "fresh" ? POLL_MIN_MS : Math.min(delay * 2, POLL_MAX_MS)
    }
  }

  const run = async () => {
    let failures = 0
    let misses = 0
    while (!stopped) {
      let pause = 0
      let res: Response | undefined
      control = typeof AbortController === "function" ? new AbortController() : undefined
      try {
        const all = { ...headers(config, ticket), Accept: "text/event-stream" } as Record<string, string>
        if (lastId) all["Last-Event-ID"] = lastId
        res = await fetch(url, { mode: "cors", credentials: "omit", cache: "no-store", headers: all, signal: control?.signal })
      } catch {
        /* down: tried again below */
      }
      if (stopped) return
      if (res?.ok && !res.body?.getReader) {
        control?.abort()
        return void poll()
      }
      if (res?.ok) {
        failures = misses = 0
        streaming = true
        on.up(true)
        // without an id, the stream starts now: what came before is read
        if (!lastId) void on.read()
        try {
          await readEvents(res.body!, (name, data, id) => {
            if (id !== undefined) on.id((lastId = id))
            let parsed: any = {}
            try {
              parsed = JSON.parse(data)
            } catch {
              /* not JSON: the name says it all */
            }
            on.event(name, parsed?.data?.id ? parsed.data : parsed)
          })
        } catch {
          /* dropped */
        }
        streaming = false
        if (stopped) return
      } else if (res) {
        if (await visitorRefused(config, res)) return on.refused()
        if (res.status === 429) pause = Math.max(rateLimit(res).retryAfterMs ?? 0, POLL_MIN_MS)
        else if ([404, 405, 501].includes(res.status)) {
          // a ticket that is gone, or a service without the stream
          const read = await on.read()
          if (read === "gone" || stopped) return
          if (++misses >= MISSES) {
            // polling is not being down
            on.up(true)
            return void poll()
          }
        }
      }
      on.up(false)
      await wait(Math.max(pause, 1_000 + backoffDelay(failures++, 1_000, 29_000)))
    }
  }
  void run()

  return {
    stop() {
      stopped = true
      streaming = false
      clearTimeout(timer)
      control?.abort()
    },
    live: () => streaming
  }
}
