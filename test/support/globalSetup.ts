import { Effect, Layer } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from "testcontainers"
import type { TestProject } from "vitest/node"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { testSettings } from "./Settings.ts"

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplateDir: string
  }
}

/** Whether a container engine answers here (Docker, Podman, …); none runs on a CI machine of ours. */
const containerRuntime = () => getContainerRuntimeClient().then(() => true, () => false)

/**
 * Where the PostgreSQL half of the suites runs: the server of DATABASE_URL when it is set, else a
 * PostgreSQL 15 container when a container engine is reachable, else nowhere (PGlite only). The
 * container's address goes into DATABASE_URL before any test file starts, so every suite, child
 * processes included, finds it the same way.
 */
const startPostgres = async (): Promise<StartedTestContainer | undefined> => {
  if (process.env.DATABASE_URL || !(await containerRuntime())) return undefined
  const container = await new GenericContainer("postgres:15-alpine")
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start()
  process.env.DATABASE_URL = `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`
  return container
}

/**
 * PGlite's initdb takes seconds; doing it once and copying the migrated directory for each
 * suite takes a fraction of that, and every suite still gets a database of its own.
 */
export default async function setup(project: TestProject) {
  const postgres = await startPostgres()
  // the suites' PostgreSQL half is then simply absent, not skipped: the run says so once
  if (!process.env.DATABASE_URL && !process.env.CI) {
    console.warn("no PostgreSQL server (DATABASE_URL unset, no container engine): the suites run on PGlite only")
  }
  const dir = await mkdtemp(join(tmpdir(), "support-template-"))
  await Effect.gen(function*() {
    const config = yield* testSettings({ DATA_DIR: dir })
    yield* Layer.build(Database.layer.pipe(Layer.provide(Layer.succeed(AppConfig, config))))
  }).pipe(Effect.scoped, Effect.runPromise)
  project.provide("pgliteTemplateDir", dir)
  return async () => {
    await rm(dir, { recursive: true, force: true })
    await postgres?.stop()
  }
}
