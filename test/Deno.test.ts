import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postTicket, provisionProject, type RunningService, startService } from "./support/Process.ts"

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
    const health = await fetch(`${service.baseUrl}/health`).then((r) => r.json())
    expect(health.status).toBe("ok")
    const { auth } = await provisionProject(service.baseUrl, adminToken, "Deno")
    const created = await postTicket(service.baseUrl, auth, { subject: "Hello from Deno", body: "Works?" })
    expect(created.status).toBe(202)
    const { ticket_id } = await created.json()
    const read = await fetch(`${service.baseUrl}/v1/tickets/${ticket_id}`, { headers: auth })
    expect(read.status).toBe(200)
    expect(await read.json()).toMatchObject({ ticket_id, subject: "Hello from Deno", status: "open", ticket_number: 1 })
    expect(service.output()).toContain("demo project")
  })
})
