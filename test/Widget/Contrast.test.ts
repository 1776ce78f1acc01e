import { describe, expect, it } from "vitest"
import { contrastRatio, textColourOn } from "../../widget/src/contrast.ts"

describe("the widget's text colour on the brand colour", () => {
  it("reaches 4.5:1 on every colour, sampled across the whole range", () => {
    let worst = { colour: "", ratio: Infinity }
    for (let value = 0; value < 0x1000000; value += 997) {
      const colour = `#${value.toString(16).padStart(6, "0")}`
      const ratio = contrastRatio(colour, textColourOn(colour))
      if (ratio < worst.ratio) worst = { colour, ratio }
    }
    expect(worst.ratio, `worst: ${worst.colour}`).toBeGreaterThanOrEqual(4.5)
  })

  it("puts dark text on the default #0284c7 and on yellow, white on navy", () => {
    expect(contrastRatio("#0284c7", textColourOn("#0284c7"))).toBeGreaterThanOrEqual(4.5)
    expect(textColourOn("#fde047")).toBe("#000000")
    expect(textColourOn("#1e3a8a")).toBe("#ffffff")
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5)
  })
})
