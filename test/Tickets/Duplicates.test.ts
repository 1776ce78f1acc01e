/**
 * The duplicate check scores in the service what pg_trgm scored in the database: the same
 * figures on both databases, and the same choice of candidate as the statement it replaced.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import {
  candidatesPerTicket,
  closestEarlier,
  type DuplicateCandidate,
  trigramSimilarity,
  trigramsOf
} from "../../src/Tickets/Duplicates.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

const pairs: ReadonlyArray<readonly [string, string]> = [
  ["Refund for a double charge", "Refund for the double charge please"],
  [
    "Please refund the duplicate payment of 49 euros. The invoice numbers are INV-2291 and INV-2292.",
    "Could you refund the duplicate payment of 49 euros? Invoice numbers INV-2291 and INV-2292."
  ],
  ["Cannot export invoices", "CANNOT EXPORT INVOICES!!!"],
  ["The export button spins forever", "Dark mode for the dashboard"],
  ["a b c", "a  b   c d"],
  ["don't stop_me now", "dont stop me now"],
  ["x", "x"],
  ["error 500 on /v1/tickets", "Error 500 on /v2/tickets?page=2"],
  ["login login login", "login"],
  ["", "anything"],
  ["   ...   ", "!!!"],
  ["Zahlung für Rechnung 2291", "Zahlung fur Rechnung 2291"],
  ["Café crème", "cafe creme"]
]

describe.each(databaseKinds)("duplicate scores on %s", (kind) => {
  layer(databaseLayer(kind), { excludeTestServices: true })((it) => {
    it.effect("are pg_trgm's similarity, to the bit", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        for (const [a, b] of pairs) {
          const [row] = yield* sql<{ similarity: number }>`SELECT similarity(${a}, ${b})::float8 AS similarity`
          expect([a, b, trigramSimilarity(trigramsOf(a), trigramsOf(b))]).toEqual([a, b, row!.similarity])
        }
      }))
  })
})

const micros = (minutes: number) => Date.UTC(2026, 10, 1) * 1000 + minutes * 60_000_000

let nextNumber = 1
const ticket = (fields: Partial<DuplicateCandidate> & { readonly subject: string }): DuplicateCandidate => {
  const ticketNumber = fields.ticketNumber ?? nextNumber++
  return {
    id: `t${ticketNumber}`,
    projectId: "p",
    ticketNumber,
    body: fields.subject,
    senderEmail: null,
    createdMicros: micros(ticketNumber),
    checked: false,
    candidate: true,
    ...fields
  }
}

/** Rows as the repository reads them: newest first. */
const newestFirst = (rows: ReadonlyArray<DuplicateCandidate>) =>
  [...rows].sort((a, b) => b.createdMicros - a.createdMicros || b.ticketNumber - a.ticketNumber)

describe("the closest earlier ticket", () => {
  const subject = "Refund for a double charge on my card"

  it("is the closest of the earlier tickets of the same project, scored by subject, body and sender", () => {
    const original = ticket({ subject, senderEmail: "ada@example.com" })
    const unrelated = ticket({ subject: "Dark mode for the dashboard" })
    const otherProject = ticket({ subject, projectId: "q" })
    const copy = ticket({ subject: "Refund for a double charge on my card!", senderEmail: "ada@example.com", checked: true })
    const later = ticket({ subject })
    const [match] = closestEarlier(newestFirst([original, unrelated, otherProject, copy, later]), 0.6)
    expect(match).toEqual({ ticketId: copy.id, duplicateOf: original.id, duplicateOfNumber: original.ticketNumber, score: expect.any(Number) })
    // identical subject and body (1.0 each, weighted 0.55 and 0.45), and the same sender's bonus
    expect(match!.score).toBeCloseTo(1.15, 6)
  })

  it("of two as close, is the newer; a ticket of the same moment counts only if numbered before", () => {
    const older = ticket({ subject })
    const newer = ticket({ subject })
    const checked = ticket({ subject, checked: true })
    const sameMoment = ticket({ subject, ticketNumber: checked.ticketNumber + 1, createdMicros: checked.createdMicros })
    const both = ticket({ subject, ticketNumber: checked.ticketNumber + 2, createdMicros: checked.createdMicros, checked: true })
    const matches = closestEarlier(newestFirst([older, newer, checked, sameMoment, both]), 0.6)
    expect(matches.map((m) => [m.ticketId, m.duplicateOf])).toEqual([[both.id, sameMoment.id], [checked.id, newer.id]])
  })

  it("looks no further back than the 100 newest candidates and 30 days, and not at one not open", () => {
    const beyondTheHundred = ticket({ subject })
    const fillers = Array.from({ length: candidatesPerTicket }, (_, i) => ticket({ subject: `Unrelated question number ${i}` }))
    const resolved = ticket({ subject, candidate: false })
    const checked = ticket({ subject, checked: true })
    expect(closestEarlier(newestFirst([beyondTheHundred, ...fillers, resolved, checked]), 0.6)).toEqual([])
    // with one filler fewer, the hundredth is the match
    expect(closestEarlier(newestFirst([beyondTheHundred, ...fillers.slice(1), checked]), 0.6).map((m) => m.duplicateOf))
      .toEqual([beyondTheHundred.id])

    const day = 24 * 60
    const tooOld = ticket({ subject, ticketNumber: 1, createdMicros: micros(-30 * day) })
    const justInTime = ticket({ subject, ticketNumber: 2, createdMicros: micros(-30 * day) + 1 })
    const now = ticket({ subject, ticketNumber: 3, createdMicros: micros(0), checked: true })
    expect(closestEarlier(newestFirst([tooOld, now]), 0.6)).toEqual([])
    expect(closestEarlier(newestFirst([tooOld, justInTime, now]), 0.6).map((m) => m.duplicateOf)).toEqual([justInTime.id])
  })

  it("below the threshold is no match", () => {
    const original = ticket({ subject: "Refund for a double charge", body: "I was charged twice" })
    const checked = ticket({ subject: "Refund for a late delivery", body: "The parcel came a week late", checked: true })
    const [scored] = closestEarlier(newestFirst([original, checked]), 0)
    expect(scored!.score).toBeGreaterThan(0.2)
    expect(closestEarlier(newestFirst([original, checked]), scored!.score + 0.01)).toEqual([])
    expect(closestEarlier(newestFirst([original, checked]), scored!.score)).toEqual([scored])
  })
})
