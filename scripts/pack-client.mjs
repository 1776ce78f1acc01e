// Packs the TypeScript client alone as a standard npm package, the one another application
// installs: `npm run pack:client` writes dist/support-ticketing-client-<version>.tgz (with
// --out <dir>, into that folder instead) and prints its path. The client is compiled here from
// src/client with tsconfig.client.json into a folder of its own, so the tarball holds what the
// sources give now whatever dist/client holds; `npm pack` makes the tarball. The package is
// named support-ticketing-client, has the service's version and license, and no dependencies.
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"
import { pathToFileURL } from "node:url"

const root = join(import.meta.dirname, "..")
const at = (...parts) => join(root, ...parts)

const { values } = parseArgs({ options: { out: { type: "string" } } })
const out = resolve(values.out ?? at("dist"))
const service = JSON.parse(readFileSync(at("package.json"), "utf8"))

/** npm itself: the one running this script when started by `npm run`, else the one on the PATH. */
const npmCli = /[\\/]npm-cli\.js$/.test(process.env.npm_execpath ?? "") ? process.env.npm_execpath : undefined
const npm = (args, cwd) =>
  npmCli !== undefined
    ? execFileSync(process.execPath, [npmCli, ...args], { cwd, encoding: "utf8" })
    : execFileSync("npm", args, { cwd, encoding: "utf8", shell: process.platform === "win32" })

const manifest = {
  name: "support-ticketing-client",
  version: service.version,
  description: "TypeScript client of the support-ticketing service: typed API calls with retries, and webhook verification. No dependencies.",
  keywords: ["support", "ticketing", "client", "webhooks", "typescript"],
  // the service's own terms: UNLICENSED (no rights granted) while its package.json names none
  license: service.license ?? "UNLICENSED",
  ...Object.fromEntries(["author", "homepage", "repository", "bugs"].filter((key) => key in service).map((key) => [key, service[key]])),
  type: "module",
  exports: {
    ".": { types: "./index.d.ts", import: "./index.js" },
    "./package.json": "./package.json"
  },
  // for tools that do not read exports
  main: "./index.js",
  types: "./index.d.ts",
  files: ["*.js", "*.d.ts"],
  sideEffects: false,
  engines: { node: ">=18" }
}

const stage = mkdtempSync(join(tmpdir(), "support-ticketing-client-"))
try {
  execFileSync(process.execPath, [at("node_modules/typescript/bin/tsc"), "-p", at("tsconfig.client.json"), "--outDir", stage], {
    stdio: "inherit"
  })
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  copyFileSync(at("src/client/README.md"), join(stage, "README.md"))
  for (const name of readdirSync(root).filter((name) => /^(LICEN[CS]E|NOTICE)(\.(md|txt))?$/i.test(name))) {
    copyFileSync(at(name), join(stage, name))
  }

  // the version the client sends in its User-Agent must be the one the package is installed as
  const { clientVersion } = await import(pathToFileURL(join(stage, "index.js")).href)
  if (clientVersion !== manifest.version) {
    throw new Error(`src/client/Client.ts has clientVersion ${clientVersion}, package.json version ${manifest.version}: make them equal`)
  }

  mkdirSync(out, { recursive: true })
  const [packed] = JSON.parse(npm(["pack", "--json", "--ignore-scripts", "--pack-destination", out], stage))
  const tarball = join(out, packed.filename)
  if (!existsSync(tarball)) throw new Error(`npm pack reported ${packed.filename} but ${tarball} is not there`)
  console.log(`${packed.name}@${packed.version}: ${packed.files.length} files, ${packed.size} bytes`)
  console.log(tarball)
} finally {
  rmSync(stage, { recursive: true, force: true })
}
