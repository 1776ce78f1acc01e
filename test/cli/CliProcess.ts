import { Effect, Layer } from "effect"
import { expect } from "vitest"
import { SqlClient } from "effect/sql"
import { spawn } from "node:child_process"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { AppConfig } from "../../src/Config.ts"
import * as Database from "../../src/Database/Database.ts"
import { Projects } from "../../src/Projects/Projects.ts"
import { testSettings } from "../support/Settings.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** A run that succeeded: exit 0, nothing on stderr; its output. */
export const succeeded = (run: CliRun) => {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" })
  return run.stdout
}

/** One line on stderr, nothing on stdout, exit status 1, as every user error of the CLI. */
export const failedWith = (run: CliRun, line: string | RegExp) => {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: "" })
  expect(run.stderr.endsWith("\n") && !run.stderr.slice(0, -1).includes("\n")).toBe(true)
  if (typeof line === "string") expect(run.stderr).toBe(`error: ${line}\n`)
  else expect(run.stderr.slice(0, -1)).toMatch(line)
}

/** The environment of the test run, without the settings a test gives the CLI itself. */
const inheritedEnv = () => {
  const { DATABASE_URL: _url, DATA_DIR: _dir, ADMIN_TOKEN: _token, ...env } = process.env
  return env
}

/** Runs the operator CLI in a process of its own, as a person would, with `env` as its settings. */
export const cli = (env: Record<string, string>, ...args: Array<string>) =>
  Effect.promise(() =>
    new Promise<CliRun>((resolve, reject) => {
      const child = spawn(process.execPath, ["src/cli/main.ts", ...args], {
        cwd: root,
        env: { ...inheritedEnv(), ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      child.once("error", reject)
      child.once("close", (code) => resolve({ code, stdout, stderr }))
    })
  )

/**
 * Runs `effect` on the database of `env` (the one the CLI used), closed again before the effect's
 * result is returned, so the next CLI run finds the embedded database free.
 */
export const onDatabase = <A, E>(env: Record<string, string>, effect: Effect.Effect<A, E, SqlClient.SqlClient | Projects>) =>
  Effect.gen(function*() {
    const config = yield* testSettings(env)
    return yield* effect.pipe(
      Effect.provide(Projects.layer.pipe(Layer.provideMerge(Database.layer), Layer.provide(Layer.succeed(AppConfig, config))))
    )
  })

export const createProject = (env: Record<string, string>) =>
  onDatabase(env, Effect.flatMap(Effect.service(Projects), (projects) => projects.create("imports"))).pipe(
    Effect.map((created) => created.project_id)
  )

/** A temporary folder holding the given files (paths with `/`), removed when the test's scope closes. */
export const markdownFolder = (files: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const folder = await mkdtemp(join(tmpdir(), "support-import-"))
      await writeFiles(folder, files)
      return folder
    }),
    (folder) => Effect.promise(() => rm(folder, { recursive: true, force: true }))
  )

export const writeFiles = async (folder: string, files: Record<string, string>) => {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(folder, name)), { recursive: true })
    await writeFile(join(folder, name), text)
  }
}

/** A Markdown article file: front matter lines, then the body. */
export const article = (frontMatter: Record<string, string>, body: string) =>
  `---\n${Object.entries(frontMatter).map(([key, value]) => `${key}: ${value}`).join("\n")}\n---\n\n${body}\n`
