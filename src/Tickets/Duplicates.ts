/**
 * Which earlier ticket a new one most likely repeats. Scored here rather than in the database:
 * in SQL each of a batch's tickets compared itself with its own 100 candidates through pg_trgm's
 * `similarity`, which cuts both texts into trigrams again on every call, and the tickets of one
 * batch share nearly all of their candidates. That statement was 40 % of the database's time
 * under a steady flood of tickets. Here each text of the batch is cut once.
 */

/** A ticket of a batch being checked, or one it may repeat; ordered newest first. */
export interface DuplicateCandidate {
  readonly id: string
  readonly projectId: string
  readonly ticketNumber: number
  readonly subject: string
  /** the start of the body the comparison reads (300 characters) */
  readonly body: string
  readonly senderEmail: string | null
  /** microseconds since the epoch, exact, so that tickets of the same moment compare as the database does */
  readonly createdMicros: number
  /** one of the batch being checked */
  readonly checked: boolean
  /** open, not marked itself, and among the newest a checked ticket of its project may repeat */
  readonly candidate: boolean
}

export interface DuplicateMatch {
  readonly ticketId: string
  readonly duplicateOf: string
  readonly duplicateOfNumber: number
  readonly score: number
}

/** How many of the newest earlier open tickets each ticket is compared with. */
export const candidatesPerTicket = 100
/** Of those, how many closest by subject are compared by body too. */
const comparedByBody = 5
const candidateWindowMicros = 30 * 86_400 * 1_000_000
const sameSenderBonus = 0.15

// pg_trgm keeps only letters and digits, lower-cased, each word padded with two blanks in front and one behind
const words = /[\p{L}\p{N}]+/gu

/** A text's distinct trigrams, as pg_trgm cuts them. */
export const trigramsOf = (text: string): ReadonlySet<string> => {
  const trigrams = new Set<string>()
  for (const [word] of text.toLowerCase().matchAll(words)) {
    const chars = Array.from(`  ${word} `)
    for (let i = 0; i + 3 <= chars.length; i++) trigrams.add(chars[i]! + chars[i + 1]! + chars[i + 2]!)
  }
  return trigrams
}

/** pg_trgm's `similarity`: shared trigrams over all distinct ones, in single precision as it answers. */
export const trigramSimilarity = (a: ReadonlySet<string>, b: ReadonlySet<string>) => {
  if (a.size === 0 || b.size === 0) return 0
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  let shared = 0
  for (const trigram of small) if (large.has(trigram)) shared++
  return Math.fround(shared / (a.size + b.size - shared))
}

/**
 * The earlier ticket of its project a checked ticket most likely repeats, when the score reaches
 * `threshold`: among its 100 newest open earlier candidates (of the last 30 days), the five
 * closest by subject (a bonus for the same sender) are scored by subject and the start of the
 * body. Only earlier tickets qualify, so two tickets never point at each other. One scorer serves
 * a whole batch, so each text of it is cut into trigrams once; it scores one ticket at a call, so
 * a caller can give the event loop back between tickets.
 */
export const duplicateScorer = (rows: ReadonlyArray<DuplicateCandidate>, threshold: number) => {
  const cut = new Map<string, ReadonlySet<string>>()
  const trigrams = (text: string) => {
    let found = cut.get(text)
    if (found === undefined) cut.set(text, found = trigramsOf(text))
    return found
  }
  const closestTo = (ticket: DuplicateCandidate): DuplicateMatch | undefined => {
    const subject = trigrams(ticket.subject)
    const scored: Array<{ readonly row: DuplicateCandidate; readonly subject: number; readonly bonus: number }> = []
    for (const row of rows) {
      if (scored.length === candidatesPerTicket) break
      if (
        !row.candidate || row.projectId !== ticket.projectId || row.ticketNumber >= ticket.ticketNumber ||
        row.createdMicros > ticket.createdMicros || row.createdMicros <= ticket.createdMicros - candidateWindowMicros
      ) continue
      const bonus = row.senderEmail !== null && row.senderEmail === ticket.senderEmail ? sameSenderBonus : 0
      scored.push({ row, subject: trigramSimilarity(trigrams(row.subject), subject), bonus })
    }
    // a stable sort: of equally close ones, the newest
    scored.sort((a, b) => (b.subject + b.bonus) - (a.subject + a.bonus))
    let best: DuplicateMatch | undefined
    for (const { bonus, row, subject: subjectSimilarity } of scored.slice(0, comparedByBody)) {
      const score = 0.55 * subjectSimilarity + 0.45 * trigramSimilarity(trigrams(row.body), trigrams(ticket.body)) + bonus
      if (best === undefined || score > best.score) {
        best = { ticketId: ticket.id, duplicateOf: row.id, duplicateOfNumber: row.ticketNumber, score }
      }
    }
    return best !== undefined && best.score >= threshold ? best : undefined
  }
  return { checked: rows.filter((row) => row.checked), closestTo }
}

/** For each checked ticket of `rows` (newest first), its match by `duplicateScorer`, if any. */
export const closestEarlier = (rows: ReadonlyArray<DuplicateCandidate>, threshold: number): Array<DuplicateMatch> => {
  const scorer = duplicateScorer(rows, threshold)
  return scorer.checked.flatMap((ticket) => scorer.closestTo(ticket) ?? [])
}
