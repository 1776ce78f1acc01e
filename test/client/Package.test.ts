// How the client ships: built from src/client alone, importing nothing, reachable as
// "<package>/client" with its types, and usable from plain Node without a TypeScript loader.
import { execFile } from "node:child_process"
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientVersion } from "../../src/client/index.ts"
import { type StubAnswer, startStub } from "../support/StubServer.ts"
import { clientExports } from "../support/ClientExports.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const tsc = join(root, "node_modules/typescript/bin/tsc")
const packageJson = JSON.parse(await readFile(join(root, "package.json"), "utf8"))

const run = (command: string, args: ReadonlyArray<string>, cwd = root) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(command, args, { cwd }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }))
  })

/** Every module specifier a file names: static imports and re-exports, and dynamic imports. */
const specifiers = (source: string) => [
  ...[...source.matchAll(/(?:^|\s)(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/g)].map((m) => m[1]!),
  ...[...source.matchAll(/^\s*import\s*["']([^"']+)["']/gm)].map((m) => m[1]!),
  ...[...source.matchAll(/import\(\s*(?:\/\*.*?\*\/\s*)?([^)]*?)\s*\)/g)].map((m) => m[1]!)
]

const filesOf = async (dir: string, ending: string) =>
  (await readdir(join(root, dir))).filter((name) => name.endsWith(ending)).map((name) => join(root, dir, name))

describe("the client as a package", () => {
  beforeAll(async () => {
    // the same build npm install runs (prepare), so what is checked is what the sources give now
    const build = await run(process.execPath, [tsc, "-p", "tsconfig.client.json"])
    expect(build.output).toBe("")
    expect(build.code).toBe(0)
  }, 120_000)

  it("is exported as ./client with its types, pointing at files the build made", async () => {
    expect(packageJson.exports["./client"]).toEqual({ types: "./dist/client/index.d.ts", default: "./dist/client/index.js" })
    expect(packageJson.scripts["build:client"]).toBe("tsc -p tsconfig.client.json")
    expect(packageJson.scripts.prepare).toContain("build:client")
    expect(packageJson.scripts.build).toContain("build:client")
    // the version the client reports in its User-Agent is the package's
    expect(clientVersion).toBe(packageJson.version)
    const built = await readdir(join(root, "dist/client"))
    expect(built).toEqual(expect.arrayContaining(["index.js", "index.d.ts", "Client.js", "Client.d.ts"]))
  })

  it("src/client imports nothing from outside its folder, and the built files import only each other", async () => {
    const sources = await filesOf("src/client", ".ts")
    expect(sources.length).toBeGreaterThanOrEqual(5)
    for (const file of sources) {
      for (const specifier of specifiers(await readFile(file, "utf8"))) {
        // the one dynamic import: Node 18's WebCrypto, by a variable name, loaded only there
        if (specifier === "nodeCrypto") continue
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[A-Za-z]+\.ts$/)
      }
    }
    for (const file of [...(await filesOf("dist/client", ".js")), ...(await filesOf("dist/client", ".d.ts"))]) {
      for (const specifier of specifiers(await readFile(file, "utf8"))) {
        if (specifier.includes("nodeCrypto")) continue
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[A-Za-z]+\.(js|ts)$/)
      }
    }
  })

  it("its declarations type-check in a user's project with no Node types, through the package export", async () => {
    const check = await run(process.execPath, [tsc, "-p", "test/client/consumer/tsconfig.json"])
    expect(check.output).toBe("")
    expect(check.code).toBe(0)
  }, 60_000)

  describe("from plain Node, by the package name", () => {
    let stub: Awaited<ReturnType<typeof startStub>>
    beforeAll(async () => {
      stub = await startStub((n): StubAnswer =>
        n <= 2
          ? { status: 429, body: { error: { code: "RATE_LIMITED", message: "slow down" } } }
          : { status: 200, body: { status: "ok", service: "stub", version: "0" } }
      )
    })
    afterAll(() => stub.close())

    it("imports it, retries two 429s and returns the answer", async () => {
      const script = `
        import * as client from "${packageJson.name}/client"
        const support = client.createClient({ apiKey: "tf_x", baseUrl: ${JSON.stringify(stub.url)}, retryBaseDelayMs: 5 })
        const health = await support.health()
        console.log(JSON.stringify({ exports: Object.keys(client).sort(), health }))`
      const result = await run(process.execPath, ["--input-type=module", "-e", script])
      expect(result.code, result.output).toBe(0)
      expect(JSON.parse(result.output)).toEqual({
        exports: clientExports,
        health: { status: "ok", service: "stub", version: "0" }
      })
      expect(stub.requests).toHaveLength(3)
    }, 60_000)

    it("works where WebCrypto is no global (Node 18): webhooks verified, keys still sent", async () => {
      const script = `
        import { createHmac } from "node:crypto"
        Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true })
        const { createClient, verifyWebhook } = await import("${packageJson.name}/client")
        const body = JSON.stringify({ event: "ticket_created", timestamp: "2026-11-22T10:00:00.000Z", data: { id: "t" } })
        const signature = "sha256=" + createHmac("sha256", "whsec_test").update(body).digest("hex")
        const event = await verifyWebhook({ secret: "whsec_test", body, signature })
        const refused = await verifyWebhook({ secret: "whsec_other", body, signature }).catch((e) => e.name)
        await createClient({ apiKey: "tf_x", baseUrl: ${JSON.stringify(stub.url)} }).createTicket({ subject: "s", body: "b" })
        console.log(JSON.stringify({ crypto: typeof globalThis.crypto, event: event.event, refused }))`
      const result = await run(process.execPath, ["--input-type=module", "-e", script])
      expect(result.code, result.output).toBe(0)
      expect(JSON.parse(result.output)).toEqual({ crypto: "undefined", event: "ticket_created", refused: "WebhookVerificationError" })
      const sent = stub.requests.at(-1)!
      expect(sent.path).toBe("/v1/tickets")
      expect(sent.headers["idempotency-key"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    }, 60_000)
  })
})
