import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { OpenApi } from "effect/http-api"
import { existsSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { chromium } from "playwright-core"
import { Api } from "../../src/Api.ts"
import { describeNeeding } from "../support/Requires.ts"
import { adminToken, TestServer, testServer } from "../support/TestServer.ts"

/** The first load of /docs must stay under this many bytes on the wire; it was 2,018,434 with Swagger UI inlined. */
const firstLoadBudget = 450 * 1024
/** The page itself, uncompressed: a shell that names its script and stylesheet. */
const shellBudget = 2 * 1024

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  /** The body as it crossed the wire, still compressed. */
  readonly bytes: Buffer
}

/** A GET whose body is left as sent: fetch would decompress it and hide what a browser downloads. */
const rawGet = (url: string, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    new Promise<Raw>((resolve, reject) => {
      httpRequest(url, { headers }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) }))
        response.on("error", reject)
      }).on("error", reject).end()
    })
  )

const decoded = (raw: Raw) => {
  const coding = raw.headers["content-encoding"]
  const bytes = coding === "br" ? brotliDecompressSync(raw.bytes) : coding === "gzip" ? gunzipSync(raw.bytes) : raw.bytes
  return bytes.toString("utf8")
}

const browserAccepts = { "accept-encoding": "gzip, deflate, br, zstd" }

/** What the shell links: its stylesheet and scripts, and every other URL it names. */
const linksOf = (html: string) => ({
  stylesheets: [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1]!),
  scripts: [...html.matchAll(/<script src="([^"]+)"/g)].map((match) => match[1]!),
  urls: [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1]!)
})

