import { Effect, Layer } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { testSettings } from "./Settings.ts"

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplateDir: string
  }
}

/**
 * PGlite's initdb takes seconds; doing it once and copying the migrated directory for each
 * suite takes a fraction of that, and every suite still gets a database of its own.
 */
export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), "support-template-"))
  await Effect.gen(function*() {
    const config = yield* testSettings({ DATA_DIR: dir })
    yield* Layer.build(Database.layer.pipe(Layer.provide(Layer.succeed(AppConfig, config))))
  }).pipe(Effect.scoped, Effect.runPromise)
  project.provide("pgliteTemplateDir", dir)
  return async () => {
    await rm(dir, { recursive: true, force: true })
  }
}
