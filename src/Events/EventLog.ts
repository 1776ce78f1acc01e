import { Clock, Context, Deferred, Duration, Effect, Layer, Queue, Schedule, Stream } from "effect"
import { Sse } from "effect/encoding"
import { Readable } from "node:stream"
import { AppConfig } from "../Config.ts"
import { DatabaseInfo } from "../Database/Database.ts"
import { DatabaseOutage } from "../Database/Outage.ts"
import { Readiness } from "../Health/Readiness.ts"
import { eventBatch, type EventFilter, EventsRepo, type StoredEvent } from "./Repo.ts"

/** How long the reader waits for a NOTIFY before it looks anyway (a dropped LISTEN). */
const fallbackPoll = Duration.seconds(5)
/**
 * While committed events wait behind an older transaction still running, the reader looks again
 * this soon, then twice as late each time up to a second: that transaction's end sends nothing.
 */
const firstLookBehind = 20
const lastLookBehind = 1_000

/** Sent while nothing happens, under the idle timeouts of proxies and load balancers; clients ignore comments. */
const keepAliveEvery = Duration.seconds(15)
const keepAlive = ": keep-alive\n\n"

/**
 * How much a stream may hold that its client has not taken before the server ends it: the client
 * resumes from its last id, from the log, instead of the server holding what it did not read.
 */
const backlogBytes = 1024 * 1024

const resetEvent = Sse.encoder.write({
  _tag: "Event",
  id: undefined,
  event: "reset",
  data: JSON.stringify({
    reason: "the Last-Event-ID given is too old to replay, or not an id of this stream: read the current state, then carry on with the events that follow"
  })
})

/** An event as Server-Sent Events write it: its position is its id, its webhook name and body the rest. */
const encode = (event: StoredEvent) =>
  Sse.encoder.write({ _tag: "Event", id: String(event.position), event: event.kind, data: event.body })

interface Subscriber {
  readonly filter: EventFilter
  readonly body: Readable
  /** the highest position written to `body`, or known to have nothing for it */
  covered: number
  /** what the reader handed over while the stream still caught up from the log */
  pending: Array<StoredEvent> | undefined
  /** ended by the shutdown: nothing more may be written */
  ended: boolean
}

/**
 * The log of every project's events, as the bodies of Server-Sent Events responses. While someone
 * streams, each instance reads each event that became final once, wherever it was written, and
 * writes it to the streams it holds that want it (by project, by ticket): a stream costs no query
 * of its own per event, and an event committed on one instance reaches the streams of every other.
 *
 * A stream is a plain Node `Readable` the server pipes to the client, written to directly: at ten
 * thousand open streams, one composed Effect `Stream` each (events, keep-alives, catching up)
 * held some 36 KB apiece in fibers and scopes (docs/upstream.md), which this does without. One
 * timer writes every stream's keep-alives.
 */
