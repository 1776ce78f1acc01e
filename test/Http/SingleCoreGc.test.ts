/**
 * The garbage collector kept on the JavaScript thread when the process has one core
 * (src/Http/SingleCoreGc.ts): the rule, and the restart in place that applies it, run with the
 * process confined to one core by `taskset`. What it saves is latency under load, which the
 * benchmarks measure (README, "Performance, as measured here").
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { restartsSingleThreaded } from "../../src/Http/SingleCoreGc.ts"

const preload = fileURLToPath(new URL("../../src/Http/SingleCoreGc.ts", import.meta.url))

/** Runs a script that reports how it was started, with the preload, under `command`. */
const started = (command: ReadonlyArray<string>, flags: ReadonlyArray<string> = []) => {
  const dir = mkdtempSync(join(tmpdir(), "single-core-gc-"))
  try {
    const script = join(dir, "report.mjs")
    writeFileSync(
      script,
      `console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, args: process.argv.slice(2), marker: process.env.SINGLE_CORE_GC_MARKER }))`
    )
    const [file, ...args] = [...command, process.execPath, ...flags, `--import=${preload}`, script, "first", "second"]
    const result = spawnSync(file!, args, { encoding: "utf8", env: { ...process.env, SINGLE_CORE_GC_MARKER: "kept" } })
    expect(result.status, result.stderr).toBe(0)
    return { childPid: result.pid, ...JSON.parse(result.stdout) as { pid: number; execArgv: Array<string>; args: Array<string>; marker: string } }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("the garbage collector on one core", () => {
  it("is kept on the JavaScript thread only with one core, unless the command line says either way", () => {
    expect(restartsSingleThreaded([], 1)).toBe(true)
    expect(restartsSingleThreaded(["--max-semi-space-size=16"], 1)).toBe(true)
    expect(restartsSingleThreaded([], 2)).toBe(false)
    expect(restartsSingleThreaded(["--single-threaded-gc"], 1)).toBe(false)
    expect(restartsSingleThreaded(["--single_threaded_gc"], 1)).toBe(false)
    expect(restartsSingleThreaded(["--no-single-threaded-gc"], 1)).toBe(false)
  })

  it("restarts a process confined to one core in place: same pid, arguments, flags and environment", () => {
    const run = started(["taskset", "-c", "0"], ["--max-semi-space-size=16"])
    expect(run.execArgv).toEqual(["--single-threaded-gc", "--max-semi-space-size=16", `--import=${preload}`])
    expect(run.pid).toBe(run.childPid)
    expect(run.args).toEqual(["first", "second"])
    expect(run.marker).toBe("kept")
  })

  it("leaves a process alone when its command line chose, and one with more cores than one", () => {
    expect(started(["taskset", "-c", "0"], ["--no-single-threaded-gc"]).execArgv).toEqual([
      "--no-single-threaded-gc",
      `--import=${preload}`
    ])
    expect(started([]).execArgv).toEqual(availableParallelism() === 1 ? ["--single-threaded-gc", `--import=${preload}`] : [`--import=${preload}`])
  })
})
