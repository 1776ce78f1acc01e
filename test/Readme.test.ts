/**
 * The README is all a newcomer has: it must not point outside the repository, every shell
 * variable its examples use must be set where it first appears, and the answers it shows must be
 * what the demo data gives.
 */
import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
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
      expect(existsSync(join(root, link)), link).toBe(true)
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
          : [...code.matchAll(/^\s*([A-Z][A-Z0-9_]*)=\S+\s*$/g)].map((match) => match[1]!)
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
