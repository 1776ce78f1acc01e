// The client as another application gets it: `npm run pack:client` makes an npm tarball of the
// client alone, which installs offline into an empty project (it has no dependencies), imports by
// its own name from plain Node, and type-checks through its `exports` with no Node types.
import { execFile } from "node:child_process"
import { createHmac } from "node:crypto"
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Stub, startStub } from "../support/StubServer.ts"
import { clientExports } from "../support/ClientExports.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const tsc = join(root, "node_modules/typescript/bin/tsc")
const service = JSON.parse(await readFile(join(root, "package.json"), "utf8"))
const tarballName = `support-ticketing-client-${service.version}.tgz`

// npm's settings from the run that started vitest (npm_config_*, the project's prefix) stay out
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_")))
// node first on the PATH, so npm and what it starts run under this Node
env.PATH = `${join(process.execPath, "..")}${process.platform === "win32" ? ";" : ":"}${env.PATH ?? ""}`

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ code: number; output: string; stdout: string }>((resolve) => {
    execFile(command, args, { cwd, env, shell: process.platform === "win32" }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}`, stdout }))
  })

const filesUnder = async (dir: string): Promise<Array<string>> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1).replaceAll("\\", "/"))
    .sort()

describe("the client as an npm tarball (npm run pack:client)", () => {
  let dir: string
  let tarball: string
  let app: string
  let stub: Stub

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "client-tarball-"))
    const pack = await run("npm", ["run", "pack:client", "--silent", "--", "--out", join(dir, "out")], root)
    expect(pack.code, pack.output).toBe(0)
    tarball = join(dir, "out", tarballName)
    // the last line it prints is the tarball's path
    expect(pack.stdout.trim().split("\n").at(-1)).toBe(tarball)

    app = join(dir, "app")
    await mkdir(app)
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }))
    // an empty cache of its own: nothing comes from the network, nor from one filled before
    const install = await run(
      "npm",
      ["install", "--offline", "--no-audit", "--no-fund", "--cache", join(dir, "cache"), tarball],
      app
    )
    expect(install.code, install.output).toBe(0)
    stub = await startStub(() => ({ status: 200, body: { status: "ok", service: "stub", version: "0" } }))
  }, 120_000)

  afterAll(async () => {
    await stub?.close()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it("installs as support-ticketing-client: the built modules, their types, a README, no dependencies", async () => {
    const installed = join(app, "node_modules/support-ticketing-client")
    const manifest = JSON.parse(await readFile(join(installed, "package.json"), "utf8"))
    expect(manifest).toMatchObject({
      name: "support-ticketing-client",
      version: service.version,
      license: service.license ?? "UNLICENSED",
      type: "module",
      exports: { ".": { types: "./index.d.ts", import: "./index.js" } },
      sideEffects: false,
      engines: { node: ">=18" }
    })
    expect(manifest).not.toHaveProperty("dependencies")
    expect(manifest).not.toHaveProperty("peerDependencies")
    expect(manifest).not.toHaveProperty("scripts")
    expect(manifest).not.toHaveProperty("private")

    const modules = (await readdir(join(root, "src/client"))).filter((name) => name.endsWith(".ts")).map((name) => name.slice(0, -3))
    expect(await filesUnder(installed)).toEqual(
      [...modules.flatMap((name) => [`${name}.js`, `${name}.d.ts`]), "README.md", "package.json"].sort()
    )
    expect(await readFile(join(installed, "README.md"), "utf8")).toContain("npm install ./support-ticketing-client-")

    const appManifest = JSON.parse(await readFile(join(app, "package.json"), "utf8"))
    expect(appManifest.dependencies["support-ticketing-client"]).toMatch(/^file:.*\.tgz$/)
    // the app's node_modules holds it and nothing else
    expect((await readdir(join(app, "node_modules"))).filter((name) => !name.startsWith("."))).toEqual(["support-ticketing-client"])
  })

  it("imports from plain Node by its name: calls a server and verifies a signed webhook body", async () => {
    const secret = "whsec_test"
    const body = JSON.stringify({ event: "ticket_created", timestamp: "2026-11-22T10:00:00.000Z", data: { id: "t", subject: "Hi" } })
    const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`
    await writeFile(
      join(app, "main.mjs"),
      `import * as client from "support-ticketing-client"
const support = client.createClient({ apiKey: "tf_x", baseUrl: ${JSON.stringify(stub.url)} })
const health = await support.health()
const event = await client.verifyWebhook({ secret: ${JSON.stringify(secret)}, body: ${JSON.stringify(body)}, signature: ${JSON.stringify(signature)} })
const forged = await client.verifyWebhook({ secret: "whsec_other", body: ${JSON.stringify(body)}, signature: ${JSON.stringify(signature)} }).catch((e) => e instanceof client.WebhookVerificationError)
const internal = await import("support-ticketing-client/Client.js").catch((e) => e.code)
console.log(JSON.stringify({ exports: Object.keys(client).sort(), version: client.clientVersion, health, event: event.data, forged, internal }))
`
    )
    const result = await run(process.execPath, ["main.mjs"], app)
    expect(result.code, result.output).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({
      exports: clientExports,
      version: service.version,
      health: { status: "ok", service: "stub", version: "0" },
      event: { id: "t", subject: "Hi" },
      forged: true,
      // only the package's entry is public
      internal: "ERR_PACKAGE_PATH_NOT_EXPORTED"
    })
    expect(stub.requests.at(-1)).toMatchObject({ method: "GET", path: "/health" })
    expect(stub.requests.at(-1)!.headers["user-agent"]).toBe(`support-ticketing-client/${service.version}`)
  }, 60_000)

  it.each(["bundler", "nodenext"])("type-checks a consumer through its exports (moduleResolution %s)", async (resolution) => {
    await writeFile(
      join(app, "consumer.ts"),
      `import {
  ApiError,
  createClient,
  type CreatedTicket,
  type ErrorCode,
  type SupportClient,
  type Ticket,
  verifyWebhook
} from "support-ticketing-client"

const support: SupportClient = createClient({ apiKey: "tf_key", baseUrl: "https://support.example.com", maxRetries: 2 })

export const file = async (): Promise<string> => {
  const created: CreatedTicket = await support.createTicket({ subject: "s", body: "b", sender_email: "ada@example.com" })
  try {
    const ticket: Ticket = await support.getTicket(created.ticket_id, { contactEmail: "ada@example.com" })
    return \`\${ticket.ticket_number} \${ticket.status} \${ticket.messages.map((m) => m.author_type).join()}\`
  } catch (error) {
    if (error instanceof ApiError) {
      if (error.code === ("NOT_FOUND" satisfies ErrorCode)) return "gone"
      const wait: number | undefined = error.retryAfterMs
      return \`\${error.status} \${error.code} \${error.requestId} \${wait}\`
    }
    throw error
  }
}

export const subjectOf = async (body: string, signature: string | null): Promise<string | undefined> => {
  const event = await verifyWebhook({ secret: "whsec_x", body, signature })
  return event.event === "ticket_created" ? event.data.subject : undefined
}

// the types are real, not any: these must be errors
// @ts-expect-error subject is a string
void support.createTicket({ subject: 1, body: "b" })
// @ts-expect-error there is no such method
void support.deleteTicket("t")
`
    )
    const module = resolution === "bundler" ? "ESNext" : "NodeNext"
    await writeFile(
      join(app, `tsconfig.${resolution}.json`),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module,
          moduleResolution: resolution,
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          // no Node types: the package's declarations must stand on their own
          types: [],
          noEmit: true,
          skipLibCheck: false
        },
        files: ["consumer.ts"]
      })
    )
    const check = await run(process.execPath, [tsc, "-p", `tsconfig.${resolution}.json`, "--traceResolution"], app)
    expect(check.code, check.stdout.split("\n").filter((line) => line.includes("error")).join("\n")).toBe(0)
    // resolved through the package's exports, to its own index.d.ts
    expect(check.stdout).toMatch(
      /Module name 'support-ticketing-client' was successfully resolved to '[^']*node_modules\/support-ticketing-client\/index\.d\.ts'/
    )
    expect(check.stdout).toContain("Matched 'exports' condition 'types'.")
    expect(check.stdout).toContain("Using 'exports' subpath '.' with target './index.d.ts'.")
  }, 60_000)

  it("type-checks the README's client examples, pasted into an app that installed the tarball", async () => {
    const readme = await readFile(join(root, "README.md"), "utf8")
    const section = readme.slice(readme.indexOf("## The TypeScript client"), readme.indexOf("## The website widget"))
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
    expect(blocks).toHaveLength(2)
    // two modules, as a user would paste them; the first imports what the second uses
    await writeFile(join(app, "usage.ts"), `${blocks[0]}\nexport {}\n`)
    await writeFile(join(app, "handler.ts"), `import { verifyWebhook } from "support-ticketing-client"\n${blocks[1]}`)
    await writeFile(
      join(app, "tsconfig.readme.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          types: ["node"],
          typeRoots: [join(root, "node_modules/@types")],
          noEmit: true
        },
        files: ["usage.ts", "handler.ts"]
      })
    )
    const check = await run(process.execPath, [tsc, "-p", "tsconfig.readme.json"], app)
    expect(check.code, check.stdout).toBe(0)
  }, 60_000)
})
