/**
 * Triage without a network: naive Bayes for category and priority, trained on the shipped
 * examples when the layer is built, the AFINN lexicon for sentiment, and urgency rules that
 * shift the priority where two dozen critical examples cannot teach the model what "down" means.
 */
import { Effect, FileSystem, Layer, Schema } from "effect"
import Sentiment from "sentiment"
import { Categories, type Category, Priorities, type Priority } from "../Domain/Fields.ts"
import { recordTriage } from "../Observability/Metrics.ts"
import { projectPath } from "../Paths.ts"
import { features, train } from "./Classifier.ts"
import { Triage, type TriageInput, type TriageResult } from "./Triage.ts"

export const model = "local-nb-1"

// measured on held-out folds of the examples: at 3 the stated confidence matches the hit rate
const temperature = 3

const priorities: ReadonlyArray<Priority> = ["p1_critical", "p2_high", "p3_medium", "p4_low"]

const analyzer = new Sentiment()

// AFINN scores words by their mood in general English; in a ticket these describe the product
// or are politeness ("please help", "I'd like"), so a calm bug report would read as angry or glad.
// Filtered from the result rather than passed as `extras`, which the library merges into its
// shared lexicon for every caller in the process.
const moodless = new Set([
  "error", "errors", "problem", "problems", "fail", "failed", "fails", "failing", "failure", "crash",
  "charged", "charges", "cancel", "cancelled", "cancelling", "pay", "free", "limit", "limited", "limits",
  "support", "supported", "help", "please", "like", "want", "fine", "dear", "wish", "no", "sorry",
  "warning", "alert", "denied", "unable", "block", "blocked", "blocking", "restricted", "mandatory",
  "missing", "rejected", "rejects", "stuck", "wrong", "stopped", "stops", "offline", "unavailable",
  "empty", "drop", "dropped", "drag", "cut", "cuts", "grey", "delay", "fire", "firing", "exempt",
  "save", "saved", "clear", "cleared", "clearly", "secure", "safe", "intact", "fresh", "active",
  "accept", "allow", "approved", "invite", "join", "share", "restore", "validate", "validating",
  "solved", "progress", "successful", "legal", "authority", "guarantee", "straight", "bold", "fit",
  "expand", "avoid", "leave", "reach", "reaching", "important", "increase", "demand", "promised"
])

// A "thanks" that signs off a bug report is manners, not delight: it counts half.
const polite = new Set(["thanks", "thank", "thx", "appreciate", "appreciated", "grateful"])

// below this magnitude a ticket reads as factual
const neutralBand = 0.2

const judgeSentiment = (text: string): TriageResult["sentiment"] => {
  const result = analyzer.analyze(text)
  let total = 0
  let scored = 0
  for (const entry of result.calculation) {
    for (const word in entry) {
      if (moodless.has(word)) continue
      total += polite.has(word) ? entry[word]! / 2 : entry[word]!
      scored++
    }
  }
  const comparative = result.tokens.length === 0 ? 0 : total / result.tokens.length
  // tanh keeps the score in (-1, 1); the factor makes a comparative of 0.5 (a word of -2 in
  // every four) read as about -0.75
  const score = round(Math.tanh(2 * comparative))
  // more scored words are more evidence, with diminishing returns
  const evidence = 1 - Math.exp(-scored / 2)
  if (Math.abs(score) < neutralBand) {
    return { value: "neutral", score, confidence: round(0.5 + 0.3 * (1 - Math.abs(score) / neutralBand) * (1 - evidence / 2)) }
  }
  return {
    value: score < 0 ? "negative" : "positive",
    score,
    confidence: round(0.5 + 0.45 * evidence * Math.min(1, Math.abs(score) / 0.6))
  }
}

interface Signal {
  readonly pattern: RegExp
  readonly weight: number
}

// The service is unavailable, data is lost or exposed, an account is taken over, or many people
// are affected: how far the trouble reaches.
const critical: ReadonlyArray<Signal> = [
  { pattern: /\b(outage|data loss|data leak|breach(ed)?|hacked|compromised|security incident)\b/, weight: 2 },
  { pattern: /\b(is|are|was|went|been|goes|seems) (completely |totally |all )?down\b|\bdown for\b/, weight: 2 },
  {
    pattern:
      /\b(all|every|each|any) (single )?(of )?(our |the |my )?(users?|agents?|customers?|accounts?|requests?|calls?|pages?|admins?|visitors?|stores?)\b/,
    weight: 1.5
  },
  { pattern: /\b(everyone|everybody|anyone|nobody|no one|(whole|entire) (team|company|office|support))\b/, weight: 1.5 },
  { pattern: /\b(production|disappeared|vanished|thousands)\b/, weight: 1 },
  { pattern: /\b(security|unauthori[sz]ed|unknown ip|attack(ing|ed)?|did not do this|dont recogni[sz]e)\b/, weight: 1 }
]

// Someone is stopped from working, or says it cannot wait: how hard it hits.
const blocking: ReadonlyArray<Signal> = [
  { pattern: /\b(can ?not|cant|unable to|could ?not|couldnt) (log ?in|sign ?in|get in|access|work|reply|answer|pay|use)\b/, weight: 1 },
  { pattern: /\b(locked out|locked|suspended|declined|bounced|overdue)\b/, weight: 1 },
  { pattern: /\b(urgent(ly)?|asap|immediately|right away|critical|emergency|today)\b/, weight: 1 },
  { pattern: /\b(charged twice|double charge|refund)\b/, weight: 0.5 }
]

