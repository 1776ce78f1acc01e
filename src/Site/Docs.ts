import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { OpenApi } from "effect/http-api"
import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { Api } from "../Api.ts"
import { NotFound } from "../Domain/Errors.ts"
import { projectPath } from "../Paths.ts"
import { docsBootScript, docsPage } from "./DocsPage.ts"
import { type Precompressed, precompress, respond } from "./Precompressed.ts"

const assetsPath = "/docs/assets"

/** A file of the swagger-ui-dist package, found the way Node resolves a dependency of this project. */
const swaggerUiFile = (name: string) =>
  Effect.promise(() => readFile(createRequire(projectPath("package.json")).resolve(`swagger-ui-dist/${name}`), "utf8"))

/** Swagger UI's script and stylesheet, from the swagger-ui-dist package: nothing comes from a CDN. */
const swaggerUi = Effect.all({
  script: swaggerUiFile("swagger-ui-bundle.js"),
  stylesheet: swaggerUiFile("swagger-ui.css")
}, { concurrency: 2 })

/** The one inline script, allowed by its digest: nothing else inline may run on the page. */
const contentSecurityPolicy = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash("sha256").update(docsBootScript).digest("base64")}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

const reference = Effect.gen(function*() {
  const { script, stylesheet } = yield* swaggerUi
  const [js, css] = yield* Effect.all([
    precompress("text/javascript; charset=utf-8", script),
    precompress("text/css; charset=utf-8", stylesheet)
  ], { concurrency: 2 })
  const assets = new Map<string, Precompressed>([[`swagger-ui.${js.digest}.js`, js], [`swagger-ui.${css.digest}.css`, css]])
  const page = yield* precompress(
    "text/html; charset=utf-8",
    docsPage({
      title: `${OpenApi.fromApi(Api).info.title} API reference`,
      script: `${assetsPath}/swagger-ui.${js.digest}.js`,
      stylesheet: `${assetsPath}/swagger-ui.${css.digest}.css`
    })
  )
  return { page, assets }
})

/**
 * The API reference at /docs and the OpenAPI document at /openapi.json, each built and compressed
 * at its first request, not at start: every start (each test's server too) would otherwise pay
 * half a second for Swagger UI's 1.9 MB, which most never serve.
 */
export const DocsLive = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const ui = yield* Effect.cached(reference)
  const document = yield* Effect.cached(Effect.suspend(() => precompress("application/json", JSON.stringify(OpenApi.fromApi(Api)))))
  yield* router.add("GET", "/openapi.json", Effect.flatMap(document, (body) => respond(body, { "cache-control": "no-cache" })))
  yield* router.add(
    "GET",
    "/docs",
    Effect.flatMap(ui, ({ page }) =>
      respond(page, { "cache-control": "no-cache", "content-security-policy": contentSecurityPolicy }))
  )
  yield* router.add(
    "GET",
    `${assetsPath}/:file`,
    Effect.gen(function*() {
      const { file } = yield* HttpRouter.params
      const asset = file === undefined ? undefined : (yield* ui).assets.get(file)
      // named by their content, so a URL once fetched never changes
      if (asset !== undefined) return yield* respond(asset, { "cache-control": "public, max-age=31536000, immutable" })
      return yield* new NotFound({ message: `no asset ${file} of the API reference` })
    })
  )
}))
