import * as NodeServices from "@effect/platform-node/NodeServices"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { runInNewContext } from "node:vm"
import { seedDemo } from "../../src/Demo/Demo.ts"
import { parseConfig } from "../../widget/src/config.ts"
import { adminToken, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

const unescapeHtml = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&amp;/g, "&")

/** The snippet as a site owner copies it off the demo page at `/`. */
const snippetOn = (server: TestServerShape, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const page = await server.request("GET", "/", { headers })
    expect(page.status).toBe(200)
    const pre = /<pre id="snippet">([\s\S]*?)<\/pre>/.exec(page.text)
    expect(pre, "the page shows the snippet").not.toBeNull()
    return { page: page.text, snippet: unescapeHtml(pre![1]!) }
  })

/** What the snippet does in a page: its first script run as a browser would, and the script it loads. */
const pasted = (snippet: string) => {
  const tags = [...snippet.matchAll(/<script(?: src="([^"]*)" async)?>([\s\S]*?)<\/script>/g)]
  expect(tags.map(([tag]) => tag.slice(0, tag.indexOf(">") + 1))).toEqual([
    "<script>",
    expect.stringMatching(/^<script src="[^"]+" async>$/)
  ])
  const window: { SupportWidgetConfig?: unknown } = {}
  runInNewContext(tags[0]![2]!, { window })
  return { config: parseConfig(window.SupportWidgetConfig), scriptUrl: tags[1]![1]! }
}

describe("the demo page at / on the embedded database", () => {
  layer(testServer("pglite"), { excludeTestServices: true })((it) => {
    it.effect("shows the snippet to paste, with the demo's widget key and the service's origin, and that key does what the page says", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        // what `npm start` does on a new embedded database
        const demo = yield* seedDemo().pipe(Effect.provide(NodeServices.layer), Effect.orDie)
        const { page, snippet } = yield* snippetOn(server)
        const { config, scriptUrl } = pasted(snippet)
        expect(config.projectKey).toBe(demo.widgetKey)
        expect(config.baseUrl).toBe(server.baseUrl)
        expect(scriptUrl).toBe(`${server.baseUrl}/widget.js`)
        expect(snippet).not.toMatch(/your_widget_key|example\.com/)
        expect(page).toContain(`<button type="button" id="copy">`)

        const script = yield* Effect.promise(() => fetch(scriptUrl))
        expect(script.status).toBe(200)
        expect(script.headers.get("content-type")).toMatch(/^text\/javascript/)

        // the page's account of the key, claim by claim
        expect(page).toContain("sender_verified: false")
        expect(page).toMatch(/cannot list tickets, search tickets or contacts, or reach the operator API/)
        const key = config.projectKey
        const email = "visitor@example.com"
        const filed = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { subject: "From the snippet", body: "Hello", sender_email: email } })
        )
        expect(filed.status).toBe(202)
        const id = filed.body.ticket_id as string
        const asOperator = yield* Effect.promise(() =>
          server.request("GET", `/v1/admin/projects/${demo.projectId}/tickets/${id}`, { key: adminToken })
        )
        expect([asOperator.status, asOperator.body.sender_verified]).toEqual([200, false])
        const proof = { "x-ticket-token": filed.body.access_token as string }
        const answers = yield* Effect.promise(async () => ({
          articles: (await server.request("GET", "/v1/articles/search?q=password", { key })).status,
          read: (await server.request("GET", `/v1/tickets/${id}`, { key, headers: proof })).status,
          answered: (await server.request("POST", `/v1/tickets/${id}/messages`, { key, headers: proof, body: { body: "More" } })).status,
          readWithOnlyTheEmail: (await server.request("GET", `/v1/tickets/${id}?contact_email=${encodeURIComponent(email)}`, { key }))
            .status,
          list: (await server.request("GET", `/v1/tickets?contact_email=${encodeURIComponent(email)}`, { key })).status,
          search: (await server.request("GET", "/v1/search?q=password", { key })).status,
          operator: (await server.request("GET", "/v1/admin/projects", { key })).status
        }))
        expect(answers).toEqual({
          articles: 200,
          read: 200,
          answered: 201,
          readWithOnlyTheEmail: 403,
          list: 403,
          search: 403,
          operator: 401
        })
      }))

    it.effect("names the Host the request came to, and no forwarded host or scheme unless TRUST_PROXY says so", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        yield* seedDemo().pipe(Effect.provide(NodeServices.layer), Effect.orDie)
        const { snippet } = yield* snippetOn(server, { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" })
        expect(pasted(snippet).config.baseUrl).toBe(server.baseUrl)
      }))
  })

  layer(testServer("pglite", { TRUST_PROXY: "true" }), { excludeTestServices: true })((it) => {
    it.effect("behind a trusted proxy, names the forwarded scheme and host", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        yield* seedDemo().pipe(Effect.provide(NodeServices.layer), Effect.orDie)
        const { snippet } = yield* snippetOn(server, { "x-forwarded-host": "support.example.org", "x-forwarded-proto": "https" })
        const { config, scriptUrl } = pasted(snippet)
        expect([config.baseUrl, scriptUrl]).toEqual(["https://support.example.org", "https://support.example.org/widget.js"])
        // what a client wrote before the proxy appended its own is not believed
        const appended = yield* snippetOn(server, { "x-forwarded-host": "evil.example, support.example.org", "x-forwarded-proto": "http, https" })
        expect(pasted(appended.snippet).config.baseUrl).toBe("https://support.example.org")
      }))
  })
})
