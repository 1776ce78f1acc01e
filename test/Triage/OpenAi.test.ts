/**
 * The `openai` provider against a fake OpenAI-compatible server on loopback. Real sockets and the
 * real clock (`it.live`): TRIAGE_TIMEOUT has to elapse in wall time for the request to be
 * abandoned.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, References } from "effect"
import { layer } from "../../src/Triage/OpenAi.ts"
import { Triage, type TriageInput, type TriageResult } from "../../src/Triage/Triage.ts"
import { configLayer } from "../support/Layers.ts"
import { type StubAnswer, stubServer } from "../support/StubServer.ts"

/** A fake OpenAI-compatible server that gives every request the same answer. */
const fakeOpenAi = (reply: StubAnswer) =>
  Effect.map(stubServer(() => reply), (stub) => ({
    baseUrl: `${stub.url}/v1`,
    received: () =>
      stub.requests.map((request) => ({
        method: request.method,
        url: request.path,
        authorization: request.headers.authorization,
        body: JSON.parse(request.body)
      }))
  }))

const json = (status: number, body: unknown): StubAnswer => ({ status, body })

const completion = (content: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "test-model",
  // no `logprobs` and no `refusal`, as Ollama answers
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }]
})

const answer = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    category: "billing",
    category_confidence: 0.9,
    priority: "p2_high",
    priority_confidence: 1.2,
    sentiment: "negative",
    sentiment_confidence: 0.8,
    sentiment_score: -0.6,
    ...overrides
  })

const fallbackResult: TriageResult = {
  category: { value: "other", confidence: 0.1 },
  priority: { value: "p4_low", confidence: 0.1 },
  sentiment: { value: "neutral", confidence: 0.1, score: 0 },
  model: "fallback"
}

const input: TriageInput = {
  subject: "Charged twice",
  body: "My card was charged twice this month. ".repeat(200),
  senderEmail: "ann@example.com",
  source: "api",
  tags: [],
  metadata: {}
}

/** Warnings the provider logs, with their `reason` annotation. */
const warnings: Array<{ readonly message: string; readonly reason: string }> = []
const captureWarnings = Logger.layer([
  Logger.make(({ fiber, logLevel, message }) => {
    if (logLevel !== "Warn") return
    warnings.push({
      message: String(Array.isArray(message) ? message.join(" ") : message),
      reason: String(fiber.getRef(References.CurrentLogAnnotations).reason ?? "")
    })
  })
])

const classifyWith = (settings: Record<string, string>) =>
  Effect.flatMap(Effect.service(Triage), (triage) => triage.classify(input)).pipe(
    Effect.provide(
      layer(Layer.succeed(Triage, { classify: () => Effect.succeed(fallbackResult) })).pipe(
        Layer.provide(configLayer({ TRIAGE_PROVIDER: "openai", ...settings }))
      )
    ),
    Effect.provide(captureWarnings)
  )

describe("OpenAI triage", () => {
  it.live("decodes a structured answer and sends a chat completion with a JSON schema", () =>
    Effect.gen(function*() {
      const server = yield* fakeOpenAi(json(200, completion(answer())))
      const result = yield* classifyWith({
        OPENAI_BASE_URL: server.baseUrl,
        OPENAI_API_KEY: "sk-test",
        TRIAGE_MODEL: "llama3.2:3b"
      })

      expect(result).toEqual({
        category: { value: "billing", confidence: 0.9 },
        priority: { value: "p2_high", confidence: 1 },
        sentiment: { value: "negative", confidence: 0.8, score: -0.6 },
        model: "openai:llama3.2:3b"
      })

      expect(server.received()).toHaveLength(1)
      const [request] = server.received()
      expect(request!.method).toBe("POST")
      expect(request!.url).toBe("/v1/chat/completions")
      expect(request!.authorization).toBe("Bearer sk-test")
      expect(request!.body.model).toBe("llama3.2:3b")
      expect(request!.body.response_format.type).toBe("json_schema")
      const schema = request!.body.response_format.json_schema.schema
      expect(schema.additionalProperties).toBe(false)
      expect(schema.properties.category.enum).toEqual([
        "billing",
        "bug",
        "account",
        "feature_request",
        "question",
        "other"
      ])
      expect(schema.required).toEqual(expect.arrayContaining(["category", "priority", "sentiment", "sentiment_score"]))

      const [system, user] = request!.body.messages
      expect(system.role).toBe("system")
      expect(system.content).toContain("p1_critical")
      expect(user.role).toBe("user")
      expect(user.content).toContain("Subject: Charged twice")
      expect(user.content.length).toBeLessThan(4_200)
      expect(user.content).toContain("[truncated]")
    }))

  it.live("falls back when the server answers 500", () =>
    Effect.gen(function*() {
      warnings.length = 0
      const server = yield* fakeOpenAi(json(500, { error: { message: "upstream exploded" } }))
      const result = yield* classifyWith({ OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: "sk-test" })

      expect(result).toEqual(fallbackResult)
      expect(server.received()).toHaveLength(1)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]!.reason).toContain("status 500")
      expect(warnings[0]!.reason).toContain("upstream exploded")
    }))

  it.live("falls back when the answer does not fit the schema", () =>
    Effect.gen(function*() {
      warnings.length = 0
      const banana = yield* fakeOpenAi(json(200, completion(answer({ category: "banana" }))))
      expect(yield* classifyWith({ OPENAI_BASE_URL: banana.baseUrl })).toEqual(fallbackResult)
      expect(banana.received()[0]!.authorization).toBeUndefined()

      const outOfRange = yield* fakeOpenAi(json(200, completion(answer({ sentiment_score: 7 }))))
      expect(yield* classifyWith({ OPENAI_BASE_URL: outOfRange.baseUrl })).toEqual(fallbackResult)

      const notJson = yield* fakeOpenAi(json(200, completion("Sure! It's a billing ticket.")))
      expect(yield* classifyWith({ OPENAI_BASE_URL: notJson.baseUrl })).toEqual(fallbackResult)

      expect(warnings).toHaveLength(3)
      expect(warnings[0]!.reason).toContain("banana")
    }))

  it.live("falls back when the server does not answer within TRIAGE_TIMEOUT", () =>
    Effect.gen(function*() {
      warnings.length = 0
      const server = yield* fakeOpenAi("hang")
      // the server never answers: only the time box can end the call, so a fallback proves it
      const result = yield* classifyWith({ OPENAI_BASE_URL: server.baseUrl, TRIAGE_TIMEOUT: "300ms" })

      expect(result).toEqual(fallbackResult)
      expect(warnings[0]!.reason).toContain("no answer within 300ms")
    }))
})
