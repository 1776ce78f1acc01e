/**
 * The next-tick record kept from before the service loads (src/Http/TickRecords.ts, loaded by the
 * preload src/Http/Preload.ts): that it is one of Node's own, and that the commands starting the
 * service load it first. What it saves is CPU per request, which the benchmarks measure (README,
 * "Performance, as measured here").
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { keptTickRecords } from "../../src/Http/TickRecords.ts"

const root = new URL("../../", import.meta.url)
const source = "src/Http/Preload.ts"
const built = "dist/preload.mjs"
const scripts: Record<string, string> = JSON.parse(readFileSync(new URL("package.json", root), "utf8")).scripts

describe("the kept next-tick record", () => {
  it("is a record Node made for process.nextTick", () => {
    expect(keptTickRecords).toHaveLength(1)
    const record = keptTickRecords[0] as Record<PropertyKey, unknown>
    expect(typeof record.callback).toBe("function")
    const keys = Object.getOwnPropertySymbols(record).map((symbol) => symbol.description)
    expect(keys).toContain("async_id_symbol")
    expect(keys).toContain("trigger_async_id_symbol")
  })

  it("is loaded before the service by npm start (built) and npm run start:dev (the source)", () => {
    expect(existsSync(new URL(source, root))).toBe(true)
    for (const [name, preload, entry] of [["start", built, "dist/main.mjs"], ["start:dev", source, "src/main.ts"]] as const) {
      const command = scripts[name]!.split(" && ").at(-1)!.split(" ")
      const flag = `--import=./${preload}`
      expect(command[0], name).toBe("node")
      expect(command.indexOf(flag), name).toBeGreaterThan(0)
      expect(command.indexOf(flag), name).toBeLessThan(command.indexOf(entry))
    }
  })

  it("is built from the source by npm run build, and npm start then loads no TypeScript stripper", () => {
    // a .ts preload would make Node load its type stripper (amaro): 17 MB of memory, for good
    expect(scripts.build).toContain("npm run build:preload")
    const command = scripts["build:preload"]!.split(" ")
    expect(command[0]).toBe("esbuild")
    expect(command[1]).toBe(source)
    expect(command).toContain(`--outfile=${built}`)
    const dir = mkdtempSync(join(tmpdir(), "preload-"))
    try {
      const outfile = join(dir, "preload.mjs")
      const esbuild = fileURLToPath(new URL("node_modules/.bin/esbuild", root))
      execFileSync(esbuild, [...command.slice(1).map((arg) => arg === `--outfile=${built}` ? `--outfile=${outfile}` : arg)], {
        cwd: fileURLToPath(root)
      })
      const loaded = JSON.parse(execFileSync(process.execPath, [
        `--import=${outfile}`,
        "--input-type=module",
        "-e",
        `const { keptTickRecords } = await import(${JSON.stringify(outfile)})
         console.log(JSON.stringify({ kept: keptTickRecords.length, stripper: process.moduleLoadList.filter((m) => m.includes("amaro")) }))`
      ], { encoding: "utf8" }))
      expect(loaded).toEqual({ kept: 1, stripper: [] })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
