import { describe, expect, it } from "vitest"
import { contrastRatio, focusRing, textColourOn } from "../../widget/src/contrast.ts"

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

describe("the launcher's focus ring", () => {
  const sampled = (step: number) =>
    Array.from({ length: Math.ceil(0x1000000 / step) }, (_, i) => `#${(i * step).toString(16).padStart(6, "0")}`)

  it("has an inner band that stands out from the launcher, whatever its colour", () => {
    for (const colour of sampled(997)) {
      const { inner } = focusRing(colour)
      expect(contrastRatio(inner, colour), colour).toBeGreaterThanOrEqual(4.5)
    }
  })

  it("has a band that reaches 3:1 (4.5:1, in fact) on any page behind it, whatever the launcher's colour", () => {
    const rings = new Map(sampled(997).map((colour) => {
      const ring = focusRing(colour)
      return [`${ring.inner} ${ring.outer}`, ring]
    }))
    for (const { inner, outer } of rings.values()) {
      for (const page of sampled(4099)) {
        expect(Math.max(contrastRatio(inner, page), contrastRatio(outer, page)), `${inner}/${outer} on ${page}`)
          .toBeGreaterThanOrEqual(4.5)
      }
    }
  })
})
