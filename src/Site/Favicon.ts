/**
 * The site's icon: a speech bubble's two lines on a disc of the widget's default colour. Pages
 * link the SVG; `/favicon.ico` serves the same drawing as an ICO for browsers (and tools) that
 * ask for it by that name whatever a page links.
 */
const blue = [0x02, 0x84, 0xc7] as const
const size = 32
const disc = { x: 16, y: 16, r: 15 }
const lineWidth = 3
const lines = [[10, 13, 22, 13], [10, 19, 18, 19]] as const

export const faviconSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}">` +
  `<circle cx="${disc.x}" cy="${disc.y}" r="${disc.r}" fill="#0284c7"/>` +
  `<path d="${lines.map(([x1, y1, x2]) => `M${x1} ${y1}H${x2}`).join("")}" stroke="#fff" stroke-width="${lineWidth}" stroke-linecap="round"/>` +
  `</svg>`

/** Distance from (px, py) to a horizontal segment: a line with round caps covers what is within half its width. */
const toSegment = (px: number, py: number, [x1, y1, x2]: readonly [number, number, number, number]) =>
  Math.hypot(px - Math.min(Math.max(px, x1), x2), py - y1)

/** The colour and coverage of one pixel, from 4 × 4 samples so the edges are smooth. */
const pixel = (x: number, y: number): readonly [number, number, number, number] => {
  let white = 0
  let inside = 0
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) {
      const px = x + (i + 0.5) / 4
      const py = y + (j + 0.5) / 4
      if (Math.hypot(px - disc.x, py - disc.y) > disc.r) continue
      inside++
      if (lines.some((line) => toSegment(px, py, line) <= lineWidth / 2)) white++
    }
  }
  if (inside === 0) return [0, 0, 0, 0]
  const mix = (channel: number) => Math.round((channel * (inside - white) + 255 * white) / inside)
  return [mix(blue[0]), mix(blue[1]), mix(blue[2]), Math.round((255 * inside) / 16)]
}

/**
 * One 32-bit image in an ICO directory: a BITMAPINFOHEADER, BGRA rows from the bottom up, and an
 * all-clear AND mask (the alpha channel does the masking). Drawn once, when the module loads.
 */
const ico = (): Uint8Array => {
  const pixels = size * size * 4
  const mask = size * 4 // one bit a pixel, rows padded to 32 bits
  const image = 40 + pixels + mask
  const view = new DataView(new ArrayBuffer(6 + 16 + image))
  view.setUint16(2, 1, true) // an icon
  view.setUint16(4, 1, true) // one image
  view.setUint8(6, size)
  view.setUint8(7, size)
  view.setUint16(10, 1, true) // planes
  view.setUint16(12, 32, true) // bits a pixel
  view.setUint32(14, image, true)
  view.setUint32(18, 22, true) // where the image starts
  view.setUint32(22, 40, true)
  view.setInt32(26, size, true)
  view.setInt32(30, size * 2, true) // the colours and the mask, one above the other
  view.setUint16(34, 1, true)
  view.setUint16(36, 32, true)
  view.setUint32(42, pixels + mask, true)
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = pixel(x, size - 1 - y)
      const at = 62 + (y * size + x) * 4
      view.setUint8(at, b)
      view.setUint8(at + 1, g)
      view.setUint8(at + 2, r)
      view.setUint8(at + 3, a)
    }
  }
  return new Uint8Array(view.buffer)
}

export const faviconIco = ico()