export class EventLog extends Context.Service<EventLog, {
  /**
   * A body that writes the events `filter` wants after position `after` (or from now, when
   * undefined), in order, each once, led by a `reset` event when `after` is too old to resume
   * from (or not a position of this log). It ends when the instance shuts down, or breaks off
   * when the client falls far behind; either way the client resumes from its last id.
   */
  readonly open: (filter: EventFilter, after: number | undefined) => Effect.Effect<Readable>
}>()("app/Events/EventLog") {
  static readonly layer = Layer.effect(
    EventLog,
    Effect.gen(function*() {
      const repo = yield* EventsRepo
      const database = yield* DatabaseInfo
      const outage = yield* DatabaseOutage
      const config = yield* AppConfig
      const readiness = yield* Readiness

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
      const all = new Set<Subscriber>()
      const byProject = new Map<string, Set<Subscriber>>()
      const byTicket = new Map<string, Set<Subscriber>>()

      // every event at or below `readerAt` has been handed out; undefined while nobody streams
      let readerAt: number | undefined
      let started = yield* Deferred.make<number>()
      let lookAgainIn: Duration.Duration = fallbackPoll

      const write = (subscriber: Subscriber, text: string) => {
        if (subscriber.ended || subscriber.body.destroyed) return
        // a client this far behind resumes from the log rather than being buffered for
        if (subscriber.body.readableLength > backlogBytes) subscriber.body.destroy()
        else subscriber.body.push(text)
      }

      const deliver = (subscriber: Subscriber, events: ReadonlyArray<StoredEvent>) => {
        let text = ""
        for (const event of events) {
          // a resumed stream can be ahead of this instance's reader: what it has seen is skipped
          if (event.position <= subscriber.covered) continue
          text += encode(event)
          subscriber.covered = event.position
        }
        if (text !== "") write(subscriber, text)
      }

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
          if (subscriber.pending !== undefined) subscriber.pending.push(...list)
          else deliver(subscriber, list)
        }
      }

      const readOnce = Effect.gen(function*() {
        yield* Effect.raceFirst(Queue.take(wake), Effect.sleep(lookAgainIn))
        if (all.size === 0) {
          // nobody to read for: a stream that starts catches up from the log itself
          if (readerAt !== undefined) started = yield* Deferred.make<number>()
          readerAt = undefined
          lookAgainIn = fallbackPoll
          return
        }
        const { horizon, newest } = yield* repo.horizon
        let from = readerAt
        if (from === undefined) {
          from = horizon - 1
          readerAt = from
          yield* Deferred.succeed(started, from)
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

      yield* Effect.sync(() => {
        for (const subscriber of all) write(subscriber, keepAlive)
      }).pipe(Effect.repeat(Schedule.spaced(keepAliveEvery)), Effect.delay(keepAliveEvery), Effect.forkScoped)

      /**
       * Shutting down ends every stream as it begins, so the server's wait for what is in flight
       * does not wait on them and their clients resume elsewhere; one opened meanwhile (a balancer
       * that has not noticed yet) ends once it has caught up.
       */
      let stopping = false
      const end = (subscriber: Subscriber) => {
        if (subscriber.ended) return
        subscriber.ended = true
        subscriber.body.push(null)
      }
      const endAll = Effect.sync(() => {
        stopping = true
        for (const subscriber of all) end(subscriber)
      })
      yield* Effect.andThen(readiness.whenStopping, endAll).pipe(Effect.forkScoped)
      yield* Effect.addFinalizer(() => endAll)

      const indexOf = (filter: EventFilter) =>
        filter.ticketId === undefined ? [byProject, filter.projectId] as const : [byTicket, filter.ticketId] as const

      const join = (subscriber: Subscriber) => {
        const [index, key] = indexOf(subscriber.filter)
        const set = index.get(key)
        if (set === undefined) index.set(key, new Set([subscriber]))
        else set.add(subscriber)
        all.add(subscriber)
        // where this stream's catching up from the log ends and the reader's deliveries begin
        return readerAt ?? started
      }

      const leave = (subscriber: Subscriber) => {
        if (!all.delete(subscriber)) return
        const [index, key] = indexOf(subscriber.filter)
        const set = index.get(key)
        set?.delete(subscriber)
        if (set?.size === 0) index.delete(key)
      }

      const open = (filter: EventFilter, after: number | undefined): Effect.Effect<Readable> =>
        Effect.suspend(() => {
          const subscriber: Subscriber = {
            filter,
            body: new Readable({ read() {} }),
            covered: 0,
            pending: [],
            ended: false
          }
          subscriber.body.on("close", () => leave(subscriber))
          const handOver = join(subscriber)
          subscriber.body.push(keepAlive)
          return Effect.gen(function*() {
            yield* Queue.offer(wake, undefined)
            const readerFrom = typeof handOver === "number" ? handOver : yield* Deferred.await(handOver)
            subscriber.covered = readerFrom
            if (after !== undefined) {
              const { pruned_through, newest } = yield* repo.bounds
              const reset = after < pruned_through || after > Math.max(newest ?? 0, pruned_through)
              if (reset) write(subscriber, resetEvent)
              else subscriber.covered = after
            }
            // the events wanted up to where the reader took over, from the log, a page at a time
            while (subscriber.covered < readerFrom) {
              const page = yield* repo.matching(filter, subscriber.covered, readerFrom)
              deliver(subscriber, page)
              if (page.length < eventBatch) subscriber.covered = readerFrom
            }
            const pending = subscriber.pending!
            subscriber.pending = undefined
            deliver(subscriber, pending)
            if (stopping) end(subscriber)
            return subscriber.body
          }).pipe(
            // a stream that could not start (the database away, the client gone) holds nothing
            Effect.onExit((exit) => exit._tag === "Success" ? Effect.void : Effect.sync(() => subscriber.body.destroy()))
          )
        })

      return { open }
    })
  )
}
