/**
 * The next-tick record kept from before the service loads (src/Http/TickRecords.ts): that it is
 * one of Node's own, and that the commands starting the service load it first. What it saves is
 * CPU per request, which the benchmarks measure (README, "Performance, as measured here").
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { keptTickRecords } from "../../src/Http/TickRecords.ts"

const root = new URL("../../", import.meta.url)
const tickRecordsFlag = "--import=./src/Http/TickRecords.ts"

describe("the kept next-tick record", () => {
  it("is a record Node made for process.nextTick", () => {
    expect(keptTickRecords).toHaveLength(1)
    const record = keptTickRecords[0] as Record<PropertyKey, unknown>
    expect(typeof record.callback).toBe("function")
    const keys = Object.getOwnPropertySymbols(record).map((symbol) => symbol.description)
    expect(keys).toContain("async_id_symbol")
    expect(keys).toContain("trigger_async_id_symbol")
  })

  it("is loaded before the service by npm start and npm run start:dev", () => {
    const scripts: Record<string, string> = JSON.parse(readFileSync(new URL("package.json", root), "utf8")).scripts
    expect(existsSync(new URL(tickRecordsFlag.slice("--import=./".length), root))).toBe(true)
    for (const [name, entry] of [["start", "dist/main.mjs"], ["start:dev", "src/main.ts"]] as const) {
      const command = scripts[name]!.split(" && ").at(-1)!.split(" ")
      expect(command[0], name).toBe("node")
      expect(command.indexOf(tickRecordsFlag), name).toBeGreaterThan(0)
      expect(command.indexOf(tickRecordsFlag), name).toBeLessThan(command.indexOf(entry))
    }
  })
})
