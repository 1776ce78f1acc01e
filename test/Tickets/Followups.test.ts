/**
 * The follow-up handlers work a batch's tickets in slices of a few milliseconds of the event loop,
 * so the requests that arrive meanwhile are served between slices rather than after the whole
 * batch, while cheap work is not handed back ticket by ticket; and what they write is the same as
 * before.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { ProjectId, TicketId } from "../../src/Domain/Ids.ts"
import type { Job } from "../../src/Domain/Jobs.ts"
import { ErrorTracker } from "../../src/ErrorTracker/ErrorTracker.ts"
import { Followups, inTurn } from "../../src/Tickets/Followups.ts"
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

/** CPU time each answer of the model below takes */
const millisPerAnswer = 1

/** Holds the CPU for `millis`, as a synchronous model or a duplicate score does. */
const busyFor = (millis: number) =>
  Effect.sync(() => {
    const until = performance.now() + millis
    while (performance.now() < until) {
      // CPU work
    }
  })

/**
 * A model that answers synchronously, as the built-in one does, after `millisPerAnswer` of CPU,
 * and notes the loop's turn of each answer.
 */
const turnsSeen: Array<number> = []
// set by the test that counts, so no loop of immediates runs before or after it
let turns: ReturnType<typeof loopTurns> | undefined
const synchronousTriage = Layer.succeed(Triage, Triage.of({
  classify: () =>
    Effect.sync(() => turnsSeen.push(turns?.now() ?? -1)).pipe(
      Effect.andThen(busyFor(millisPerAnswer)),
      Effect.as(answer)
    )
}))

/** How many answers the busiest turn of the loop gave. */
const mostInOneTurn = (seen: ReadonlyArray<number>) => {
  const perTurn = new Map<number, number>()
  for (const turn of seen) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1)
  return Math.max(...perTurn.values())
}

/** `job` as claimed for each of the tickets. */
const jobsFor = <J extends Job>(job: J, projectId: ProjectId, ticketIds: ReadonlyArray<TicketId>) =>
  ticketIds.map((ticketId) => ({
    ...job,
    id: crypto.randomUUID(),
    projectId,
    ticketId,
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
  return { projectId: ProjectId.make(project!.id), ticketIds: rows.map((row) => TicketId.make(row.id)) }
})

describe.each(databaseKinds)("follow-up batches on %s", (kind) => {
  const followups = Followups.layer.pipe(
    Layer.provide(Layer.mergeAll(synchronousTriage, ErrorTracker.none)),
    Layer.provideMerge(databaseLayer(kind))
  )
  layer(followups, { excludeTestServices: true })((it) => {
    it.effect("classify a batch's tickets a few milliseconds' worth to a turn of the event loop, not all in one", () =>
      Effect.gen(function*() {
        const { projectId, ticketIds } = yield* seed
        const { runTriage } = yield* Followups
        turnsSeen.length = 0
        turns = loopTurns()
        // the project has no rules: the event's text goes no further than triage
        yield* runTriage.batch(jobsFor({ kind: "triage", payload: { kind: "ticket_created", body: "{}" } }, projectId, ticketIds))
        turns.stop()
        turns = undefined
        expect(turnsSeen).toHaveLength(batch)
        // a slice of 4 ms holds the answers begun before it ran out: 4 of 1 ms each, and one more
        // for the clock's grain. Up to 8 are asked at once, as a network model is: handed the loop
        // back before each, those 8 would all run in the turn they come back in.
        expect(mostInOneTurn(turnsSeen)).toBeLessThanOrEqual(5)

        const sql = yield* SqlClient.SqlClient
        const written = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM tickets
          WHERE project_id = ${projectId} AND triage_status = 'done' AND triage_model = 'turn-counting-mock'`
        expect(written[0]!.n).toBe(batch)
      }))

    it.effect("mark every repeat in a batch of duplicate checks", () =>
      Effect.gen(function*() {
        const { projectId, ticketIds } = yield* seed
        const { checkDuplicate } = yield* Followups
        const sql = yield* SqlClient.SqlClient
        yield* checkDuplicate.batch(jobsFor({ kind: "duplicate_check", payload: {} }, projectId, ticketIds))

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

describe("a slice of the event loop for the batches' CPU work", () => {
  /** The loop's turn in which each of `count` pieces of work ran, `concurrency` at a time. */
  const turnsOf = (count: number, work: Effect.Effect<void>, concurrency: number) =>
    Effect.gen(function*() {
      const loop = loopTurns()
      const seen = yield* Effect.forEach(
        Array.from({ length: count }),
        () => inTurn(Effect.map(work, () => loop.now())),
        { concurrency }
      )
      loop.stop()
      return seen
    })

  it.effect("hands the loop back once 4 ms of work have run in it, alone or 8 at once", () =>
    Effect.gen(function*() {
      for (const concurrency of [1, 8]) {
        const seen = yield* turnsOf(batch, busyFor(1), concurrency)
        // 4 pieces of 1 ms fill a slice, and one more for the clock's grain
        expect(mostInOneTurn(seen)).toBeLessThanOrEqual(5)
      }
    }))

  it.effect("runs cheap work in the slice it is in, not a turn for each piece", () =>
    Effect.gen(function*() {
      // each turn handed back is a wait behind the requests of that turn: given one per ticket,
      // the pipeline fell behind at 80 % of a burst's rate (npm run bench, 2026-11-27)
      const seen = yield* turnsOf(batch, Effect.void, 1)
      expect(new Set(seen).size).toBeLessThan(batch / 2)
    }))
})
