/**
 * glibc's malloc held to one arena (src/Http/MallocArenas.ts): the rule, and the restart in place
 * that the preload (src/Http/Preload.ts) applies with it. What it saves is memory under load, which the benchmarks measure (README,
 * "Performance, as measured here").
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { restartsWithOneArena } from "../../src/Http/MallocArenas.ts"

const preload = fileURLToPath(new URL("../../src/Http/Preload.ts", import.meta.url))

/** Runs a script that reports how it was started, with the preload and the given environment. */
const started = (env: Record<string, string | undefined>, flags: ReadonlyArray<string> = []) => {
  const dir = mkdtempSync(join(tmpdir(), "malloc-arenas-"))
  try {
    const script = join(dir, "report.mjs")
    writeFileSync(
      script,
      `import { readFileSync } from "node:fs"
       const environ = readFileSync("/proc/self/environ", "utf8").split("\\0")
       console.log(JSON.stringify({
         pid: process.pid,
         execArgv: process.execArgv,
         args: process.argv.slice(2),
         marker: process.env.MALLOC_ARENAS_MARKER,
         arenas: process.env.MALLOC_ARENA_MAX ?? null,
         arenasAtExec: environ.find((entry) => entry.startsWith("MALLOC_ARENA_MAX=")) ?? null
       }))`
    )
    const { MALLOC_ARENA_MAX: _, ...inherited } = process.env
    const result = spawnSync(process.execPath, [...flags, `--import=${preload}`, script, "first", "second"], {
      encoding: "utf8",
      env: { ...inherited, MALLOC_ARENAS_MARKER: "kept", ...env }
    })
    expect(result.status, result.stderr).toBe(0)
    return {
      childPid: result.pid,
      ...JSON.parse(result.stdout) as {
        pid: number
        execArgv: Array<string>
        args: Array<string>
        marker: string
        arenas: string | null
        arenasAtExec: string | null
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("glibc's malloc arenas", () => {
  it("are held to one on Linux, unless the environment already says how many", () => {
    expect(restartsWithOneArena("linux", {})).toBe(true)
    expect(restartsWithOneArena("linux", { MALLOC_ARENA_MAX: "4" })).toBe(false)
    expect(restartsWithOneArena("darwin", {})).toBe(false)
    expect(restartsWithOneArena("win32", {})).toBe(false)
  })

  it.runIf(process.platform === "linux")(
    "restart the process in place, so glibc reads the setting: same pid, arguments, flags and environment",
    () => {
      const run = started({}, ["--max-semi-space-size=16"])
      // in the environment the process was exec'd with, which is the one glibc reads, not only in process.env
      expect(run.arenasAtExec).toBe("MALLOC_ARENA_MAX=1")
      expect(run.arenas).toBe("1")
      expect(run.pid).toBe(run.childPid)
      expect(run.execArgv).toEqual(["--max-semi-space-size=16", `--import=${preload}`])
      expect(run.args).toEqual(["first", "second"])
      expect(run.marker).toBe("kept")
    }
  )

  it.runIf(process.platform === "linux")("leave a process alone whose environment chose", () => {
    const run = started({ MALLOC_ARENA_MAX: "4" })
    expect(run.arenasAtExec).toBe("MALLOC_ARENA_MAX=4")
    expect(run.execArgv).toEqual([`--import=${preload}`])
  })
})
