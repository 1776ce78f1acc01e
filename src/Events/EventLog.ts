import { Cause, Clock, Context, Deferred, Duration, Effect, Layer, Queue, Schedule, Stream } from "effect"
import { AppConfig } from "../Config.ts"
import { DatabaseInfo } from "../Database/Database.ts"
import { DatabaseOutage } from "../Database/Outage.ts"
import { eventBatch, type EventFilter, EventsRepo, type StoredEvent } from "./Repo.ts"

/** What a stream yields: the events it asked for, after a `reset` when it could not resume where it asked. */
export type LogItem = { readonly _tag: "Event"; readonly event: StoredEvent } | { readonly _tag: "Reset" }

/** How long the reader waits for a NOTIFY before it looks anyway (a dropped LISTEN). */
const fallbackPoll = Duration.seconds(5)
/**
 * While committed events wait behind an older transaction still running, the reader looks again
 * this soon, then twice as late each time up to a second: that transaction's end sends nothing.
 */
const firstLookBehind = 20
const lastLookBehind = 1_000

/**
 * How many deliveries a stream may fall behind before the server ends it: its client resumes
 * from its last id, from the log, instead of the server holding what it did not take.
 */
const streamBacklog = 10_000

interface Subscriber {
  readonly filter: EventFilter
  readonly queue: Queue.Queue<ReadonlyArray<StoredEvent>, Cause.Done>
}

/**
 * The log of every project's events, as streams. While someone streams, each instance reads each
 * event that became final once, wherever it was written, and hands it to the streams it holds
 * that want it (by project, by ticket): a stream costs no query of its own per event, and an
 * event committed on one instance reaches the streams of every other.
 */
