import { Deferred, Effect, Exit, Queue, type Scope } from "effect"

interface Entry<I, A> {
  readonly item: I
  readonly done: Deferred.Deferred<A>
}

/**
 * One statement for the items of many callers (a group commit, for writes): while `inFlight`
 * statements are on their way, the callers that come meanwhile queue, and the next free lane
 * takes all of them (up to `maxBatch`) at once. Alone, a caller waits for nobody and goes by
 * `one`; under load the groups grow by themselves, so a thousand callers cost tens of
 * statements, commits and lock hand-overs rather than a thousand.
 *
 * `many` answers each item's result in order, or fails as a whole having written nothing (one
 * statement); then every item goes again by `one`, so an item the group could not take fails
 * alone, with its own error. A group once taken is finished even while the scope closes, and
 * what is still queued then goes before it ends: a caller never waits forever.
 */
export const statements = <I, A>(options: {
  readonly inFlight: number
  readonly maxBatch: number
  readonly one: (item: I) => Effect.Effect<A>
  readonly many: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<A>>
}): Effect.Effect<(item: I) => Effect.Effect<A>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<Entry<I, A>>()

    const alone = (entry: Entry<I, A>) =>
      Effect.flatMap(Effect.exit(options.one(entry.item)), (exit) => Deferred.done(entry.done, exit))

    const run = (entries: ReadonlyArray<Entry<I, A>>) =>
      entries.length === 1 ? alone(entries[0]!) : Effect.flatMap(
        Effect.exit(options.many(entries.map((entry) => entry.item))),
        (exit) =>
          Exit.isSuccess(exit) && exit.value.length === entries.length
            ? Effect.forEach(entries, (entry, i) => Deferred.succeed(entry.done, exit.value[i]!), { discard: true })
            : Effect.forEach(entries, alone, { discard: true })
      )

    // registered before the lanes start, so it runs after they stopped: nothing queued is left
    yield* Effect.addFinalizer(() => Effect.flatMap(Queue.clear(queue), (entries) => Effect.forEach(entries, alone)))
    for (let i = 0; i < options.inFlight; i++) {
      yield* Queue.takeBetween(queue, 1, options.maxBatch).pipe(
        Effect.flatMap((entries) => Effect.uninterruptible(run(entries))),
        Effect.forever,
        // a statement for many requests belongs to none of their traces
        Effect.withTracerEnabled(false),
        Effect.forkScoped
      )
    }

    return (item: I) =>
      Effect.flatMap(Deferred.make<A>(), (done) =>
        Effect.andThen(Queue.offer(queue, { item, done }), Deferred.await(done)))
  })
