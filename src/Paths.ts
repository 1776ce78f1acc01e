import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The folder holding package.json and migrations/, found by walking up from this module, so
 * that the same code finds its files when run from src/ (tsx, Deno) and from a bundle in dist/.
 */
const projectRoot = (() => {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!(existsSync(join(dir, "package.json")) && existsSync(join(dir, "migrations")))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error("cannot find the project folder (package.json beside migrations/)")
    dir = parent
  }
  return dir
})()

export const projectPath = (...segments: ReadonlyArray<string>) => join(projectRoot, ...segments)
