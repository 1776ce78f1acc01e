/** WCAG 2.x colour contrast, for picking the text colour and the focus ring on the brand colour. */

export const WHITE = "#ffffff"
/**
 * Black: with white it reaches at least √21 ≈ 4.58:1 on every colour. A softer near-black
 * cannot promise 4.5:1 (#111827 leaves the default #0284c7 at 4.3, #030712 some colours at 4.49).
 */
export const BLACK = "#000000"

/** `#rgb` or `#rrggbb` (case-insensitive). */
export const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i

/** [r, g, b] in 0–255 from `#rgb` or `#rrggbb`; throws on anything else. */
export function parseHex(hex: string): [number, number, number] {
  if (!HEX_COLOUR.test(hex)) throw new Error(`not a hex colour: ${hex}`)
  let h = hex.slice(1)
  if (h.length === 3) h = h[0] + h[0] + h[1] + h[1] + h[2] + h[2]
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number]
}

/** Relative luminance (WCAG 2.x), 0 for black to 1 for white. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((c) => {
    const s = c / 255
    return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4)
  })
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** Contrast ratio between two colours, from 1 (same) to 21 (black on white). */
export function contrastRatio(a: string, b: string): number {
  const la = relativeLuminance(a)
  const lb = relativeLuminance(b)
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)
}

/** White or black, whichever contrasts more with `background` (white on a tie). */
export function textColourOn(background: string): string {
  return contrastRatio(background, WHITE) >= contrastRatio(background, BLACK) ? WHITE : BLACK
}

/**
 * The launcher's two-tone focus ring: the inner band in the text colour on `background`, so it
 * stands out from the button, and the outer band in the other of black and white, so that one of
 * the two contrasts by at least √21 ≈ 4.58:1 with whatever page the launcher sits on.
 */
export function focusRing(background: string): { inner: string; outer: string } {
  const inner = textColourOn(background)
  return { inner, outer: inner === WHITE ? BLACK : WHITE }
}
