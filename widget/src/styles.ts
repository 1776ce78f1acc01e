import type { Position } from "./config.ts"
import { focusRing } from "./contrast.ts"

export const Z_INDEX = "2147483000"

/** Inline, `!important` styles for the host element, so page CSS cannot hide or move it. */
export function styleHost(host: HTMLElement, position: Position): void {
  const side = position === "bottom-left" ? "left" : "right"
  const rules: Array<[string, string]> = [
    ["all", "initial"],
    ["display", "block"],
    ["position", "fixed"],
    ["z-index", Z_INDEX],
    ["bottom", "0"],
    [side, "0"],
    ["width", "0"],
    ["height", "0"],
    ["margin", "0"],
    ["padding", "0"],
    ["border", "0"],
    ["overflow", "visible"],
    ["visibility", "visible"],
    ["opacity", "1"],
    ["transform", "none"],
    ["filter", "none"],
    ["contain", "none"],
    ["pointer-events", "auto"]
  ]
  for (const [name, value] of rules) host.style.setProperty(name, value, "important")
}

/** The stylesheet inside the shadow root. Pixel units only: the page's root font size must not matter. */
export function css(color: string, onColor: string, position: Position): string {
  const side = position === "bottom-left" ? "left" : "right"
  const other = side === "left" ? "right" : "left"
  const ink = "#111827"
  const ring = focusRing(color)
  return `
:host{all:initial}
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
.l,.p{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:${ink};text-align:left;letter-spacing:normal;text-transform:none;direction:ltr}
button,input,select,textarea{font:inherit;color:inherit;margin:0}
:focus{outline:none}
:focus-visible,.sr:focus-visible+label{outline:2px solid #fff;box-shadow:0 0 0 4px ${ink}}
input:focus-visible,select:focus-visible,textarea:focus-visible{outline:2px solid ${ink};outline-offset:1px;box-shadow:0 0 0 4px #fff}
.l{position:fixed;bottom:20px;${side}:20px;width:56px;height:56px;border-radius:50%;border:0;padding:0;display:flex;align-items:center;justify-content:center;background:${color};color:${onColor};cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25)}
.l:focus-visible{outline:3px solid ${ring.outer};outline-offset:3px;box-shadow:0 0 0 4px ${ring.inner},0 4px 14px rgba(0,0,0,.25)}
.l svg{width:28px;height:28px;fill:none;stroke:currentColor;stroke-width:2;stroke-linecap:round;stroke-linejoin:round}
.p{position:fixed;bottom:88px;${side}:20px;${other}:auto;width:370px;max-width:calc(100vw - 24px);height:min(640px,calc(100vh - 108px));display:flex;flex-direction:column;background:#fff;border-radius:12px;overflow:hidden;box-shadow:0 10px 40px rgba(0,0,0,.3);border:1px solid rgba(0,0,0,.08)}
.p>form,.v{flex:1 1 auto;min-height:0}
.h{background:${color};color:${onColor};padding:16px 56px 16px 18px;flex:none}
.h h2{margin:0;font-size:19px;font-weight:700;line-height:1.3;overflow-wrap:anywhere}
.x{position:absolute;top:10px;right:10px;width:36px;height:36px;border:0;border-radius:8px;background:transparent;color:${onColor};cursor:pointer;font-size:24px;line-height:1;display:flex;align-items:center;justify-content:center}
.x:hover{background:rgba(127,127,127,.25)}
form{margin:0;padding:16px 18px 18px;overflow-y:auto;display:flex;flex-direction:column;gap:12px}
.f{display:flex;flex-direction:column;gap:4px}
label{font-weight:600;font-size:14px;cursor:default}
input,select,textarea{display:block;width:100%;font-size:16px;padding:9px 10px;border:1px solid #6b7280;border-radius:8px;background:#fff;color:${ink};line-height:1.35;min-height:42px}
textarea{min-height:96px;resize:vertical}
[aria-invalid=true]{border-color:#b91c1c}
.fe{margin:0;font-size:14px;color:#991b1b}
.s,.r{border:0;border-radius:8px;padding:10px 16px;font-size:19px;font-weight:700;cursor:pointer;background:${color};color:${onColor}}
.r{background:#fff;color:${ink};border:1px solid #6b7280;align-self:flex-start;padding:7px 14px;font-size:14px}
.s:disabled{opacity:.6;cursor:progress}
.m{margin:0;font-size:14px}
.m:empty{padding:0!important;border:0!important}
.e{color:#991b1b;background:#fef2f2;border:1px solid #fecaca;border-radius:8px;padding:8px 10px}
.ok{color:#065f46;background:#ecfdf5;border:1px solid #a7f3d0;border-radius:8px;padding:8px 10px}
.cf:empty{position:absolute}
.d{background:#f3f4f6;border-radius:8px;padding:8px 10px}
.d p{margin:0 0 4px;font-weight:600}
.d ul{margin:0;padding:0;list-style:none}
.d li{padding:6px 0;border-top:1px solid #e5e7eb}
.d li:first-child{border-top:0}
.d b{display:block;font-weight:600}
.d span{display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden;color:#374151;font-size:13px}
.v{padding:16px 18px 18px;overflow-y:auto;display:flex;flex-direction:column;gap:10px}
.v h3{margin:0;font-size:17px;overflow-wrap:anywhere}
.v form{padding:0;overflow:visible}
.q{margin:0;padding:0;list-style:none}
.q li{border-top:1px solid #e5e7eb;padding:8px 0}
.q button,.d button{display:block;width:100%;text-align:left;background:none;border:0;padding:0;cursor:pointer}
.q b{display:block;font-weight:600;overflow-wrap:anywhere}
.st,.c time{color:#4b5563;font-size:13px}
.o .st{display:block}
.l .bd{position:absolute;top:-4px;${other}:-4px;min-width:22px;height:22px;padding:0 6px;border-radius:11px;background:#b91c1c;color:#fff;font:700 13px/22px system-ui,sans-serif;text-align:center;border:2px solid #fff}
.sr{position:absolute!important;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.cv{padding:0;gap:0;overflow:hidden}
.ch{padding:12px 18px 8px;display:flex;flex-direction:column;gap:4px;border-bottom:1px solid #e5e7eb;flex:none}
.sc{flex:1 1 auto;min-height:0;overflow-y:auto;padding:12px 14px}
.sc:focus-visible{outline:2px solid ${ink};outline-offset:-2px;box-shadow:none}
.c{margin:0;padding:0;list-style:none;display:flex;flex-direction:column;gap:10px}
.c li{display:flex;flex-direction:column;align-items:flex-start;max-width:85%}
.c li.me{align-self:flex-end;align-items:flex-end}
.c b{font-size:12px;font-weight:600;color:#374151;margin:0 6px 2px}
.c div{padding:8px 12px;border-radius:16px 16px 16px 4px;background:#f3f4f6;color:${ink};white-space:pre-wrap;overflow-wrap:anywhere;max-width:100%}
.c .me div{background:${color};color:${onColor};border-radius:16px 16px 4px 16px}
.c time{margin:2px 6px 0;font-size:12px}
.cv>.e{margin:0 14px 8px}
.rf{flex:none;flex-flow:row wrap;align-items:flex-end;gap:8px;padding:10px 12px;border-top:1px solid #e5e7eb;background:#fff}
.v .rf{padding:10px 12px}
.rf textarea{flex:1 1 0;min-width:0;min-height:44px;max-height:140px;resize:none}
.rf .s{flex:none;font-size:16px;padding:10px 14px;min-height:44px}
.rf .f{flex:1 0 100%}
.fc{display:flex;align-items:center;gap:8px;overflow-wrap:anywhere}
.fc .r{flex:none}
.at{margin:4px 6px 0}
.at button{display:block;min-height:24px;padding:0;border:0;background:none;color:#1d4ed8;text-decoration:underline;cursor:pointer;font-size:13px;text-align:left;overflow-wrap:anywhere}
.a{overflow-wrap:anywhere}
.a pre{background:#f3f4f6;padding:8px;border-radius:6px;overflow-x:auto;white-space:pre-wrap}
.a code{font:13px ui-monospace,monospace}
.a a{color:#1d4ed8}
.a h4,.a h5,.a h6{margin:12px 0 4px;font-size:15px}
@media (max-width:480px){.p{top:0;bottom:0;left:0;right:0;width:auto;max-width:none;height:auto;border-radius:0;border:0}}
`
}
