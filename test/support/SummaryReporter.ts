import type { Reporter, TestModule } from "vitest/node"

/** A suite skipped for want of something names it in its title: `… (skipped: no Redis server: …)`. */
const skipReason = (fullName: string) => {
  for (const part of fullName.split(" > ")) {
    const reason = /\(skipped: (.*)\)$/.exec(part)?.[1]
    if (reason !== undefined) return reason
  }
  return undefined
}

/**
 * Ends the run with one plain `N passed, N failed, N skipped` line that any CI log reader can
 * parse, after what was skipped and why, so a skip is never silent.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0
    let failed = 0
    let skipped = 0
    const reasons = new Map<string, number>()
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else {
          skipped++
          const reason = skipReason(test.fullName) ?? "no reason given (left out by a filter, or skipped in the code)"
          reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
        }
      }
      if (module.state() === "failed" && module.children.size === 0) failed++
    }
    if (reasons.size > 0) {
      console.log("\nskipped, by reason:")
      for (const [reason, count] of [...reasons].sort((a, b) => b[1] - a[1])) {
        console.log(`  ${String(count).padStart(4)}  ${reason}`)
      }
    }
    console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`)
  }
}
