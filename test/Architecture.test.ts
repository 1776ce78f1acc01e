/**
 * The habits of ARCHITECTURE.md that the import graph can show, checked on every run instead of
 * by a reader: a change that bends one of them fails here with the file and the import named.
 */
import { readdirSync, readFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { dirname, join, normalize } from "node:path"
import { fileURLToPath } from "node:url"
import { type Schema, SchemaAST } from "effect"
import { HttpApi } from "effect/http-api"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { Api } from "../src/Api.ts"
import { ArticleRef } from "../src/Domain/Article.ts"
import * as Ids from "../src/Domain/Ids.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

const sources = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts"))
  .map((file) => join("src", file).split("\\").join("/"))
  .sort()

const sourceText = new Map(sources.map((file) => [file, readFileSync(join(root, file), "utf8")]))

interface Import {
  readonly specifier: string
  /** The file it names, from the root, when it is one of ours. */
  readonly file: string | undefined
}

/** Static imports, re-exports and `import()`, as TypeScript's own scanner finds them. */
const importsOf = (file: string): ReadonlyArray<Import> =>
  ts.preProcessFile(sourceText.get(file)!, true, true).importedFiles.map(({ fileName }) => ({
    specifier: fileName,
    file: fileName.startsWith(".")
      ? normalize(join(dirname(file), fileName)).split("\\").join("/")
      : undefined
  }))

const imports = new Map(sources.map((file) => [file, importsOf(file)]))

const ours = (file: string) => imports.get(file)!.flatMap((imported) => imported.file ?? [])

/** The files of ours a test file imports, from the root. */
const testImports = (file: string) =>
  ts.preProcessFile(readFileSync(join(root, file), "utf8"), true, true).importedFiles
    .filter(({ fileName }) => fileName.startsWith("."))
    .map(({ fileName }) => normalize(join(dirname(file), fileName)).split("\\").join("/"))

/** Every file of ours that `file` reaches through its imports, itself included. */
const reachedFrom = (file: string): ReadonlySet<string> => {
  const reached = new Set<string>()
  const visit = (next: string) => {
    if (reached.has(next) || !imports.has(next)) return
    reached.add(next)
    ours(next).forEach(visit)
  }
  visit(file)
  return reached
}

const offending = (files: ReadonlyArray<string>, allowed: (imported: Import) => boolean) =>
  files.flatMap((file) =>
    imports.get(file)!.filter((imported) => !allowed(imported)).map(({ specifier }) => `${file} imports ${specifier}`)
  )

const isEffect = (specifier: string) => specifier === "effect" || specifier.startsWith("effect/")

describe("the tree against ARCHITECTURE.md", () => {
  it("reads every source file, and every relative import names a file that exists", () => {
    expect(sources.length).toBeGreaterThan(100)
    expect(offending(sources, ({ file }) => file === undefined || file.endsWith(".json") || sourceText.has(file)))
      .toEqual([])
  })

  it("has no import cycle", () => {
    const cycles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const path: Array<string> = []
    const visit = (file: string) => {
      state.set(file, "open")
      path.push(file)
      for (const next of ours(file).filter((next) => imports.has(next))) {
        if (state.get(next) === "open") cycles.push([...path.slice(path.indexOf(next)), next].join(" > "))
        else if (!state.has(next)) visit(next)
      }
      path.pop()
      state.set(file, "done")
    }
    sources.forEach((file) => state.has(file) || visit(file))
    expect(cycles).toEqual([])
  })

  it("names built-ins with node: and our own files with their .ts extension, as Deno and Node both accept", () => {
    expect(offending(sources, ({ specifier }) =>
      !builtinModules.includes(specifier) &&
      (!specifier.startsWith(".") || /\.(ts|json)$/.test(specifier))
    )).toEqual([])
  })

  it("keeps Domain free of everything of ours outside it, of the runtime and of the database", () => {
    const domain = sources.filter((file) => file.startsWith("src/Domain/"))
    expect(domain.length).toBeGreaterThan(5)
    // a pure package (the stemmer the excerpts share) is as portable as Domain itself
    const platform = /^(node:|@effect\/|@electric-sql\/|effect\/(sql|http|platform|process)(\/|$)|redis$|nodemailer$)/
    expect(offending(domain, ({ specifier, file }) =>
      file !== undefined ? file.startsWith("src/Domain/") : !platform.test(specifier)
    )).toEqual([])
  })

  it("builds the contract from contracts, Domain and effect alone, so the OpenAPI document and typed clients need no implementation", () => {
    const contract = [...reachedFrom("src/Api.ts")]
    expect(contract).toContain("src/Tickets/Api.ts")
    const isContract = (file: string) =>
      file.endsWith("/Api.ts") || file === "src/Api.ts" || file.startsWith("src/Domain/") ||
      file === "src/Health/Version.ts"
    expect(contract.filter((file) => !isContract(file))).toEqual([])
    expect(offending(contract, ({ specifier, file }) =>
      file !== undefined ? isContract(file) || file === "package.json" : isEffect(specifier)
    )).toEqual([])
  })

  it("keeps SQL in repositories: the sql template only in a Repo, the outbox and the database layers", () => {
    const isRepository = (file: string) =>
      /\/\w*Repo\.ts$/.test(file) || file === "src/Jobs/Outbox.ts" || file.startsWith("src/Database/")
    const withSql = sources.filter((file) => /\bsql`|\bsql\.(unsafe|withTransaction|in|insert|update)\b/.test(sourceText.get(file)!))
    expect(withSql).toContain("src/Tickets/TicketsRepo.ts")
    expect(withSql.filter((file) => !isRepository(file))).toEqual([])
  })

  it("checks ids with their schemas in Domain: no isUuid, and no uuid pattern of our own, anywhere else", () => {
    const uuidCheck = /\bisUuid\b|\bUuidPattern\b|\bis(UUID|GUID)\(|\[0-9a-f\]\{8\}-\[0-9a-f\]\{4\}/i
    // the error tracker finds its own service's event ids in free text: ids of Sentry's, none of ours
    const checking = sources.filter((file) => !file.startsWith("src/Domain/") && !file.startsWith("src/ErrorTracker/"))
    const found = checking.flatMap((file) =>
      sourceText.get(file)!.split("\n").flatMap((line, index) =>
        uuidCheck.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []
      )
    )
    expect(found).toEqual([])
  })

  it("decodes every path parameter of the contract with an id's schema, so a malformed id is that id's 404", () => {
    const idSchemas: ReadonlyArray<Schema.Codec<string, string> & { readonly DecodingServices: never }> = [
      Ids.ProjectId,
      Ids.TicketId,
      Ids.ArticleId,
      Ids.ApiKeyId,
      Ids.WebhookId,
      Ids.DeliveryId,
      Ids.RuleId,
      Ids.AttachmentId,
      Ids.SlaPolicyId,
      Ids.CustomFieldId,
      Ids.RatingToken,
      ArticleRef
    ]
    const idParams = new Set<SchemaAST.AST>(idSchemas.map((id) => Ids.pathParam(id).ast))
    const params: Array<{ readonly at: string; readonly type: SchemaAST.AST }> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        const ast = endpoint.params?.ast
        for (const { name, type } of ast !== undefined && SchemaAST.isObjects(ast) ? ast.propertySignatures : []) {
          params.push({ at: `${endpoint.method} ${endpoint.path} :${String(name)}`, type })
        }
      }
    })
    expect(params.length).toBeGreaterThan(30)
    expect(params.filter(({ type }) => !idParams.has(type)).map(({ at }) => at)).toEqual([])
  })

  it("lets neither the HTTP server nor the job runner import the other: the app graph wires both", () => {
    const http = sources.filter((file) => file.startsWith("src/Http/"))
    const jobs = sources.filter((file) => file.startsWith("src/Jobs/"))
    expect(offending(http, ({ file }) => file === undefined || !file.startsWith("src/Jobs/"))).toEqual([])
    expect(offending(jobs, ({ file }) => file === undefined || !file.startsWith("src/Http/"))).toEqual([])
    const runnerAndServer = ["src/Jobs/Pipeline.ts", "src/Jobs/Runner.ts", "src/Http/Server.ts"]
    const importers = sources.filter((file) => ours(file).some((target) => runnerAndServer.includes(target)))
    expect(importers.filter((file) => !["src/App.ts", "src/Jobs/Pipeline.ts"].includes(file))).toEqual([])
  })

  it("builds the app graph once, in src/App.ts: the process, the CLI and the test server take from it", () => {
    const groups = sources.filter((file) => /\bHttpApiBuilder\.group\(/.test(sourceText.get(file)!))
    expect(groups).toContain("src/Tickets/Http.ts")
    const wiring = sources.filter((file) => ours(file).some((target) => groups.includes(target)))
    expect(wiring).toEqual(["src/App.ts"])
    expect(ours("src/main.ts")).toContain("src/App.ts")
    expect(ours("src/cli/main.ts")).toContain("src/App.ts")
    expect(testImports("test/support/TestServer.ts")).toContain("src/App.ts")
  })

  it("keeps src/Http to the server's assembly and its envelope: nothing below the app imports it, and it imports no handler", () => {
    const http = sources.filter((file) => file.startsWith("src/Http/"))
    expect(http).toContain("src/Http/Envelope.ts")
    const importers = sources.filter((file) => !file.startsWith("src/Http/") && ours(file).some((target) => target.startsWith("src/Http/")))
    expect(importers.filter((file) => !["src/App.ts", "src/main.ts"].includes(file))).toEqual([])
    const handlers = sources.filter((file) => /^src\/\w+\/Http\.ts$/.test(file))
    expect(offending(http, ({ file }) => file === undefined || !handlers.includes(file))).toEqual([])
  })

  it("puts authentication, rate limiting and idempotency in feature folders below the handlers", () => {
    const features = sources.filter((file) => /^src\/(Auth|RateLimit|Idempotency)\//.test(file))
    expect(features).toEqual(expect.arrayContaining(["src/Auth/Api.ts", "src/RateLimit/RateLimit.ts", "src/Idempotency/Api.ts"]))
    // a feature's own middleware (Auth/Http.ts, Idempotency/Http.ts) is no handler of another's
    expect(offending(features, ({ file }) =>
      file === undefined || (!file.startsWith("src/Http/") && !(/^src\/\w+\/Http\.ts$/.test(file) && !features.includes(file)))
    )).toEqual([])
  })

  it("keeps the job types in Domain, where the features that enqueue work find them without the runner", () => {
    const features = sources.filter((file) => !/^src\/(Jobs|cli)\/|^src\/(main|App)\.ts$/.test(file))
    expect(offending(features, ({ file }) => file === undefined || !/^src\/Jobs\/(Runner|Pipeline)\.ts$/.test(file))).toEqual([])
    const jobTypes = sources.filter((file) => ours(file).includes("src/Domain/Jobs.ts"))
    expect(jobTypes).toEqual(expect.arrayContaining(["src/Jobs/Runner.ts", "src/Jobs/Outbox.ts"]))
  })

  it("ships a client that imports nothing but its own files", () => {
    const client = sources.filter((file) => file.startsWith("src/client/"))
    expect(client).toContain("src/client/index.ts")
    expect(offending(client, ({ file }) => file !== undefined && file.startsWith("src/client/"))).toEqual([])
  })

  it("uses only what Effect, Node and V8 publish: no private or experimental part, no prototype or context surgery", () => {
    const forbidden: ReadonlyArray<readonly [string, RegExp]> = [
      ["process.execve (experimental)", /\bexecve\b/],
      ["async hooks", /\bcreateHook\b|node:async_hooks/],
      ["a context's private map", /\bmapUnsafe\b/],
      ["an unsafe constructor", /\bmakeUnsafe\b/],
      ["a fiber's context set by hand", /\bsetContext\b/],
      ["a context cut by hand", /\bContext\.(omit|pick)\(/],
      ["the prototype of a class", /\b(getPrototypeOf|setPrototypeOf)\b|\.prototype\b|\bObject\.create\(/],
      ["a layer's private build", /\.build\b(?!\w)/],
      ["a private field of Node's", /\._(?!tag\b)[a-zA-Z]\w*/],
      ["a response that skips the success schema", /\balreadyEncoded\b/]
    ]
    const found = sources.flatMap((file) =>
      sourceText.get(file)!.split("\n").flatMap((line, index) => {
        const code = line.replace(/\/\/.*$/, "").replace(/^\s*\*.*$/, "")
        return forbidden.filter(([, pattern]) => pattern.test(code)).map(([what]) => `${file}:${index + 1}: ${what}: ${line.trim()}`)
      })
    )
    expect(found).toEqual([])
  })

  it("starts with a plain `node dist/main.mjs`: at most Node's documented memory flags, no preload, no V8 flag", () => {
    const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
    expect(scripts.start).toMatch(/^node( --max-(old|semi)-space-size=\d+)* dist\/main\.mjs$/)
    // built when installed, and at a start only when a source is newer than the bundle
    expect(scripts.prestart).toBe("node scripts/bundle.mjs --if-stale")
    const tricks = /--(import|require|v8-flags|heap-|no-memory-reducer|max-inlined|single-threaded|expose|allow-natives)|\s-r\s/
    expect(Object.entries(scripts).filter(([, command]) => tricks.test(command)).map(([name]) => name)).toEqual([])
  })

  it("lets handlers return domain values, which the builder encodes with the endpoint's success schema", () => {
    // the site's files (a script, an icon, a page) are the only answers that are not JSON; the event
    // streams are answered by src/Events/Response.ts, whose body the log writes (comment lines
    // for keep-alives, which the contract's encoder cannot write)
    const handlers = sources.filter((file) => /\bHttpApiBuilder\.group\(/.test(sourceText.get(file)!) && file !== "src/Site/Http.ts")
    expect(handlers.length).toBeGreaterThan(5)
    expect(handlers.filter((file) => /\bHttpServerResponse\b|\bhandleRaw\b/.test(sourceText.get(file)!))).toEqual([])
  })

  it("spells each error code once, in Domain/Errors.ts, where it is derived from the error's tag", () => {
    const codes = /"(VALIDATION_ERROR|UNAUTHORIZED|FORBIDDEN|NOT_FOUND|METHOD_NOT_ALLOWED|REQUEST_TIMEOUT|CONFLICT|PAYLOAD_TOO_LARGE|UNSUPPORTED_MEDIA_TYPE|RATE_LIMITED|REQUEST_HEADERS_TOO_LARGE|INTERNAL_ERROR|SERVICE_UNAVAILABLE)"/
    // the client imports nothing of the service's, so it keeps its own list; and REQUEST_TIMEOUT
    // is also the name of a setting, which Config.ts reads
    const spelled = sources.filter((file) =>
      !file.startsWith("src/client/") && codes.test(sourceText.get(file)!.replace(/duration\("REQUEST_TIMEOUT"/g, ""))
    )
    expect(spelled).toEqual([])
  })

  it("reads time and randomness through Effect in the features: Clock, Random and Schedule, so TestClock drives them", () => {
    const platform = /^src\/(Http|Database|Observability|client|cli)\/|^src\/main\.ts$/
    const features = sources.filter((file) => !platform.test(file))
    const found = features.flatMap((file) =>
      sourceText.get(file)!.split("\n").flatMap((line, index) =>
        /\bDate\.now\(|\bnew Date\(\)|\bMath\.random\(|\bsetTimeout\(|\bsetInterval\(/.test(line.replace(/\/\/.*$/, ""))
          ? [`${file}:${index + 1}: ${line.trim()}`]
          : []
      )
    )
    expect(found).toEqual([])
  })
})
