import { faviconSvg } from "./Favicon.ts"

const icon = `data:image/svg+xml,${encodeURIComponent(faviconSvg)}`

/** The page `npm start` shows at `/` on the embedded database: the widget, embedded as a site would. */
export const demoPage = (widgetKey: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Support widget demo</title>
<link rel="icon" type="image/svg+xml" href="${icon}">
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 44rem; padding: 2rem 1.25rem; color: #1f2937; }
  code, pre { font: 14px/1.5 ui-monospace, monospace; background: #f3f4f6; border-radius: 6px; }
  pre { padding: 1rem; overflow-x: auto; }
</style>
</head>
<body>
<h1>Support widget demo</h1>
<p>The button in the corner is the support form this service serves at <code>/widget.js</code>. File a
ticket with it; type a subject such as "reset password" to see help-centre articles first.</p>
<p>To put it on your own site, paste these two snippets with a <em>widget</em> key of your project
(a widget key can only file tickets and search articles, so it is safe in a page):</p>
<pre>&lt;script&gt;
  window.SupportWidgetConfig = {
    projectKey: "tf_your_widget_key",
    baseUrl: "https://support.example.com",
    color: "#0284c7",            // optional
    position: "bottom-right",   // or "bottom-left"
    greeting: "How can we help?",
    fields: { name: true, email: true, priority: false }
  }
&lt;/script&gt;
&lt;script src="https://support.example.com/widget.js" async&gt;&lt;/script&gt;</pre>
<p>API reference: <a href="/docs">/docs</a></p>
<script>
  window.SupportWidgetConfig = { projectKey: ${JSON.stringify(widgetKey)}, baseUrl: location.origin }
</script>
<script src="/widget.js" async></script>
</body>
</html>
`