describe("the API reference at /docs and the document at /openapi.json", () => {
  layer(testServer("pglite"), { excludeTestServices: true })((it) => {
    it.effect("names every tag of /openapi.json as a title, capitalised and described, and keeps every path", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const spec = yield* Effect.promise(() => server.request("GET", "/openapi.json"))
        const tags: ReadonlyArray<{ name: string; description?: string }> = spec.body.tags
        // three credentials, each named and described, so Authorize says which goes where
        expect(Object.keys(spec.body.components.securitySchemes)).toEqual(["apiKey", "adminToken", "keyAsPassword"])
        for (const scheme of Object.values<{ description?: string }>(spec.body.components.securitySchemes)) {
          expect(scheme.description).toMatch(/\S/)
        }
        expect(spec.body.paths["/v1/tickets"].post.security).toEqual([{ apiKey: [] }])
        expect(spec.body.paths["/v1/admin/projects"].get.security).toEqual([{ adminToken: [] }])
        expect(tags.map((tag) => tag.name)).toEqual([
          "Health",
          "Tickets",
          "Attachments",
          "Knowledge base",
          "Search",
          "Events",
          "Operator API",
          "Operator API: webhooks",
          "Operator API: automation rules",
          "Operator API: service levels",
          "Operator API: custom fields",
          "Operator API: merging tickets",
          "Operator API: events",
          "Inbound mail",
          "Operator API: mail",
          "Operator API: attachments",
          "Operator API: metrics",
          "Satisfaction",
          "Operator API: satisfaction",
          "Widget",
          "Operator API: audit log",
          "Operator API: privacy"
        ])
        for (const tag of tags) {
          expect(tag.name, tag.name).toMatch(/^\p{Lu}/u)
          expect(tag.description, tag.name).toMatch(/^\p{Lu}.{20,}/u)
        }
        // every operation sits under a declared tag, and the health checks under "Health"
        const operations = Object.entries(spec.body.paths as Record<string, Record<string, { tags: Array<string> }>>)
          .flatMap(([path, methods]) => Object.values(methods).map((operation) => [path, operation.tags] as const))
        for (const [path, operationTags] of operations) {
          expect(tags.map((tag) => tag.name), path).toEqual(expect.arrayContaining(operationTags))
        }
        expect(operations.filter(([path]) => path === "/health" || path === "/ready")).toEqual([
          ["/health", ["Health"]],
          ["/ready", ["Health"]]
        ])
        // the published interface's paths, as the spec names them
        expect(Object.keys(spec.body.paths)).toEqual(expect.arrayContaining([
          "/health",
          "/v1/tickets",
          "/v1/tickets/{id}",
          "/v1/tickets/{id}/messages",
          "/v1/articles/search",
          "/v1/search"
        ]))
        // what Swagger UI shows above and beside Authorize
        expect(spec.body.info.description).toContain("widget key")
        expect(spec.body.servers).toEqual([{ url: "/", description: "this service" }])
        // served as the contract derives it
        expect(spec.body).toEqual(JSON.parse(JSON.stringify(OpenApi.fromApi(Api))))
      }))

    it.effect("serves /docs as a small shell with a strict policy, and its script and stylesheet by content, cached for a year, compressed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const shell = yield* rawGet(`${server.baseUrl}/docs`, browserAccepts)
        expect(shell.status).toBe(200)
        expect(shell.headers["content-type"]).toBe("text/html; charset=utf-8")
        expect(shell.headers["content-encoding"]).toBe("br")
        expect(shell.headers["cache-control"]).toBe("no-cache")
        expect(shell.headers["x-content-type-options"]).toBe("nosniff")
        const policy = String(shell.headers["content-security-policy"])
        expect(policy).toContain("default-src 'none'")
        expect(policy).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'(;|$)/)
        expect(policy).toContain("connect-src 'self'")
        expect(policy).not.toContain("unsafe-")
        const html = decoded(shell)
        expect(Buffer.byteLength(html)).toBeLessThanOrEqual(shellBudget)
        // the document is fetched, not inlined, and nothing comes from another origin: it works offline
        expect(html).toContain(`url: "/openapi.json"`)
        expect(html).not.toContain(`"paths"`)
        const links = linksOf(html)
        expect(links.urls.filter((url) => /^(https?:)?\/\//.test(url))).toEqual([])
        expect(links.stylesheets).toEqual([expect.stringMatching(/^\/docs\/assets\/swagger-ui\.[\w-]+\.css$/)])
        expect(links.scripts).toEqual([expect.stringMatching(/^\/docs\/assets\/swagger-ui\.[\w-]+\.js$/)])

        for (const [path, type] of [[links.scripts[0]!, "text/javascript"], [links.stylesheets[0]!, "text/css"]] as const) {
          const bodies: Record<string, string> = {}
          for (const [accepts, coding] of [["gzip, deflate, br", "br"], ["gzip", "gzip"], ["", undefined]] as const) {
            const asset = yield* rawGet(`${server.baseUrl}${path}`, accepts === "" ? {} : { "accept-encoding": accepts })
            expect([path, accepts, asset.status]).toEqual([path, accepts, 200])
            expect(asset.headers["content-type"]).toBe(`${type}; charset=utf-8`)
            expect(asset.headers["content-encoding"]).toBe(coding)
            expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
            expect(asset.headers["vary"]).toBe("accept-encoding")
            expect(asset.headers["x-content-type-options"]).toBe("nosniff")
            expect(Number(asset.headers["content-length"])).toBe(asset.bytes.length)
            bodies[accepts] = decoded(asset)
          }
          // one content in every coding, compressed to well under half
          expect(new Set(Object.values(bodies)).size).toBe(1)
          const identity = yield* rawGet(`${server.baseUrl}${path}`)
          const brotli = yield* rawGet(`${server.baseUrl}${path}`, { "accept-encoding": "br" })
          expect(brotli.bytes.length).toBeLessThan(identity.bytes.length / 3)
        }
        expect(decoded(yield* rawGet(`${server.baseUrl}${links.scripts[0]}`, browserAccepts))).toContain("SwaggerUIBundle")

        // a name that is not one of the assets' is the envelope's 404
        const unknown = yield* Effect.promise(() => server.request("GET", "/docs/assets/swagger-ui.0000.js"))
        expect([unknown.status, unknown.body?.error?.code]).toEqual([404, "NOT_FOUND"])
        // and another method on an asset is a 405, as on every route of the service
        const posted = yield* Effect.promise(() => server.request("POST", links.scripts[0]!))
        expect([posted.status, posted.body?.error?.code]).toEqual([405, "METHOD_NOT_ALLOWED"])
      }))

    it.effect("loads for the first time in fewer bytes than the budget, and revalidates the page and the document with a 304", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const shell = yield* rawGet(`${server.baseUrl}/docs`, browserAccepts)
        const { scripts, stylesheets } = linksOf(decoded(shell))
        const loads = [shell]
        for (const path of [...stylesheets, ...scripts, "/openapi.json"]) loads.push(yield* rawGet(`${server.baseUrl}${path}`, browserAccepts))
        expect(loads.map((load) => load.status)).toEqual([200, 200, 200, 200])
        const total = loads.reduce((sum, load) => sum + load.bytes.length, 0)
        console.log(`first load of /docs: ${total} bytes (${loads.map((load) => load.bytes.length).join(" + ")}), budget ${firstLoadBudget}`)
        expect(total).toBeLessThanOrEqual(firstLoadBudget)

        for (const [path, first] of [["/docs", loads[0]!], ["/openapi.json", loads[3]!]] as const) {
          expect(first.headers["cache-control"]).toBe("no-cache")
          const etag = String(first.headers.etag)
          const again = yield* rawGet(`${server.baseUrl}${path}`, { ...browserAccepts, "if-none-match": etag })
          expect([path, again.status, again.bytes.length]).toEqual([path, 304, 0])
          // another coding is another representation, with a tag of its own
          const plain = yield* rawGet(`${server.baseUrl}${path}`, { "if-none-match": etag })
          expect([path, plain.status]).toEqual([path, 200])
          expect(plain.headers.etag).not.toBe(etag)
        }
      }))
  })
})

