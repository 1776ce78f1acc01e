// The client's Server-Sent Events parser on its own: the line endings, comments, multi-line data
// and ids of the format (HTML standard §9.2.6), fed in pieces cut anywhere, as a network gives them.
import { describe, expect, it } from "vitest"
import { reconnectDelay } from "../../src/client/Retry.ts"
import { type SseMessage, SseParser } from "../../src/client/Sse.ts"

/** Everything `text` gives, fed in one piece. */
const parse = (text: string) => new SseParser().push(text)

/** The same, fed a character at a time: a CR and its LF, a field name and its colon, all apart. */
const parseByCharacter = (text: string) => {
  const parser = new SseParser()
  const out: Array<SseMessage> = []
  for (const character of text) out.push(...parser.push(character))
  return out
}

/** Both ways must agree, and every cut in two too. */
const parseEveryWay = (text: string) => {
  const whole = parse(text)
  expect(parseByCharacter(text)).toEqual(whole)
  for (let cut = 0; cut <= text.length; cut++) {
    const parser = new SseParser()
    expect([...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))], `cut at ${cut}`).toEqual(whole)
  }
  return whole
}

describe("the client's SSE parser", () => {
  it("reads id, event and data, and dispatches at the blank line", () => {
    expect(parseEveryWay("id: 7\nevent: ticket_replied\ndata: {\"a\":1}\n\n")).toEqual([
      { id: "7", event: "ticket_replied", data: "{\"a\":1}" }
    ])
    // no space after the colon is the same; only one space is taken away
    expect(parse("id:8\nevent:x\ndata:  two spaces\n\n")).toEqual([{ id: "8", event: "x", data: " two spaces" }])
  })

  it("takes CRLF, CR and LF line endings, mixed", () => {
    const expected = [
      { id: "1", event: "a", data: "one" },
      { id: "2", event: "b", data: "two" },
      { id: "3", event: "c", data: "three" }
    ]
    expect(parseEveryWay("id: 1\r\nevent: a\r\ndata: one\r\n\r\nid: 2\revent: b\rdata: two\r\rid: 3\nevent: c\ndata: three\n\n"))
      .toEqual(expected)
    expect(parseEveryWay("id: 1\r\nevent: a\r\ndata: one\r\n\r\n")).toEqual([expected[0]])
    expect(parseEveryWay("id: 2\revent: b\rdata: two\r\r")).toEqual([expected[1]])
    // a CR at the end of one piece and its LF at the start of the next are one line ending, not two
    const parser = new SseParser()
    expect(parser.push("data: x\r")).toEqual([])
    expect(parser.push("\n")).toEqual([])
    expect(parser.push("\r")).toEqual([{ id: undefined, event: "message", data: "x" }])
    expect(parser.push("\ndata: y\n\n")).toEqual([{ id: undefined, event: "message", data: "y" }])
  })

  it("ignores comments: the keep-alives, and comments inside an event", () => {
    expect(parseEveryWay(": keep-alive\n\n: keep-alive\r\n\r\n")).toEqual([])
    expect(parseEveryWay(": hello\nid: 4\n:between\nevent: e\ndata: d\n: after\n\n: keep-alive\n\n")).toEqual([
      { id: "4", event: "e", data: "d" }
    ])
  })

  it("joins multi-line data with LF, whatever the stream's line endings", () => {
    expect(parseEveryWay("data: {\r\ndata:   \"a\": 1\r\ndata: }\r\n\r\n")).toEqual([
      { id: undefined, event: "message", data: "{\n  \"a\": 1\n}" }
    ])
    expect(JSON.parse(parse("data: {\ndata: \"a\": [1,\ndata: 2]}\n\n")[0]!.data)).toEqual({ a: [1, 2] })
    // an empty data line is an empty line of data
    expect(parse("data\ndata:\ndata: x\n\n")).toEqual([{ id: undefined, event: "message", data: "\n\nx" }])
  })

  it("ids: each event's own, none on an event without one (reset); one with NUL is ignored", () => {
    expect(parseEveryWay("id: 10\nevent: a\ndata: 1\n\nevent: reset\ndata: {}\n\nid: 11\nevent: b\ndata: 2\n\n")).toEqual([
      { id: "10", event: "a", data: "1" },
      { id: undefined, event: "reset", data: "{}" },
      { id: "11", event: "b", data: "2" }
    ])
    expect(parse("id: 1\0\ndata: x\n\n")).toEqual([{ id: undefined, event: "message", data: "x" }])
  })

  it("drops an event without data, unknown fields, retry, a BOM, and what follows the last blank line", () => {
    expect(parse("event: nothing\nid: 5\n\n")).toEqual([])
    expect(parse("\uFEFFretry: 1000\nfoo: bar\ndata: kept\n\n")).toEqual([{ id: undefined, event: "message", data: "kept" }])
    const parser = new SseParser()
    expect(parser.push("id: 6\nevent: half\ndata: never finished\n")).toEqual([])
  })

  it("reconnectDelay: 0.5 s doubling to 30 s by default, less up to half of it at random", () => {
    const windows = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]
    expect(windows.map((_, n) => reconnectDelay(n, 500, 30_000, () => 0))).toEqual(windows)
    expect(windows.map((_, n) => reconnectDelay(n, 500, 30_000, () => 0.999_999))).toEqual(windows.map((w) => w / 2 + 0))
  })
})
