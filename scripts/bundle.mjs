// Builds what `npm start` runs and serves: the service as one ESM bundle (dist/main.mjs) and the
// website widget as one script (dist/widget.js). `npm install` builds them once (prepare); with
// --if-stale, as `npm start` calls it, it builds only when a source is newer than the bundles;
// with --widget, the widget alone.
import { build } from "esbuild"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..")
const at = (...parts) => join(root, ...parts)

const all = [
  {
    entryPoints: [at("src/main.ts")],
    outfile: at("dist/main.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: "linked",
    // PGlite finds its WebAssembly and data files next to its own modules
    external: ["@electric-sql/pglite"],
    // a few CommonJS dependencies call require(); an ESM bundle has none of its own
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: "warning",
    logOverride: { "empty-glob": "silent" }
  },
  {
    entryPoints: [at("widget/src/main.ts")],
    outfile: at("dist/widget.js"),
    bundle: true,
    minify: true,
    format: "iife",
    // every browser since 2020 runs `?.` and `??` as written; lowered for older ones they cost
    // some 400 of the widget's 15 KB gzipped
    target: "es2020",
    logLevel: "warning"
  }
]

const bundles = process.argv.includes("--widget") ? all.filter(({ outfile }) => outfile.endsWith("widget.js")) : all

/** The newest modification time of the files under `path` (or of `path` itself). */
const newest = (path) => {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), 0)
}

const sources = ["src", "widget/src", "package-lock.json"].map((path) => at(path))

const isStale = () =>
  bundles.some(({ outfile }) => !existsSync(outfile)) ||
  Math.max(...sources.map(newest)) > Math.min(...bundles.map(({ outfile }) => statSync(outfile).mtimeMs))

if (!process.argv.includes("--if-stale") || isStale()) {
  await Promise.all(bundles.map((options) => build(options)))
}
