import { Context, Duration, Effect, Layer, PubSub, Queue, Ref, Stream } from "effect"
import { DatabaseInfo } from "../Database/Database.ts"
import { DatabaseOutage } from "../Database/Outage.ts"
import type { ProjectId } from "../Domain/Ids.ts"
import { eventBatch, EventsRepo, type StoredEvent } from "./Repo.ts"

/** The events numbered in one read of the log: every position in (from, to], in order. */
interface Numbered {
  readonly from: number
  readonly to: number
  readonly events: ReadonlyArray<StoredEvent>
}

/** How long a sequencer or a reader waits for a NOTIFY before it looks anyway (a dropped LISTEN). */
const fallbackPoll = Duration.seconds(5)

/**
 * The log of every project's events, as streams. Each instance numbers the events written
 * anywhere (one sequencer at a time, see EventsRepo.number) and, while someone streams, reads each
 * newly numbered event once and hands it to every stream it holds: a stream costs no query of its
 * own per event, and an event committed on one instance reaches the streams of every other.
 */
export class EventLog extends Context.Service<EventLog, {
  /**
   * A project's events after `after` (or from now, when undefined), in the order they were
   * numbered, each once; it never ends.
   */
  readonly ofProject: (projectId: ProjectId, after: number | undefined) => Stream.Stream<StoredEvent>
}>()("app/Events/EventLog") {
  static readonly layer = Layer.effect(
    EventLog,
    Effect.gen(function*() {
      const repo = yield* EventsRepo
      const database = yield* DatabaseInfo
      const outage = yield* DatabaseOutage

      const numbering = yield* Queue.sliding<void>(1)
      const reading = yield* Queue.sliding<void>(1)
      const published = yield* PubSub.unbounded<Numbered>()
      const listeners = yield* Ref.make(0)

      const waitFor = (wake: Queue.Queue<void>) => Effect.raceFirst(Queue.take(wake), Effect.sleep(fallbackPoll))
      const looping = (what: string, once: Effect.Effect<void>) =>
        once.pipe(
          Effect.catchCause((cause) => Effect.andThen(outage.logUnlessAway(what)(cause), Effect.sleep("1 second"))),
          Effect.forever,
          // a loop that runs on every write would be a trace of its own each time
          Effect.withTracerEnabled(false),
          Effect.forkScoped
        )

      // the sequencer: numbers what was written, until nothing is left
      yield* looping(
        "numbering events failed; trying again",
        Effect.andThen(waitFor(numbering), Effect.repeat(repo.number, { while: (numbered) => numbered === eventBatch }))
      )

      // the reader: while someone streams, reads each newly numbered event once, for all of them
      let last: number | undefined
      yield* looping(
        "reading events failed; trying again",
        Effect.gen(function*() {
          yield* waitFor(reading)
          if ((yield* Ref.get(listeners)) === 0) {
            // nobody to read for: a stream that starts catches up from the log itself
            last = undefined
            return
          }
          let from = last ?? (yield* repo.top)
          for (;;) {
            const events = yield* repo.after(from)
            if (events.length === 0) break
            const to = events.at(-1)!.position
            yield* PubSub.publish(published, { from, to, events })
            from = to
            if (events.length < eventBatch) break
          }
          last = from
        })
      )

      // one channel for both: an event written wakes the sequencer, an event numbered the reader
      yield* database.listen("events").pipe(
        Stream.runForEach(() => Effect.andThen(Queue.offer(numbering, undefined), Queue.offer(reading, undefined))),
        Effect.withTracerEnabled(false),
        Effect.forkScoped
      )

      const ofProject = (projectId: ProjectId, after: number | undefined): Stream.Stream<StoredEvent> =>
        Stream.unwrap(Effect.gen(function*() {
          // subscribed before the log is read, so nothing numbered meanwhile is missed
          const subscription = yield* PubSub.subscribe(published)
          yield* Effect.acquireRelease(Ref.update(listeners, (n) => n + 1), () => Ref.update(listeners, (n) => n - 1))
          yield* Queue.offer(reading, undefined)
          let covered = after ?? (yield* repo.top)

          /** This project's events in (covered, through], from the log, a page at a time. */
          const readThrough = (through: number) =>
            Effect.gen(function*() {
              const found: Array<StoredEvent> = []
              while (covered < through) {
                const page = yield* repo.ofProject(projectId, covered, through)
                found.push(...page)
                covered = page.length < eventBatch ? through : page.at(-1)!.position
              }
              return found
            })

          const caughtUp = Stream.fromEffect(Effect.flatMap(repo.top, readThrough))
          const live = Stream.fromSubscription(subscription).pipe(
            Stream.mapEffect((numbered) =>
              Effect.gen(function*() {
                if (numbered.to <= covered) return []
                // numbered before this stream's reader caught up with the log: read from the log
                const missed = numbered.from > covered ? yield* readThrough(numbered.from) : []
                const fresh = numbered.events.filter((event) => event.position > covered && event.project_id === projectId)
                covered = numbered.to
                return [...missed, ...fresh]
              })
            )
          )
          return Stream.concat(caughtUp, live).pipe(Stream.flatMap(Stream.fromIterable))
        }))

      return { ofProject }
    })
  )
}
