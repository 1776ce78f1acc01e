import { faviconSvg } from "./Favicon.ts"

const icon = `data:image/svg+xml,${encodeURIComponent(faviconSvg)}`

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/**
 * Starts Swagger UI on the published document once its deferred script has run. No validator
 * badge: it would send the document to swagger.io, and the reference works offline.
 */
export const docsBootScript =
  `addEventListener("DOMContentLoaded", function () {
  window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true, validatorUrl: null })
})`

/** The reference's page at /docs: a shell of a few hundred bytes, whose script and stylesheet are cached for a year. */
export const docsPage = (options: { readonly title: string; readonly script: string; readonly stylesheet: string }) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" type="image/svg+xml" href="${icon}">
<link rel="stylesheet" href="${escapeHtml(options.stylesheet)}">
<script src="${escapeHtml(options.script)}" defer></script>
<script>${docsBootScript}</script>
</head>
<body>
<div id="swagger-ui"></div>
<noscript><p>The API reference needs JavaScript; the OpenAPI document it shows is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
</body>
</html>
`
