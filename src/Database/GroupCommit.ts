import { Deferred, Effect, Exit, Queue, type Scope } from "effect"

interface Entry<I, A> {
  readonly item: I
  readonly done: Deferred.Deferred<A>
}

/**
 * Writes the items of many callers with one statement: while `writers` statements are on their
 * way, the callers that come meanwhile queue, and the next free writer takes all of them (up to
 * `maxBatch`) at once. Alone, a caller waits for nobody and is written by `writeOne`; under load
 * the batches grow by themselves, so a thousand callers cost tens of statements, commits and
 * lock hand-overs rather than a thousand.
 *
 * `writeBatch` answers each item's result in order, or fails as a whole and writes nothing (one
 * statement); then every item is written again by itself, so one item the batch could not take
 * fails alone, with its own error. A batch once taken is finished even while the scope closes,
 * and what is still queued then is written before it ends: a caller never waits forever.
 */
export const make = <I, A>(options: {
  readonly writers: number
  readonly maxBatch: number
  readonly writeOne: (item: I) => Effect.Effect<A>
  readonly writeBatch: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<A>>
}): Effect.Effect<(item: I) => Effect.Effect<A>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<Entry<I, A>>()

    const alone = (entry: Entry<I, A>) =>
      Effect.flatMap(Effect.exit(options.writeOne(entry.item)), (exit) => Deferred.done(entry.done, exit))

    const write = (entries: ReadonlyArray<Entry<I, A>>) =>
      entries.length === 1 ? alone(entries[0]!) : Effect.flatMap(
        Effect.exit(options.writeBatch(entries.map((entry) => entry.item))),
        (exit) =>
          Exit.isSuccess(exit) && exit.value.length === entries.length
            ? Effect.forEach(entries, (entry, i) => Deferred.succeed(entry.done, exit.value[i]!), { discard: true })
            : Effect.forEach(entries, alone, { discard: true })
      )

    // registered before the writers start, so it runs after they stopped: nothing queued is left
    yield* Effect.addFinalizer(() => Effect.flatMap(Queue.clear(queue), (entries) => Effect.forEach(entries, alone)))
    for (let i = 0; i < options.writers; i++) {
      yield* Queue.takeBetween(queue, 1, options.maxBatch).pipe(
        Effect.flatMap((entries) => Effect.uninterruptible(write(entries))),
        Effect.forever,
        Effect.forkScoped
      )
    }

    return (item: I) =>
      Effect.flatMap(Deferred.make<A>(), (done) =>
        Effect.andThen(Queue.offer(queue, { item, done }), Deferred.await(done)))
  })
