import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { callService, postTicket, provisionProject, startService } from "./support/Process.ts"

const root = fileURLToPath(new URL("../", import.meta.url))
const adminToken = "durability-admin-token"

/** The service from its sources, in a process of its own, on an embedded database in `dataDir`. */
const start = (dataDir: string) =>
  startService(process.execPath, [`${root}src/main.ts`], {
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    REDIS_URL: "",
    ADMIN_TOKEN: adminToken
  })

describe("an acknowledged ticket on the embedded database", () => {
  const dirs: Array<string> = []
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })

  it("survives the process being killed right after the 202, and a restart", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "support-crash-"))
    dirs.push(dataDir)
    const first = await start(dataDir)
    const { key } = await provisionProject(first.baseUrl, adminToken, "Crash")
    const [{ ticket_id }, created] = await postTicket(first.baseUrl, key, {
      subject: "Do not lose me",
      body: "Acknowledged, then the power cord"
    })
    expect(created.status).toBe(202)
    await first.crash()

    const second = await start(dataDir)
    try {
      const [ticket, read] = await callService(second.baseUrl, key, (api) =>
        api.tickets.get({ params: { id: ticket_id }, query: {}, headers: {}, responseMode: "decoded-and-response" }))
      expect(read.status).toBe(200)
      expect(ticket).toMatchObject({ ticket_id, subject: "Do not lose me", ticket_number: 1 })
      // the demo is seeded once, on the first start only
      expect(second.output()).not.toContain("demo project")
    } finally {
      await second.stop()
    }
  }, 180_000)
})
