/**
 * The local model against its own shipped examples: trained on four fifths, judged on the fifth
 * it never saw. The printed accuracy is a guide, not a promise for real inboxes: the examples
 * come from one writer, and the urgency rules were written with them in view.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Category, Priority } from "../../src/Domain/Fields.ts"
import { features, train } from "../../src/Triage/Classifier.ts"
import * as Local from "../../src/Triage/Local.ts"
import { Triage, type TriageInput, type TriageResult } from "../../src/Triage/Triage.ts"
import { triageMock } from "../support/TriageMock.ts"

const categories: ReadonlyArray<Category> = ["billing", "bug", "account", "feature_request", "question", "other"]
const priorities: ReadonlyArray<Priority> = ["p1_critical", "p2_high", "p3_medium", "p4_low"]

const ticket = (subject: string, body: string, more: Partial<TriageInput> = {}): TriageInput => ({
  subject,
  body,
  senderEmail: null,
  source: "api",
  tags: [],
  metadata: null,
  ...more
})

/** Every fifth example of each category held out, so each category is tested in proportion. */
const split = (examples: ReadonlyArray<Local.LabelledTicket>) => {
  const seen = new Map<Category, number>()
  const training: Array<Local.LabelledTicket> = []
  const heldOut: Array<Local.LabelledTicket> = []
  for (const example of examples) {
    const n = seen.get(example.category) ?? 0
    seen.set(example.category, n + 1)
    ;(n % 5 === 4 ? heldOut : training).push(example)
  }
  return { training, heldOut }
}

const expectInRange = (result: TriageResult) => {
  expect(categories).toContain(result.category.value)
  expect(priorities).toContain(result.priority.value)
  expect(["negative", "neutral", "positive"]).toContain(result.sentiment.value)
  for (const judged of [result.category, result.priority, result.sentiment]) {
    expect(judged.confidence).toBeGreaterThanOrEqual(0)
    expect(judged.confidence).toBeLessThanOrEqual(1)
  }
  expect(result.sentiment.score).toBeGreaterThanOrEqual(-1)
  expect(result.sentiment.score).toBeLessThanOrEqual(1)
  expect(result.model).toBe(Local.model)
}

// the examples are a data file that the service reads at startup
layer(NodeServices.layer)("the shipped examples", (it) => {
  it.effect("are enough, and spread over every category", () =>
    Effect.gen(function*() {
      const examples = yield* Local.loadExamples
      expect(examples.length).toBeGreaterThanOrEqual(360)
      for (const category of categories) {
        expect(examples.filter((e) => e.category === category).length).toBeGreaterThanOrEqual(50)
      }
      const subjects = new Set(examples.map((e) => e.subject.toLowerCase()))
      expect(subjects.size).toBe(examples.length)
    }))
})

