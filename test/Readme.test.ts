/**
 * The README is all a newcomer has: it must not point outside the repository, every shell
 * variable its examples use must be set where it first appears, and the answers it shows must be
 * what the demo data gives.
 */
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ConfigProvider, Effect } from "effect"
import { settings } from "../src/Config.ts"
import { type ServiceProcess, startServiceProcess } from "./support/Process.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const readme = await readFile(join(root, "README.md"), "utf8")

/** The shell blocks of the README, in the order a reader meets them. */
const shellBlocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)

describe("the README", () => {
  it("links to nothing outside the repository, and each file it links to exists", () => {
    expect(readme).not.toMatch(/\.\.\/shared|\]\(\.\.\//)
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1]!)
    for (const link of links.filter((link) => !/^(https?:|#|mailto:)/.test(link))) {
      const [file, anchor] = link.split("#") as [string, string | undefined]
      expect(existsSync(join(root, file)), link).toBe(true)
      // an anchor names a heading of that file, as GitHub makes them
      if (anchor !== undefined) {
        const headings = [...readFileSync(join(root, file), "utf8").matchAll(/^#+ (.+)$/gm)]
          .map((match) => match[1]!.toLowerCase().replace(/[^a-z0-9 _-]/g, "").replace(/ /g, "-"))
        expect(headings, link).toContain(anchor)
      }
    }
  })

  it("sets every shell variable of its examples before an example uses it", () => {
    const set = new Set<string>()
    const unset: Array<string> = []
    for (const block of shellBlocks) {
      for (const line of block.split("\n")) {
        const code = line.replace(/(^|\s)#.*$/, "")
        for (const [, name] of code.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g)) {
          if (!set.has(name!)) unset.push(`${name} in: ${line.trim()}`)
        }
        // `NAME=value` at the start of a line, and each NAME=value after `export`
        const assignments = /^\s*export\s/.test(code)
          ? [...code.matchAll(/\s([A-Z][A-Z0-9_]*)=/g)].map((match) => match[1]!)
          : [...code.matchAll(/^\s*([A-Z][A-Z0-9_]*)=("[^"]*"|'[^']*'|\S+)\s*$/g)].map((match) => match[1]!)
        for (const name of assignments) set.add(name)
      }
    }
    expect(unset).toEqual([])
  })
})

describe("the README's search examples on the demo data", () => {
  let service: ServiceProcess
  let dataDir: string
  let fullKey: string

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "readme-demo-"))
    // the service as `npm start` runs it on a new embedded database: it makes the demo project
    service = await startServiceProcess(process.execPath, [join(root, "src/main.ts")], {
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      REDIS_URL: "",
      LOG_LEVEL: "warning"
    }, 180_000)
    fullKey = /full key:\s+(tf_\S+)/.exec(service.output())![1]!
    // the ticket the README files before it searches
    const created = await fetch(`${service.baseUrl}/v1/tickets`, {
      method: "POST",
      headers: { authorization: `Bearer ${fullKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        subject: "Cannot log in",
        body: "The login page says my password is wrong.",
        sender_email: "jane@example.com",
        sender_name: "Jane"
      })
    })
    expect(created.status).toBe(202)
  }, 240_000)

  afterAll(async () => {
    await service?.stop()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  const examples = [...readme.matchAll(/curl -s "\$BASE(\/v1\/(?:articles\/)?search\?[^"]+)"[^\n]*\n((?:# [^\n]*\n)+)/g)]
    .map((match) => ({ path: match[1]!, shown: match[2]!.replace(/^# /gm, "") }))

  it("are there to check", () => {
    expect(examples.map((example) => example.path)).toEqual([
      "/v1/articles/search?q=reset+password&limit=5",
      "/v1/search?q=password&types=tickets,articles&limit=3",
      "/v1/search?q=jane&types=contacts"
    ])
  })

  it("find what the README shows, first result first", async () => {
    for (const example of examples) {
      const response = await fetch(`${service.baseUrl}${example.path}`, { headers: { authorization: `Bearer ${fullKey}` } })
      expect(response.status, example.path).toBe(200)
      const body = await response.json() as { articles?: Array<{ title: string }>; results?: Array<{ title: string }> }
      const hits = body.articles ?? body.results ?? []
      expect(hits.length, example.path).toBeGreaterThan(0)
      const shownTitle = /"title":"([^"]+)"/.exec(example.shown)![1]
      expect(hits[0]!.title, example.path).toBe(shownTitle)
    }
  })
})

describe("the README's settings table", () => {
  /** The names the service asks its configuration for, recorded as it asks, with the given values answered. */
  const namesRead = (values: Record<string, string>) => {
    const asked = new Set<string>()
    const answers = ConfigProvider.fromUnknown(values)
    const recording = ConfigProvider.make((path) => {
      if (typeof path[0] === "string") asked.add(path[0])
      return answers.load(path)
    })
    return Effect.runPromise(Effect.as(Effect.orDie(settings.parse(recording)), asked))
  }
  // the first column of the table under "## Settings": one name, or several joined by commas
  const section = readme.slice(readme.indexOf("## Settings"), readme.indexOf("\n## ", readme.indexOf("## Settings") + 1))
  const documented = new Set(
    [...section.matchAll(/^\| (`[A-Z][A-Z0-9_]*`(?:, `[A-Z][A-Z0-9_]*`)*) \|/gm)]
      .flatMap((match) => [...match[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((name) => name[1]!))
  )

  it("names every setting the service reads, and none it does not", async () => {
    // the defaults, and once more with the choices that make further settings count
    const read = new Set([
      ...await namesRead({}),
      ...await namesRead({
        DATABASE_URL: "postgres://localhost/x",
        TRIAGE_PROVIDER: "openai",
        OPENAI_API_KEY: "sk-x",
        ERROR_TRACKER: "sentry",
        SENTRY_ORG: "acme",
        SENTRY_AUTH_TOKEN: "t",
        SMTP_URL: "smtp://localhost:25",
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318"
      })
    ])
    expect(read.size).toBeGreaterThan(30)
    expect([...read].filter((name) => !documented.has(name)).sort(), "read but not in the table").toEqual([])
    expect([...documented].filter((name) => !read.has(name)).sort(), "in the table but never read").toEqual([])
  })
})
