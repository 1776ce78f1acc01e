/**
 * A small parser of Server-Sent Events (the `text/event-stream` format of the HTML standard,
 * §9.2.6), fed text as it arrives. Kept here rather than using `EventSource`, which cannot send
 * an `Authorization` header.
 */

/** One event as the stream carried it, `data` still text. */
export interface SseMessage {
  /** The event's own `id:` field; undefined when it had none. */
  readonly id: string | undefined
  /** The `event:` field; `message` when it had none. */
  readonly event: string
  /** Every `data:` line of the event, joined with `\n`. */
  readonly data: string
}

/**
 * Parses a stream given piece by piece, in pieces cut anywhere (within a line, between a CR and
 * its LF). Lines end with CRLF, LF or CR; `:` lines are comments and ignored; an event is
 * dispatched at a blank line when it has data, as browsers do; `retry:` and unknown fields are
 * ignored, and so is an `id:` that contains NUL. What follows the last blank line is dropped at
 * the end, as the standard says.
 */
export class SseParser {
  private buffer = ""
  /** A CR ended the last piece: an LF starting the next one belongs to it. */
  private pendingCr = false
  private started = false
  private data: Array<string> = []
  private event = ""
  private id: string | undefined = undefined
  private hasData = false

  /** Feeds text; answers the events it completed, in order. */
  push(text: string): Array<SseMessage> {
    if (!this.started && text !== "") {
      this.started = true
      // a byte order mark is allowed before the first line
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    if (this.pendingCr && text !== "") {
      this.pendingCr = false
      if (text.startsWith("\n")) text = text.slice(1)
    }
    this.buffer += text
    const out: Array<SseMessage> = []
    let start = 0
    for (;;) {
      const cr = this.buffer.indexOf("\r", start)
      const lf = this.buffer.indexOf("\n", start)
      if (cr === -1 && lf === -1) break
      let end: number
      let next: number
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr
        if (cr + 1 < this.buffer.length) next = this.buffer[cr + 1] === "\n" ? cr + 2 : cr + 1
        else {
          // the piece ended on a CR: the line is done, but an LF may still come
          next = cr + 1
          this.pendingCr = true
        }
      } else {
        end = lf
        next = lf + 1
      }
      const message = this.line(this.buffer.slice(start, end))
      if (message !== undefined) out.push(message)
      start = next
    }
    this.buffer = this.buffer.slice(start)
    return out
  }

  /** One line: a field, a comment, or the blank line that dispatches. */
  private line(line: string): SseMessage | undefined {
    if (line === "") {
      const message = this.hasData
        ? { id: this.id, event: this.event === "" ? "message" : this.event, data: this.data.join("\n") }
        : undefined
      this.data = []
      this.hasData = false
      this.event = ""
      this.id = undefined
      return message
    }
    if (line.startsWith(":")) return undefined
    const colon = line.indexOf(":")
    const name = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? "" : line.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    switch (name) {
      case "data":
        this.data.push(value)
        this.hasData = true
        break
      case "event":
        this.event = value
        break
      case "id":
        if (!value.includes("\0")) this.id = value
        break
    }
    return undefined
  }
}