const chromiumPath = "/usr/bin/chromium"

describeNeeding(
  existsSync(chromiumPath) ? undefined : `no Chromium at ${chromiumPath} (CI installs Debian's chromium package)`,
  "the API reference in Chromium",
  () => {
    layer(testServer("pglite"), { excludeTestServices: true })((it) => {
      it.effect("draws every operation with no policy violation, and Authorize's token reaches a tried call", () =>
        Effect.gen(function*() {
          const server = yield* TestServer
          const spec = yield* Effect.promise(() => server.request("GET", "/openapi.json"))
          const operations = Object.values(spec.body.paths as Record<string, object>)
            .reduce((count, methods) => count + Object.keys(methods).length, 0)
          const seen = yield* Effect.acquireUseRelease(
            Effect.promise(() => chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] })),
            (browser) =>
              Effect.promise(async () => {
                const page = await browser.newPage()
                const errors: Array<string> = []
                page.on("pageerror", (error) => errors.push(error.message))
                page.on("console", (message) => message.type() === "error" && errors.push(message.text()))
                const elsewhere: Array<string> = []
                page.on("request", (request) => !request.url().startsWith(server.baseUrl) && elsewhere.push(request.url()))
                await page.goto(`${server.baseUrl}/docs`)
                await page.locator(".opblock").first().waitFor()
                const drawn = await page.locator(".opblock").count()
                const tags = await page.locator(".opblock-tag").evaluateAll((nodes) =>
                  nodes.map((node) => node.getAttribute("data-tag"))
                )

                await page.click("button.authorize")
                // the dialog offers the three credentials, each with its description; the operator's is the second
                const schemes = page.locator(".modal-ux .auth-container")
                expect(await schemes.count()).toBe(3)
                expect(await schemes.nth(0).textContent()).toContain("A project's API key")
                expect(await schemes.nth(2).textContent()).toContain("password of HTTP Basic")
                const operator = schemes.nth(1)
                expect(await operator.textContent()).toContain("The operator token")
                await operator.locator("input").fill(adminToken)
                await operator.locator("button.authorize").click()
                await page.click(".modal-ux button.btn-done")
                const list = page.locator(".opblock.opblock-get").filter({
                  has: page.locator(".opblock-summary-path", { hasText: /^\/v1\/admin\/projects$/ })
                })
                await list.locator(".opblock-summary").click()
                await list.locator("button.try-out__btn").click()
                await list.locator("button.execute").click()
                const status = list.locator(".live-responses-table tbody .response-col_status").first()
                await status.waitFor()
                return { drawn, tags, status: (await status.innerText()).trim(), errors, elsewhere }
              }),
            (browser) => Effect.promise(() => browser.close())
          )
          expect(seen.drawn).toBe(operations)
          expect(seen.tags[0]).toBe("Health")
          expect(seen.status).toBe("200")
          expect(seen.errors).toEqual([])
          expect(seen.elsewhere).toEqual([])
        }), 60_000)
    })
  }
)