const hints: ReadonlyArray<{ readonly pattern: RegExp; readonly critical: number; readonly blocking: number }> = [
  { pattern: /\b(p1|sev ?1|critical|outage|incident|security|blocker)\b/, critical: 2, blocking: 0 },
  { pattern: /\b(p2|sev ?2|urgent|high|vip|enterprise)\b/, critical: 0, blocking: 1 }
]

// An "URGENT" offer in spam or an outage mentioned in a wish is not an emergency.
const credibility: Record<Category, number> = {
  billing: 1,
  bug: 1,
  account: 1,
  question: 0.5,
  feature_request: 0.4,
  other: 0.25
}

const sum = (signals: ReadonlyArray<Signal>, text: string) =>
  signals.reduce((total, signal) => signal.pattern.test(text) ? total + signal.weight : total, 0)

/** Tags and the string values of `severity`, `urgency`, `priority`, `plan` or `tier` in the metadata. */
const hintText = (input: TriageInput) => {
  const parts = [...input.tags]
  const metadata = input.metadata
  if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
    for (const key of ["severity", "urgency", "priority", "plan", "tier"]) {
      const value = (metadata as Record<string, unknown>)[key]
      if (typeof value === "string") parts.push(value)
    }
  }
  return parts.join(" ").toLowerCase()
}

const round = (n: number) => Math.round(n * 1000) / 1000

const clamp01 = (n: number) => Math.min(1, Math.max(0, n))


/** A support ticket as a customer wrote it, with the category and priority an agent gave it. */
export const LabelledTicket = Schema.Struct({
  subject: Schema.String,
  body: Schema.String,
  category: Schema.Literals(Categories),
  priority: Schema.Literals(Priorities)
})
export type LabelledTicket = typeof LabelledTicket.Type

const examplesFile = projectPath("src", "Triage", "examples.jsonl")
const decodeExample = Schema.decodeUnknownEffect(Schema.fromJsonString(LabelledTicket))

/** The shipped training examples: `examples.jsonl`, one labelled ticket a line. */
export const loadExamples = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const text = yield* fs.readFileString(examplesFile)
  return yield* Effect.forEach(
    text.split("\n").filter((line) => line.trim() !== ""),
    (line, index) => decodeExample(line).pipe(Effect.mapError((error) => new Error(`examples.jsonl line ${index + 1}: ${error.message}`)))
  )
}).pipe(Effect.orDie)

/** A triage service trained on the given tickets; `make` trains it on all the shipped examples. */
export const fromExamples = (training: ReadonlyArray<LabelledTicket>): Triage["Service"] => {
  const categories = train(
    training.map((ticket) => ({ subject: ticket.subject, text: ticket.body, label: ticket.category })),
    { temperature }
  )
  const urgency = train(
    training.map((ticket) => ({ subject: ticket.subject, text: ticket.body, label: ticket.priority })),
    { temperature }
  )

  const judge = (input: TriageInput): TriageResult => {
    const tagText = input.tags.join(" ")
    // the category model reads the tags too; without any, both models read the same text
    const plain = features(input.body, input.subject)
    const category = categories.score(tagText === "" ? plain : features(`${input.body} ${tagText}`, input.subject))
    const sentiment = judgeSentiment(`${input.subject}. ${input.body}`)

    const text = `${input.subject} ${input.body}`.toLowerCase().replace(/['\u2019]/g, "")
    const hinted = hintText(input)
    let crit = sum(critical, text)
    let block = sum(blocking, text) + (sentiment.score <= -0.5 ? 0.5 : 0)
    for (const hint of hints) {
      if (hint.pattern.test(hinted)) {
        crit += hint.critical
        block += hint.blocking
      }
    }
    // weighed over every category the model finds likely, so one wrong guess does not silence an outage
    let weight = 0
    for (const label of categories.labels) weight += (category.scores[label] ?? 0) * credibility[label]
    // glad customers rarely report emergencies
    if (sentiment.score >= 0.3) weight /= 2
    crit *= weight
    block *= weight

    // Signals shift the model's log odds: reach pulls towards p1, and impact with it; impact alone
    // pulls towards p2; both pull away from p4. The model still decides when nothing is said.
    const learned = urgency.score(plain).scores
    const tilt: Record<Priority, number> = {
      p1_critical: 2 * crit + (crit > 0 ? 0.5 * block : 0),
      p2_high: 0.5 * crit + block,
      p3_medium: 0,
      p4_low: -0.5 * (crit + block)
    }
    const logits = priorities.map((p) => Math.log(Math.max(learned[p] ?? 0, 1e-6)) + tilt[p])
    const max = Math.max(...logits)
    const weights = logits.map((l) => Math.exp(l - max))
    const total = weights.reduce((a, b) => a + b, 0)
    let best = 0
    for (let i = 1; i < weights.length; i++) if (weights[i]! > weights[best]!) best = i

    return {
      category: { value: category.label, confidence: round(clamp01(category.confidence)) },
      priority: { value: priorities[best]!, confidence: round(clamp01(weights[best]! / total)) },
      sentiment,
      model
    }
  }

  return {
    classify: Effect.fn("Triage.Local.classify")(function*(input: TriageInput) {
      recordTriage(yield* Effect.context<never>(), "local", "classified")
      return judge(input)
    })
  }
}

export const make = Effect.map(loadExamples, fromExamples)

export const layer: Layer.Layer<Triage, never, FileSystem.FileSystem> = Layer.effect(Triage, make)
