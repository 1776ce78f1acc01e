import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import { Api } from "../Api.ts"
import { AppConfig } from "../Config.ts"
import { DatabaseInfo } from "../Database/Database.ts"
import { demoWidgetKeySetting } from "../Demo/Demo.ts"
import { NotFound } from "../Domain/Errors.ts"
import { projectPath } from "../Paths.ts"
import { Projects } from "../Projects/Projects.ts"
import { demoPage } from "./DemoPage.ts"
import { faviconIco } from "./Favicon.ts"
import { matchesEtag } from "./Precompressed.ts"
import { ratingPage, ratingPagePolicy } from "./RatingPage.ts"

// the script is not versioned in its URL: caches keep it a little while, then ask again by ETag
const cacheControl = "public, max-age=300, must-revalidate"

/**
 * The service's origin as the browser named it: its Host header, and behind a trusted proxy the
 * forwarded scheme and host. Parsed as a URL, so a page never shows a Host that is not one.
 */
const originOf = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean) => {
  // the last entry, as for the client address (Auth/Http): the one the proxy in front appended
  const forwarded = (name: string) => trustProxy ? request.headers[name]?.split(",").at(-1)?.trim() : undefined
  const scheme = forwarded("x-forwarded-proto") === "https" ? "https" : "http"
  const host = forwarded("x-forwarded-host") ?? request.headers.host ?? "localhost"
  try {
    return new URL(`${scheme}://${host}`).origin
  } catch {
    return `${scheme}://localhost`
  }
}

export const SiteHttpLive = HttpApiBuilder.group(Api, "site", (handlers) =>
  Effect.gen(function*() {
    const database = yield* DatabaseInfo
    const { trustProxy } = yield* AppConfig
    const projects = yield* Projects
    // built by `npm install` (prepare) and `npm run build`; read once, as it never changes while running
    const script = yield* Effect.promise(() => readFile(projectPath("dist", "widget.js"), "utf8").catch(() => undefined))
    if (script === undefined) yield* Effect.logWarning("dist/widget.js is missing: run `npm run build:widget`")
    const etag = script === undefined ? "" : `"${createHash("sha256").update(script).digest("base64url").slice(0, 32)}"`
    const notBuilt = new NotFound({ message: "the widget is not built on this server: run npm run build:widget" })

    return handlers
      .handleRaw("widget", () =>
        Effect.gen(function*() {
          if (script === undefined) return yield* notBuilt
          const request = yield* HttpServerRequest.HttpServerRequest
          const headers = { etag, "cache-control": cacheControl }
          if (matchesEtag(request.headers["if-none-match"], etag)) return HttpServerResponse.empty({ status: 304, headers })
          return HttpServerResponse.text(script, { contentType: "text/javascript; charset=utf-8", headers })
        }))
      .handleRaw("favicon", () =>
        Effect.succeed(HttpServerResponse.uint8Array(faviconIco, {
          contentType: "image/x-icon",
          headers: { "cache-control": "public, max-age=86400" }
        })))
      .handleRaw("demo", () =>
        Effect.gen(function*() {
          const widgetKey = database.kind === "embedded" ? yield* projects.getSetting(demoWidgetKeySetting) : undefined
          if (widgetKey === undefined) return yield* new NotFound({ message: "no demo page on this server" })
          const request = yield* HttpServerRequest.HttpServerRequest
          return HttpServerResponse.html(demoPage(widgetKey, originOf(request, trustProxy)))
        }))
      .handleRaw("ratingPage", () =>
        Effect.succeed(HttpServerResponse.html(ratingPage).pipe(HttpServerResponse.setHeaders({
          "content-security-policy": ratingPagePolicy,
          "cache-control": "no-store",
          "referrer-policy": "no-referrer"
        }))))
  }))