export class EventLog extends Context.Service<EventLog, {
  /**
   * The events `filter` wants after position `after` (or from now, when undefined), in order, each
   * once, led by a `Reset` when `after` is too old to resume from (or not a position of this
   * log); it ends only when the stream falls far behind its client.
   */
  readonly stream: (filter: EventFilter, after: number | undefined) => Stream.Stream<LogItem>
}>()("app/Events/EventLog") {
  static readonly layer = Layer.effect(
    EventLog,
    Effect.gen(function*() {
      const repo = yield* EventsRepo
      const database = yield* DatabaseInfo
      const outage = yield* DatabaseOutage
      const config = yield* AppConfig

      yield* repo.keepPositionsIncreasing.pipe(Effect.withTracerEnabled(false))
      const pruneOnce = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const before = new Date(now - Duration.toMillis(config.eventRetention)).toISOString()
        yield* Effect.repeat(repo.prune(before), { while: ({ pruned }) => pruned === eventBatch * 10 })
      })
      yield* pruneOnce.pipe(
        Effect.catchCause(outage.logUnlessAway("removing events past EVENT_RETENTION failed")),
        Effect.repeat(Schedule.spaced("1 hour")),
        Effect.delay("1 minute"),
        Effect.withTracerEnabled(false),
        Effect.forkScoped
      )

      const wake = yield* Queue.sliding<void>(1)
      const byProject = new Map<string, Set<Subscriber>>()
      const byTicket = new Map<string, Set<Subscriber>>()
      let subscribers = 0

      // every event at or below `readerAt` has been handed out; undefined while nobody streams
      let readerAt: number | undefined
      let started = Deferred.makeUnsafe<number>()
      let lookAgainIn: Duration.Duration = fallbackPoll

      const hand = (events: ReadonlyArray<StoredEvent>) => {
        const wanted = new Map<Subscriber, Array<StoredEvent>>()
        const give = (subscriber: Subscriber, event: StoredEvent) => {
          const list = wanted.get(subscriber)
          if (list === undefined) wanted.set(subscriber, [event])
          else list.push(event)
        }
        for (const event of events) {
          for (const subscriber of byProject.get(event.project_id) ?? []) give(subscriber, event)
          if (event.ticket_id === null) continue
          for (const subscriber of byTicket.get(event.ticket_id) ?? []) {
            if (subscriber.filter.ticketId !== undefined && subscriber.filter.kinds.includes(event.kind)) {
              give(subscriber, event)
            }
          }
        }
        for (const [subscriber, list] of wanted) {
          if (!Queue.offerUnsafe(subscriber.queue, list)) Queue.endUnsafe(subscriber.queue)
        }
      }

      const readOnce = Effect.gen(function*() {
        yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(lookAgainIn))
        if (subscribers === 0) {
          // nobody to read for: a stream that starts catches up from the log itself
          if (readerAt !== undefined) started = Deferred.makeUnsafe<number>()
          readerAt = undefined
          lookAgainIn = fallbackPoll
          return
        }
        const { horizon, newest } = yield* repo.horizon
        let from = readerAt
        if (from === undefined) {
          from = horizon - 1
          readerAt = from
          Deferred.doneUnsafe(started, Effect.succeed(from))
        }
        for (;;) {
          const events: ReadonlyArray<StoredEvent> = yield* repo.between(from, horizon)
          const through: number = events.length === eventBatch ? events.at(-1)!.position : Math.max(from, horizon - 1)
          hand(events)
          readerAt = from = through
          if (events.length < eventBatch) break
        }
        lookAgainIn = newest !== null && newest >= horizon
          ? Duration.millis(Math.min(lastLookBehind, lookAgainIn === fallbackPoll ? firstLookBehind : Duration.toMillis(lookAgainIn) * 2))
          : fallbackPoll
      })

      yield* readOnce.pipe(
        Effect.catchCause((cause) =>
          Effect.andThen(outage.logUnlessAway("reading events failed; trying again")(cause), Effect.sleep("1 second"))
        ),
        Effect.forever,
        // a loop that runs on every write would be a trace of its own each time
        Effect.withTracerEnabled(false),
        Effect.forkScoped
      )

      yield* database.listen("events").pipe(
        Stream.runForEach(() => Queue.offer(wake, undefined)),
        Effect.withTracerEnabled(false),
        Effect.forkScoped
      )

      const indexOf = (filter: EventFilter) =>
        filter.ticketId === undefined ? [byProject, filter.projectId] as const : [byTicket, filter.ticketId] as const

      const join = (subscriber: Subscriber) =>
        Effect.sync(() => {
          const [index, key] = indexOf(subscriber.filter)
          const set = index.get(key)
          if (set === undefined) index.set(key, new Set([subscriber]))
          else set.add(subscriber)
          subscribers++
          // where this stream's catching up from the log ends and the reader's deliveries begin
          return readerAt ?? started
        })

      const leave = (subscriber: Subscriber) =>
        Effect.sync(() => {
          const [index, key] = indexOf(subscriber.filter)
          const set = index.get(key)
          set?.delete(subscriber)
          if (set?.size === 0) index.delete(key)
          subscribers--
        })

      const stream = (filter: EventFilter, after: number | undefined): Stream.Stream<LogItem> =>
        Stream.unwrap(Effect.gen(function*() {
          const queue = yield* Queue.dropping<ReadonlyArray<StoredEvent>, Cause.Done>(streamBacklog)
          const subscriber: Subscriber = { filter, queue }
          const handOver = yield* Effect.acquireRelease(join(subscriber), () => leave(subscriber))
          yield* Queue.offer(wake, undefined)
          const readerFrom = typeof handOver === "number" ? handOver : yield* Deferred.await(handOver)

          let covered = readerFrom
          let reset = false
          if (after !== undefined) {
            const { pruned_through, newest } = yield* repo.bounds
            reset = after < pruned_through || after > Math.max(newest ?? 0, pruned_through)
            if (!reset) covered = after
          }

          /** The events wanted up to where the reader took over, from the log, a page at a time. */
          const caughtUp = Stream.fromEffect(Effect.gen(function*() {
            const found: Array<StoredEvent> = []
            while (covered < readerFrom) {
              const page = yield* repo.matching(filter, covered, readerFrom)
              found.push(...page)
              covered = page.length < eventBatch ? readerFrom : page.at(-1)!.position
            }
            return found
          }))
          // a resumed stream can be ahead of this instance's reader: what it has seen is skipped
          const live = Stream.map(Stream.fromQueue(queue), (events) => {
            const fresh = events.filter((event) => event.position > covered)
            if (fresh.length > 0) covered = fresh.at(-1)!.position
            return fresh
          })
          const events = Stream.concat(caughtUp, live).pipe(
            Stream.flatMap(Stream.fromIterable),
            Stream.map((event): LogItem => ({ _tag: "Event", event }))
          )
          return reset ? Stream.concat(Stream.succeed<LogItem>({ _tag: "Reset" }), events) : events
        }))

      return { stream }
    })
  )
}
