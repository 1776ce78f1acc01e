import { createHash } from "node:crypto"
import { faviconSvg } from "./Favicon.ts"

const icon = `data:image/svg+xml,${encodeURIComponent(faviconSvg)}`

const style = `body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:32rem;padding:2rem 1.25rem;color:#1f2937}
button{font:inherit;margin:0 .4rem .4rem 0;padding:.45rem .95rem;border:1px solid #0284c7;border-radius:6px;background:#fff;color:#0369a1;cursor:pointer}
button[aria-pressed=true]{background:#0284c7;color:#fff}
textarea{font:inherit;width:100%;box-sizing:border-box;min-height:5rem;margin:.5rem 0}
#send{background:#0284c7;color:#fff}`

/**
 * The page's one script: it reads the token from its own address, shows what the link asks
 * about, and records the answer only when the contact presses Send. Opening the page records
 * nothing: mail scanners open every link they see.
 */
export const ratingScript = `(function () {
  var token = location.pathname.split("/").pop()
  var api = "/v1/ratings/" + encodeURIComponent(token)
  var $ = function (id) { return document.getElementById(id) }
  var chosen = null
  var say = function (text) { $("status").textContent = text }
  var done = function (r) {
    $("form").hidden = true
    say("Thank you! You rated this " + r.rating + (r.scale === "five" ? " out of 5." : "."))
  }
  fetch(api).then(function (res) { return res.json().then(function (body) { return { ok: res.ok, body: body } }) })
    .then(function (answer) {
      if (!answer.ok) return say(answer.body.error ? answer.body.error.message : "This link does not work.")
      var r = answer.body
      $("about").textContent = "Request #" + r.ticket_number + ": " + r.subject
      if (r.rating !== null) return done(r)
      var values = r.scale === "five" ? [1, 2, 3, 4, 5] : ["good", "bad"]
      values.forEach(function (value) {
        var b = document.createElement("button")
        b.type = "button"
        b.textContent = value === "good" ? "Good" : value === "bad" ? "Bad" : String(value)
        b.setAttribute("aria-pressed", "false")
        b.onclick = function () {
          chosen = value
          for (var c = $("choices").firstChild; c; c = c.nextSibling) c.setAttribute("aria-pressed", String(c === b))
          $("send").disabled = false
        }
        $("choices").appendChild(b)
      })
      $("question").textContent = r.scale === "five" ? "How would you rate our help, from 1 (poor) to 5 (great)?" : "Were you happy with our help?"
      $("form").hidden = false
    }, function () { say("The service cannot be reached; try again later.") })
  $("send").onclick = function () {
    $("send").disabled = true
    var comment = $("comment").value.trim()
    fetch(api, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(comment ? { rating: chosen, comment: comment } : { rating: chosen }) })
      .then(function (res) { return res.json().then(function (body) { return { ok: res.ok, body: body } }) })
      .then(function (answer) {
        if (answer.ok) return done(answer.body)
        $("send").disabled = false
        say(answer.body.error ? answer.body.error.message : "That did not work; try again.")
      }, function () { $("send").disabled = false; say("The service cannot be reached; try again later.") })
  }
})()`

const digest = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`

/** Only the page's own script and style run, and it talks to this service alone. */
export const ratingPagePolicy = [
  "default-src 'none'",
  `script-src ${digest(ratingScript)}`,
  `style-src ${digest(style)}`,
  "img-src data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/** The page a rating link opens: the same for every token, which its script reads from the address. */
export const ratingPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Rate our help</title>
<link rel="icon" type="image/svg+xml" href="${icon}">
<style>${style}</style>
</head>
<body>
<h1>Rate our help</h1>
<p id="about"></p>
<div id="form" hidden>
<p id="question"></p>
<div id="choices"></div>
<label for="comment">Anything to add? (optional)</label>
<textarea id="comment" maxlength="2000"></textarea>
<button type="button" id="send" disabled>Send</button>
</div>
<p id="status" role="status"></p>
<noscript><p>This page needs JavaScript to send your rating.</p></noscript>
<script>${ratingScript}</script>
</body>
</html>
`
