import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { callService, postTicket, provisionProject, type RunningService, startService } from "./support/Process.ts"

const root = fileURLToPath(new URL("../", import.meta.url))
const deno = fileURLToPath(new URL("../node_modules/.bin/deno", import.meta.url))
const adminToken = "deno-admin-token"

describe("the same sources under Deno 2", () => {
  let service: RunningService

  beforeAll(async () => {
    service = await startService(
      deno,
      ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "--allow-sys", `${root}src/main.ts`],
      { DATA_DIR: "memory://", DATABASE_URL: "", REDIS_URL: "", ADMIN_TOKEN: adminToken, DENO_NO_UPDATE_CHECK: "1" }
    )
  }, 120_000)

  afterAll(async () => {
    await service?.stop()
  })

  it("boots, creates a ticket and reads it back", async () => {
    const health = await callService(service.baseUrl, undefined, (api) => api.health.health())
    expect(health.status).toBe("ok")
    const { key } = await provisionProject(service.baseUrl, adminToken, "Deno")
    const [{ ticket_id }, created] = await postTicket(service.baseUrl, key, { subject: "Hello from Deno", body: "Works?" })
    expect(created.status).toBe(202)
    const [ticket, read] = await callService(service.baseUrl, key, (api) =>
      api.tickets.get({ params: { id: ticket_id }, query: {}, headers: {}, responseMode: "decoded-and-response" }))
    expect(read.status).toBe(200)
    expect(ticket).toMatchObject({ ticket_id, subject: "Hello from Deno", status: "open", ticket_number: 1 })
    expect(service.output()).toContain("demo project")
  })

  it("searches articles, its excerpt marking the matched words (the stemmer is an npm package Deno loads)", async () => {
    const { key, projectId } = await provisionProject(service.baseUrl, adminToken, "Deno articles")
    await callService(service.baseUrl, adminToken, (api) =>
      api.admin.createArticle({
        params: { pid: projectId },
        payload: { title: "Signing in", body: "Reset your **password** when passwords expire.", category: "Account", published: true }
      }))
    const found = await callService(service.baseUrl, key, (api) => api.articles.search({ query: { q: "password" } }))
    expect(found.total).toBe(1)
    expect(found.articles[0]!.excerpt).toBe("Reset your <mark>password</mark> when <mark>passwords</mark> expire")
  })

  it("streams a ticket's events: the body the log writes is piped by Deno's node:http too", async () => {
    const { key, projectId } = await provisionProject(service.baseUrl, adminToken, "Deno streams")
    const [{ ticket_id }] = await postTicket(service.baseUrl, key, { subject: "Live", body: "Anyone?" })
    const controller = new AbortController()
    const response = await fetch(`${service.baseUrl}/v1/tickets/${ticket_id}/events`, {
      headers: { authorization: `Bearer ${key}` },
      signal: controller.signal
    })
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
    await callService(service.baseUrl, adminToken, (api) =>
      api.admin.addAgentMessage({ params: { pid: projectId, id: ticket_id }, payload: { body: "Here" } }))
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ""
    while (!text.includes("event: ticket_replied")) {
      const { done, value } = await reader.read()
      if (done) break
      text += value
    }
    controller.abort()
    expect(text).toMatch(/^: keep-alive\n\n/)
    expect(text).toMatch(/id: \d+\nevent: ticket_replied\ndata: \{"event":"ticket_replied"/)
  }, 30_000)
})

describe("the client's test file under Deno 2", () => {
  it("passes in full, on the databases this run uses", async () => {
    const dir = await mkdtemp(join(tmpdir(), "deno-client-"))
    const report = join(dir, "report.json")
    try {
      const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = execFile(
          deno,
          [
            "run",
            "-A",
            "node_modules/vitest/vitest.mjs",
            "run",
            "test/client/Client.test.ts",
            // the default reporter's output is what a failure below shows; the JSON report is what it reads
            "--reporter=default",
            "--reporter=json",
            `--outputFile.json=${report}`
          ],
          {
            cwd: root,
            env: { ...process.env, CLIENT_TEST_RUNTIME: "deno", DENO_NO_UPDATE_CHECK: "1" },
            maxBuffer: 16 * 1024 * 1024
          },
          (error, stdout, stderr) => resolve({ code: error ? (child.exitCode ?? 1) : 0, output: `${stdout}${stderr}` })
        )
      })
      const result = JSON.parse(await readFile(report, "utf8"))
      const failures = result.testResults.flatMap((file: any) =>
        file.assertionResults.filter((t: any) => t.status !== "passed").map((t: any) => `${t.fullName}: ${t.status}`))
      // enough of the run to show what the service logged before a failure, not just the summary
      expect(failures, run.output.slice(-16_000)).toEqual([])
      expect(run.code).toBe(0)
      expect(result.numPassedTests).toBe(result.numTotalTests)
      expect(result.numTotalTests).toBeGreaterThanOrEqual(22)
      const names = result.testResults.flatMap((file: any) => file.assertionResults.map((t: any) => t.fullName))
      expect(names).toContain("runs on the runtime it was started with")
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 300_000)
})
