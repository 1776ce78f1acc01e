/**
 * Whether Node should be started again with glibc's malloc held to one arena: on Linux, when the
 * environment does not already say how many (MALLOC_ARENA_MAX, which glibc reads only as a
 * process starts, so a running process cannot change it).
 *
 * By default glibc gives each thread that allocates its own arena, up to eight per core, and
 * keeps what an arena has freed for that thread's later use. A Node process has a dozen threads
 * (V8's helpers, libuv's pool), and under load their arenas held 20-25 MB of RSS that the service
 * never used again. That headroom is what lets V8's old generation grow to twice what is live
 * before each full collection (`--heap-growing-percent=100` in `npm start`): with both, the four
 * benchmark scenarios in turn peaked at 218-241 MB (237 MB with neither) and the reads' 99th
 * percentile fell from 20 to 10-12 ms; with two arenas instead of one the same run peaked at 252 MB
 * (README, "Performance, as measured here").
 */
export const restartsWithOneArena = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean =>
  platform === "linux" && env.MALLOC_ARENA_MAX === undefined

/**
 * Applies the rule: the process replaces itself, so this runs before anything else is loaded
 * (src/Http/Preload.ts). `process.execve` keeps its pid (a supervisor or a benchmark still sees
 * the process it started), its arguments, its flags and its standard streams. Where there is no
 * `execve`, the process goes on as it is.
 */
export const restartWithOneArenaIfNeeded = (): void => {
  if (!restartsWithOneArena(process.platform, process.env) || typeof process.execve !== "function") return
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
      ...process.env,
      MALLOC_ARENA_MAX: "1"
    })
  } catch {
    // execve refused (a sandbox): the default arenas
  }
}
