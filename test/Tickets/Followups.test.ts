/**
 * The follow-up handlers work a batch's tickets in turns of the event loop, so the requests that
 * arrive meanwhile are served between tickets rather than after the whole batch; and what they
 * write is the same as before.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { ClaimedJob } from "../../src/Domain/Jobs.ts"
import { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { Followups } from "../../src/Tickets/Followups.ts"
import { Triage, type TriageResult } from "../../src/Triage/Triage.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

const batch = 32

/** Counts turns of the event loop while it runs: a setImmediate that schedules itself. */
const loopTurns = () => {
  let turns = 0
  let running = true
  const step = () => {
    turns++
    if (running) setImmediate(step)
  }
  setImmediate(step)
  return { now: () => turns, stop: () => (running = false) }
}

const answer: TriageResult = {
  category: { value: "billing", confidence: 0.9 },
  priority: { value: "p2_high", confidence: 0.8 },
  sentiment: { value: "neutral", score: 0, confidence: 0.7 },
  model: "turn-counting-mock"
}

/** A model that answers at once, as the built-in one does, and notes the loop's turn of each answer. */
const turnsSeen: Array<number> = []
// set by the test that counts, so no loop of immediates runs before or after it
let turns: ReturnType<typeof loopTurns> | undefined
const synchronousTriage = Layer.succeed(Triage, Triage.of({
  classify: () => Effect.sync(() => (turnsSeen.push(turns?.now() ?? -1), answer))
}))

/** How many answers the busiest turn of the loop gave. */
const mostInOneTurn = (seen: ReadonlyArray<number>) => {
  const perTurn = new Map<number, number>()
  for (const turn of seen) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1)
  return Math.max(...perTurn.values())
}

const jobsFor = (kind: ClaimedJob["kind"], projectId: string, ticketIds: ReadonlyArray<string>): Array<ClaimedJob> =>
  ticketIds.map((ticketId) => ({
    id: crypto.randomUUID(),
    kind,
    projectId,
    ticketId,
    payload: {},
    attempts: 1,
    lease: crypto.randomUUID(),
    trace: null
  }))

/** A project with `batch` tickets: every even one the same complaint, every odd one unlike any other. */
const seed = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('turns') RETURNING id`
  const rows = yield* sql<{ id: string }>`
    INSERT INTO tickets (project_id, ticket_number, subject, body, sender_email, created_at)
    SELECT ${project!.id}, n,
      CASE WHEN n % 2 = 0 THEN 'I was charged twice this month' ELSE md5(n::text) END,
      CASE WHEN n % 2 = 0 THEN 'My card was charged twice for the Pro plan, please refund one.' ELSE md5(n::text || 'body') END,
      'user' || n || '@example.com', now() - (${batch} - n) * interval '1 second'
    FROM generate_series(1, ${batch}) AS n
    ORDER BY n
    RETURNING id`
  return { projectId: project!.id, ticketIds: rows.map((row) => row.id) }
})

describe.each(databaseKinds)("follow-up batches on %s", (kind) => {
  const followups = Followups.layer.pipe(
    Layer.provide(Layer.mergeAll(synchronousTriage, ErrorTracker.none)),
    Layer.provideMerge(databaseLayer(kind))
  )
  layer(followups, { excludeTestServices: true })((it) => {
    it.effect("classify a batch's tickets a few to a turn of the event loop, not all in one", () =>
      Effect.gen(function*() {
        const { projectId, ticketIds } = yield* seed
        const { runTriage } = yield* Followups
        turnsSeen.length = 0
        turns = loopTurns()
        yield* runTriage.batch(jobsFor("triage", projectId, ticketIds))
        turns.stop()
        turns = undefined
        expect(turnsSeen).toHaveLength(batch)
        // a network model is asked up to 8 at once: those 8 start in the same turn
        expect(mostInOneTurn(turnsSeen)).toBeLessThanOrEqual(8)

        const sql = yield* SqlClient.SqlClient
        const written = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM tickets
          WHERE project_id = ${projectId} AND triage_status = 'done' AND triage_model = 'turn-counting-mock'`
        expect(written[0]!.n).toBe(batch)
      }))

    it.effect("score a batch's duplicates one ticket to a turn, and still find every repeat", () =>
      Effect.gen(function*() {
        const { projectId, ticketIds } = yield* seed
        const { checkDuplicate } = yield* Followups
        const sql = yield* SqlClient.SqlClient
        const loop = loopTurns()
        const before = loop.now()
        yield* checkDuplicate.batch(jobsFor("duplicate_check", projectId, ticketIds))
        const passed = loop.now() - before
        loop.stop()
        // each of the 32 tickets is scored in a turn of its own
        expect(passed).toBeGreaterThanOrEqual(batch)

        // the first complaint is the original; each later one repeats the one just before it
        const marked = yield* sql<{ ticket_number: number; original: number | null }>`
          SELECT t.ticket_number, o.ticket_number AS original FROM tickets t
          LEFT JOIN tickets o ON o.id = t.duplicate_of
          WHERE t.project_id = ${projectId} ORDER BY t.ticket_number`
        const expected = marked.map(({ ticket_number }) =>
          ticket_number % 2 === 0 && ticket_number > 2 ? ticket_number - 2 : null
        )
        expect(marked.map((row) => row.original)).toEqual(expected)
      }))
  })
})
