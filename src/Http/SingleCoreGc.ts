import { availableParallelism } from "node:os"

/**
 * Whether Node should be started again with V8's garbage collector kept on the JavaScript thread:
 * when the process may run on one core only, and its command line does not already say either way.
 *
 * V8 hands parts of each collection to helper threads (parallel scavenges, concurrent marking).
 * On a process confined to one core (an affinity mask, as the reference benchmark pins the
 * service, or a one-CPU machine) they gain nothing and run on the core the requests need, which
 * the system then gives them in slices of several milliseconds while no request is served. Under
 * ticket reads, each full collection (one a second at 13k reads a second) stopped the service for
 * 20-50 ms that way, and those stops made the 99th percentile; with the collector on the
 * JavaScript thread, p99 went from 15.7 to 9.0 ms and the rate from 13.1k to 14.5k a second
 * (README, "Performance, as measured here"). With more than one core the helpers run beside the
 * requests, and the default stays.
 */
export const restartsSingleThreaded = (execArgv: ReadonlyArray<string>, cores: number): boolean =>
  cores === 1 && !execArgv.some((arg) => /^--(no-)?single[-_]threaded[-_]gc$/.test(arg))

/**
 * The flag cannot be set once V8 runs (`v8.setFlagsFromString` changed nothing, measured), so the
 * process replaces itself before anything else is loaded: `process.execve` keeps its pid, its
 * standard streams and its environment. Where there is no `execve`, the default collector stays.
 */
if (restartsSingleThreaded(process.execArgv, availableParallelism()) && typeof process.execve === "function") {
  try {
    process.execve(process.execPath, [process.execPath, "--single-threaded-gc", ...process.execArgv, ...process.argv.slice(1)], process.env)
  } catch {
    // a platform without execve (Windows): the default collector
  }
}
