/**
 * The duplicate check with the service's default settings: a new ticket is marked a duplicate of
 * an earlier one when their score reaches 0.6, and not below. Pairs on either side of it, each
 * in a project of its own, are checked through the real follow-up job and read back from SQL.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { ProjectId, TicketId } from "../../src/Domain/Ids.ts"
import { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { type DuplicateCandidate, duplicateScorer } from "../../src/Tickets/Duplicates.ts"
import { Followups } from "../../src/Tickets/Followups.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"
import { triageMock } from "../support/TriageMock.ts"

interface Text {
  readonly subject: string
  readonly body: string
}

interface Pair {
  readonly name: string
  readonly earlier: Text
  readonly later: Text
}

/** Alike in part: their scores fall between 0.3 and 0.6. */
const partlyAlike: ReadonlyArray<Pair> = [
  {
    name: "two login problems",
    earlier: { subject: "Cannot log in to my account", body: "The login page rejects my password since this morning." },
    later: { subject: "Cannot log in to the dashboard", body: "The login page shows an error after I enter my password." }
  },
  {
    name: "two missing reset mails",
    earlier: { subject: "Password reset email never arrives", body: "I asked for a reset link three times and nothing came." },
    later: { subject: "Password reset mail does not arrive", body: "Requested the reset link, no email in my inbox." }
  }
]

/** The same complaint again: their scores are 0.6 or more. */
const repeated: ReadonlyArray<Pair> = [
  {
    name: "the login problem again",
    earlier: { subject: "Cannot log in to my account", body: "The login page rejects my password since this morning." },
    later: { subject: "Cannot log in to my account", body: "The login page shows an error after I enter my password." }
  },
  {
    name: "the reset mail again",
    earlier: { subject: "Password reset email never arrives", body: "I asked for a reset link three times and nothing came." },
    later: { subject: "Password reset email never arrived", body: "I asked for a reset link twice and got nothing at all." }
  }
]

/** The pair's score as the job works it out, with no threshold in the way. */
const scoreOf = (pair: Pair) => {
  const row = (id: string, number: number, text: Text): DuplicateCandidate => ({
    id,
    projectId: "p",
    ticketNumber: number,
    subject: text.subject,
    body: text.body,
    senderEmail: null,
    createdMicros: number,
    checked: number === 2,
    candidate: number === 1
  })
  const rows = [row("later", 2, pair.later), row("earlier", 1, pair.earlier)]
  return duplicateScorer(rows, 0).closestTo(rows[0]!)!.score
}

/** Both tickets of the pair in a project of their own, a second apart; answers the later one. */
const seedPair = (pair: Pair) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name, ticket_seq) VALUES (${pair.name}, 2) RETURNING id`
    const rows = yield* sql<{ id: string; ticket_number: number }>`
      INSERT INTO tickets (project_id, ticket_number, subject, body, created_at, updated_at)
      VALUES (${project!.id}, 1, ${pair.earlier.subject}, ${pair.earlier.body}, now() - interval '1 second', now() - interval '1 second'),
             (${project!.id}, 2, ${pair.later.subject}, ${pair.later.body}, now(), now())
      RETURNING id, ticket_number`
    const later = rows.find((row) => row.ticket_number === 2)!
    return { projectId: ProjectId.make(project!.id), ticketId: TicketId.make(later.id) }
  })

describe.each(databaseKinds)("the duplicate threshold by default on %s", (kind) => {
  // no DUPLICATE_THRESHOLD: the default is what is under test
  const followups = Followups.layer.pipe(
    Layer.provide(Layer.mergeAll(triageMock().layer, ErrorTracker.none)),
    Layer.provideMerge(databaseLayer(kind))
  )
  layer(followups, { excludeTestServices: true })((it) => {
    it.effect("marks a ticket a duplicate at a score of 0.6 or more, and leaves one that is only partly alike", () =>
      Effect.gen(function*() {
        for (const pair of partlyAlike) {
          expect(scoreOf(pair), pair.name).toBeGreaterThan(0.3)
          expect(scoreOf(pair), pair.name).toBeLessThan(0.6)
        }
        for (const pair of repeated) expect(scoreOf(pair), pair.name).toBeGreaterThanOrEqual(0.6)

        const pairs = [...partlyAlike, ...repeated]
        const seeded = yield* Effect.forEach(pairs, seedPair)
        const { checkDuplicate } = yield* Followups
        yield* checkDuplicate.batch(seeded.map(({ projectId, ticketId }) => ({
          kind: "duplicate_check" as const,
          payload: {},
          id: crypto.randomUUID(),
          projectId,
          ticketId,
          attempts: 1,
          lease: crypto.randomUUID(),
          trace: null
        })))

        const sql = yield* SqlClient.SqlClient
        const marked = yield* Effect.forEach(seeded, ({ ticketId }) =>
          Effect.map(
            sql<{ original: number | null }>`
              SELECT o.ticket_number AS original FROM tickets t LEFT JOIN tickets o ON o.id = t.duplicate_of
              WHERE t.id = ${ticketId}`,
            ([row]) => row!.original
          ))
        expect(Object.fromEntries(pairs.map((pair, i) => [pair.name, marked[i]]))).toEqual({
          "two login problems": null,
          "two missing reset mails": null,
          "the login problem again": 1,
          "the reset mail again": 1
        })
      }))
  })
})
