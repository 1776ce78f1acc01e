import { Effect, Layer } from "effect"
import { Triage, type TriageInput, type TriageResult } from "../../src/Triage/Triage.ts"

const defaults: TriageResult = {
  category: { value: "question", confidence: 0.9 },
  priority: { value: "p3_medium", confidence: 0.9 },
  sentiment: { value: "neutral", score: 0, confidence: 0.9 },
  model: "mock"
}

/**
 * A Triage that answers `result` (over a neutral default) to every ticket and keeps the inputs
 * it was given in `calls`, so a test can assert what was asked without training a model.
 */
export const triageMock = (result: Partial<TriageResult> = {}) => {
  const calls: Array<TriageInput> = []
  const answer: TriageResult = { ...defaults, ...result }
  const layer = Layer.succeed(Triage, Triage.of({
    classify: (input) => Effect.sync(() => (calls.push(input), answer))
  }))
  return { layer, calls }
}