layer(NodeServices.layer)("local triage", (it) => {
  it.effect("classifies held-out examples it was not trained on", () =>
    Effect.gen(function*() {
      const { heldOut, training } = split(yield* Local.loadExamples)
      const triage = Local.fromExamples(training)
      const results = yield* Effect.forEach(heldOut, (e) => triage.classify(ticket(e.subject, e.body)))
      const categoryHits = results.filter((r, i) => r.category.value === heldOut[i]!.category).length
      const priorityHits = results.filter((r, i) => r.priority.value === heldOut[i]!.priority).length
      const categoryAccuracy = categoryHits / heldOut.length
      const priorityAccuracy = priorityHits / heldOut.length
      console.log(
        `local triage on ${heldOut.length} held-out examples (trained on ${training.length}): ` +
          `category ${categoryHits}/${heldOut.length} = ${categoryAccuracy.toFixed(3)}, ` +
          `priority ${priorityHits}/${heldOut.length} = ${priorityAccuracy.toFixed(3)}`
      )
      // measured 0.722 and 0.736 on this split (the other four fifths: 0.63 to 0.76 for both);
      // the floors leave room for edits to the examples, not for a model that stopped learning
      expect(categoryAccuracy).toBeGreaterThanOrEqual(0.65)
      expect(priorityAccuracy).toBeGreaterThanOrEqual(0.6)
      results.forEach(expectInRange)
    }))

  it.effect("reads the mood of a ticket", () =>
    Effect.gen(function*() {
      const triage = yield* Local.make
      const angry = yield* triage.classify(ticket(
        "This is ridiculous",
        "Your app has been broken for two days and nobody answers my emails. Terrible, useless service. I am furious."
      ))
      expect(angry.sentiment.value).toBe("negative")
      expect(angry.sentiment.score).toBeLessThan(0)

      const thankful = yield* triage.classify(ticket(
        "Thank you!",
        "Thank you so much, the new dashboard is great and your team was really helpful. We love it!"
      ))
      expect(thankful.sentiment.value).toBe("positive")
      expect(thankful.sentiment.score).toBeGreaterThan(0)

      // "error", "please" and a signed-off "thanks" describe the product or are manners, not mood
      const factual = yield* triage.classify(ticket(
        "Error when saving a ticket",
        "When I change the status of a ticket and click save I get error 500. Please advise. Thanks, Anna"
      ))
      expect(factual.sentiment.value).toBe("neutral")
    }))

  it.effect("puts an outage first and a wish last", () =>
    Effect.gen(function*() {
      const triage = yield* Local.make
      const outage = yield* triage.classify(ticket("Production is down", "Production is down for all our users."))
      expect(outage.priority.value).toBe("p1_critical")

      const wish = yield* triage.classify(ticket(
        "Idea: dark mode",
        "It would be nice to have a dark mode in the mobile app some day."
      ))
      expect(wish.category.value).toBe("feature_request")
      expect(wish.priority.value).toBe("p4_low")

      // "URGENT" from a spammer is not an emergency
      const spam = yield* triage.classify(ticket(
        "URGENT: claim your prize",
        "Congratulations! You have won a free cruise. Reply with your bank details to claim your prize urgently."
      ))
      expect(spam.priority.value).not.toBe("p1_critical")

      for (const result of [outage, wish, spam]) expectInRange(result)
    }))

  it.effect("raises the priority on a hint in the tags or metadata", () =>
    Effect.gen(function*() {
      const triage = yield* Local.make
      const plain = yield* triage.classify(ticket("Export is slow", "Exporting tickets to CSV takes a few minutes."))
      const hinted = yield* triage.classify(
        ticket("Export is slow", "Exporting tickets to CSV takes a few minutes.", { metadata: { severity: "critical" } })
      )
      expect(priorities.indexOf(hinted.priority.value)).toBeLessThan(priorities.indexOf(plain.priority.value))
    }))

  it.effect("scores features cut once as it predicts from the text, so two models may share the cut", () =>
    Effect.gen(function*() {
      const examples = yield* Local.loadExamples
      const model = train(examples.map((example) => ({ subject: example.subject, text: example.body, label: example.category })))
      for (const [subject, body] of [
        ["Charged twice", "You charged my card twice this month, please refund one of them."],
        ["", ""],
        ["Can't log in?", "The login page says my password is wrong; I didn't change it."]
      ] as const) {
        expect(model.score(features(body, subject))).toEqual(model.predict(body, subject))
      }
      // the subject's words count twice, under a prefix of their own
      expect([...features("", "Refund")]).toEqual(["refund", "subject:refund"])
    }))

  it.effect("answers through the Triage tag, every field in range", () =>
    Effect.gen(function*() {
      const triage = yield* Triage
      const inputs = [
        ticket("Charged twice", "You charged my card twice this month, please refund one of them."),
        ticket("", ""),
        ticket("????", "!!!"),
        ticket("Webhooks", "How do I verify webhook signatures?", { tags: ["api"], metadata: { plan: "enterprise" } }),
        ticket("x".repeat(500), "y ".repeat(5000), { metadata: ["not", "an", "object"] })
      ]
      for (const input of inputs) expectInRange(yield* triage.classify(input))
      const charged = yield* triage.classify(inputs[0]!)
      expect(charged.category.value).toBe("billing")
    }).pipe(Effect.provide(Local.layer)))
})

describe("the Triage mock", () => {
  it.effect("answers the given result and records what it was asked", () => {
    const mock = triageMock({ category: { value: "billing", confidence: 1 } })
    return Effect.gen(function*() {
      const triage = yield* Triage
      const result = yield* triage.classify(ticket("Refund", "Please refund me", { tags: ["vip"] }))
      expect(result.category.value).toBe("billing")
      expect(result.priority.value).toBe("p3_medium")
      expect(mock.calls).toHaveLength(1)
      expect(mock.calls[0]).toMatchObject({ subject: "Refund", tags: ["vip"] })
    }).pipe(Effect.provide(mock.layer))
  })
})
