/**
 * A multinomial naive Bayes text classifier: small, pure and fast enough to run on every ticket.
 * Laplace smoothing and log probabilities. Features are lower-cased words, the bigrams of
 * adjacent words ("charged twice", "how do"), and for the subject the same words again under a
 * prefix, because a subject says in five words what the body says in fifty.
 */

export interface Example<L extends string> {
  readonly subject?: string
  readonly text: string
  readonly label: L
}

export interface Prediction<L extends string> {
  readonly label: L
  /** posterior of the winning label, in [0, 1] */
  readonly confidence: number
  /** posterior of every label; they sum to 1 */
  readonly scores: Readonly<Record<L, number>>
}

export interface Classifier<L extends string> {
  readonly labels: ReadonlyArray<L>
  readonly predict: (text: string, subject?: string) => Prediction<L>
  /**
   * `predict` for the features of a text found already (`features`): models that read the same
   * text share the work of cutting it, which is most of a prediction's cost.
   */
  readonly score: (found: ReadonlySet<string>) => Prediction<L>
}

export interface TrainOptions {
  /** Laplace smoothing pseudo-count */
  readonly alpha?: number
  /**
   * Divides the log scores before the softmax. Naive Bayes counts every word as independent
   * evidence, so raw posteriors sit near 1 even when the model is wrong; a temperature above 1
   * turns them into confidences worth comparing.
   */
  readonly temperature?: number
}

// Short on purpose: "how", "i", "you", "would" and "?" are what set a question or a wish
// apart from a report, so only words that carry nothing at all are dropped.
const stopwords = new Set(["a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for"])

// Crude suffix folding: with a few hundred examples "invoices" and "invoice" must share a count.
const fold = (word: string) => {
  if (word.length > 4 && word.endsWith("ies")) return word.slice(0, -3) + "y"
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) {
    return word.slice(0, -1)
  }
  return word
}

/** Lower-cased, folded words and question marks; apostrophes vanish so "can't" and "cant" agree. */
export const tokenize = (text: string): Array<string> => {
  const tokens: Array<string> = []
  for (const word of text.toLowerCase().replace(/['\u2019]/g, "").split(/([?])|[^\p{L}\p{N}]+/u)) {
    if (word === undefined || word === "") continue
    if (word.length === 1 && word !== "?" && word !== "i") continue
    tokens.push(fold(word))
  }
  return tokens
}

const phrases = (tokens: ReadonlyArray<string>, prefix: string, into: Set<string>) => {
  for (let i = 0; i < tokens.length; i++) {
    if (!stopwords.has(tokens[i]!)) into.add(prefix + tokens[i])
    if (i > 0) into.add(prefix + tokens[i - 1] + " " + tokens[i])
  }
}

// Each feature counts once per document (binarised naive Bayes): in short texts whether a word
// occurs says more than how often, and one repetitive ticket cannot swamp a class.
export const features = (text: string, subject = ""): ReadonlySet<string> => {
  const found = new Set<string>()
  const subjectTokens = tokenize(subject)
  phrases(subjectTokens, "", found)
  phrases(tokenize(text), "", found)
  for (const token of subjectTokens) if (!stopwords.has(token)) found.add("subject:" + token)
  return found
}

export const train = <L extends string>(
  examples: ReadonlyArray<Example<L>>,
  options: TrainOptions = {}
): Classifier<L> => {
  const alpha = options.alpha ?? 0.5
  const temperature = options.temperature ?? 1
  const labels = [...new Set(examples.map((example) => example.label))]
  if (labels.length === 0) throw new Error("cannot train a classifier without examples")
  const index = new Map(labels.map((label, i) => [label, i]))

  const docCounts = new Float64Array(labels.length)
  const totals = new Float64Array(labels.length)
  const counts = new Map<string, Float64Array>()
  for (const example of examples) {
    const c = index.get(example.label)!
    docCounts[c]!++
    for (const feature of features(example.text, example.subject ?? "")) {
      let row = counts.get(feature)
      if (row === undefined) counts.set(feature, row = new Float64Array(labels.length))
      row[c]!++
      totals[c]!++
    }
  }

  const vocabulary = counts.size
  const width = labels.length
  const logPrior = Array.from(docCounts, (n) => Math.log(n / examples.length))
  // every feature's row in one block, found by its offset: a typed array for each would be two
  // more objects per feature (18k features in the shipped models) for every full collection of
  // the service's heap to mark
  const rowAt = new Map<string, number>()
  const logLikelihood = new Float64Array(vocabulary * width)
  for (const [feature, row] of counts) {
    const at = rowAt.size * width
    rowAt.set(feature, at)
    for (let c = 0; c < width; c++) logLikelihood[at + c] = Math.log((row[c]! + alpha) / (totals[c]! + alpha * vocabulary))
  }

  const score = (found: ReadonlySet<string>): Prediction<L> => {
    const log = logPrior.slice()
    // a feature never seen in training says nothing about any label
    for (const feature of found) {
      const at = rowAt.get(feature)
      if (at === undefined) continue
      for (let c = 0; c < width; c++) log[c]! += logLikelihood[at + c]!
    }
    const max = Math.max(...log)
    const weights = log.map((l) => Math.exp((l - max) / temperature))
    const sum = weights.reduce((a, b) => a + b, 0)
    let best = 0
    for (let c = 1; c < weights.length; c++) if (weights[c]! > weights[best]!) best = c
    const scores = {} as Record<L, number>
    labels.forEach((label, c) => scores[label] = weights[c]! / sum)
    return { label: labels[best]!, confidence: weights[best]! / sum, scores }
  }

  return { labels, predict: (text, subject) => score(features(text, subject)), score }
}
