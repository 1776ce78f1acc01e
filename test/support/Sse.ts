import { Effect } from "effect"

export interface ReceivedEvent {
  readonly id: string | undefined
  readonly event: string
  readonly data: string
}

/**
 * An SSE stream as a client reads it: `next(n)` waits for the next n events (comment lines are
 * only counted), `close` ends the connection.
 */
export const openStream = (baseUrl: string, path: string, headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const controller = new AbortController()
      const response = await fetch(`${baseUrl}${path}`, { headers, signal: controller.signal })
      const events: Array<ReceivedEvent> = []
      const waiting: Array<() => void> = []
      let buffer = ""
      let comments = 0
      const reading = (async () => {
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
        for (;;) {
          const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }))
          if (done) return
          buffer += value
          let end: number
          while ((end = buffer.indexOf("\n\n")) !== -1) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const fields = new Map<string, string>()
            const lines = block.split("\n").filter((line) => !line.startsWith(":"))
            if (lines.length < block.split("\n").length) comments++
            if (lines.length === 0) continue
            for (const line of lines) {
              const colon = line.indexOf(":")
              const name = line.slice(0, colon)
              const value = line.slice(colon + 1).replace(/^ /, "")
              fields.set(name, fields.has(name) ? `${fields.get(name)}\n${value}` : value)
            }
            const event = { id: fields.get("id"), event: fields.get("event") ?? "message", data: fields.get("data") ?? "" }
            events.push(event)
            waiting.splice(0).forEach((wake) => wake())
          }
        }
      })()
      const next = async (count: number, timeoutMs = 15_000): Promise<ReadonlyArray<ReceivedEvent>> => {
        const deadline = Date.now() + timeoutMs
        while (events.length < count) {
          if (Date.now() > deadline) throw new Error(`waited for ${count} events, got ${events.length}`)
          await new Promise<void>((resolve) => {
            waiting.push(resolve)
            setTimeout(resolve, 200)
          })
        }
        return events.splice(0, count)
      }
      /** What arrived so far and was not taken. */
      const pending = () => [...events]
      return { response, next, pending, comments: () => comments, close: () => controller.abort(), ended: reading }
    }),
    (stream) => Effect.sync(() => stream.close())
  )

