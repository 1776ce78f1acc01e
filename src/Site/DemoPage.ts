import { faviconSvg } from "./Favicon.ts"

const icon = `data:image/svg+xml,${encodeURIComponent(faviconSvg)}`

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** A string as a JavaScript literal that cannot end the inline script it is in. */
const inScript = (text: string) => JSON.stringify(text).replace(/</g, "\\u003c")

/** The two tags a site owner pastes into their pages to show the widget of `widgetKey`, served from `origin` (a URL's origin). */
export const widgetSnippet = (widgetKey: string, origin: string) => `<script>
  window.SupportWidgetConfig = {
    projectKey: ${JSON.stringify(widgetKey)},
    baseUrl: ${JSON.stringify(origin)}
  }
</script>
<script src="${origin}/widget.js" async></script>`

/**
 * The page `npm start` shows at `/` on the embedded database: the widget, embedded as a site would,
 * and the snippet that embeds it, filled in with the demo key and `origin`, the service's address as
 * the request named it. The page's script puts the browser's own origin in its place when the two
 * differ (a proxy in front that the service was not told to trust).
 */
export const demoPage = (widgetKey: string, origin: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Support widget demo</title>
<link rel="icon" type="image/svg+xml" href="${icon}">
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 44rem; padding: 2rem 1.25rem; color: #1f2937; }
  code, pre { font: 14px/1.5 ui-monospace, monospace; background: #f3f4f6; border-radius: 6px; }
  pre { padding: 1rem; overflow-x: auto; margin-bottom: .5rem; }
  button { font: inherit; padding: .25rem .9rem; border: 1px solid #0284c7; border-radius: 6px; background: #fff; color: #0369a1; cursor: pointer; }
</style>
</head>
<body>
<h1>Support widget demo</h1>
<p>The button in the corner is the support form this service serves at <code>/widget.js</code>. File a
ticket with it; type a subject such as "reset password" to see help-centre articles first.</p>
<h2>Put it on your site</h2>
<p>Paste these two tags before <code>&lt;/body&gt;</code> in your site's pages. They hold this demo project's
widget key and this service's address; for your own project, put one of its widget keys in their place.</p>
<pre id="snippet">${escapeHtml(widgetSnippet(widgetKey, origin))}</pre>
<p><button type="button" id="copy">Copy</button> <span id="copied" role="status"></span></p>
<p>The settings can also take <code>color</code>, <code>position</code> (<code>"bottom-right"</code> or
<code>"bottom-left"</code>), <code>greeting</code> and <code>fields</code>: see <code>widget/README.md</code>.</p>
<h2>What a widget key can do</h2>
<p>It sits in your page's source, so anyone can copy it: it is public. With it, anyone can</p>
<ul>
  <li>file tickets in the project, marked <code>sender_verified: false</code>, since the sender's name and address are
  only what was typed;</li>
  <li>search and read the project's published help-centre articles;</li>
  <li>read a ticket and answer it on behalf of its sender, given the ticket's id and the sender's email address
  (what the widget's "Your requests" does).</li>
</ul>
<p>It cannot list tickets, search tickets or contacts, or reach the operator API. Those take the project's full key
or the admin token, which stay on your servers.</p>
<p>API reference: <a href="/docs">/docs</a></p>
<script>
  (function () {
    var snippet = document.getElementById("snippet")
    var named = ${inScript(origin)}
    if (location.origin !== named) snippet.textContent = snippet.textContent.split(named).join(location.origin)
    var status = document.getElementById("copied")
    document.getElementById("copy").addEventListener("click", function () {
      var copying = navigator.clipboard ? navigator.clipboard.writeText(snippet.textContent) : Promise.reject()
      copying.then(function () { status.textContent = "Copied." }, function () {
        // the clipboard API is only there on https and localhost: leave the text selected instead
        getSelection().selectAllChildren(snippet)
        status.textContent = "Selected: press Ctrl+C (⌘C on a Mac) to copy."
      })
    })
  })()
  window.SupportWidgetConfig = { projectKey: ${inScript(widgetKey)}, baseUrl: location.origin }
</script>
<script src="/widget.js" async></script>
</body>
</html>
`
