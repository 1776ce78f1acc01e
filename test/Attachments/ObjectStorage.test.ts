/**
 * ATTACHMENT_STORAGE=s3: the bytes go to an S3-compatible bucket and the rows keep the rest. The
 * bucket is s3rver on loopback. It does not check AWS V4 signatures (tried: a forged one is
 * taken), so the signing itself rests on aws4fetch; these tests show where the bytes go.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AwsClient } from "aws4fetch"
import S3rver from "s3rver"
import { databaseKinds } from "../support/Databases.ts"
import { freePort } from "../support/Process.ts"
import { createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

/** The suite's bucket. */
class Bucket extends Context.Service<Bucket, {
  readonly server: S3rver
  readonly endpoint: string
  readonly directory: string
}>()("test/Bucket") {}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** A bucket on loopback for one suite; `stop` takes it away mid-suite, as an outage would. */
const bucket = Effect.acquireRelease(
  Effect.promise(async () => {
    const directory = await mkdtemp(join(tmpdir(), "s3rver-"))
    const port = await freePort()
    const server = new S3rver({ port, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: "tickets", configs: [] }] })
    await server.run()
    return { server, directory, endpoint: `http://127.0.0.1:${port}` }
  }),
  ({ server, directory }) => Effect.promise(async () => {
    await server.close().catch(() => undefined)
    await rm(directory, { recursive: true, force: true })
  })
)

const upload = (server: TestServerShape, key: string, content: Uint8Array, name: string) =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("file", new Blob([content as Uint8Array<ArrayBuffer>], { type: "image/png" }), name)
    const response = await fetch(`${server.baseUrl}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })
    return { status: response.status, headers: response.headers, body: await response.json() as any }
  })

describe.each(databaseKinds)("attachments in an S3 bucket on %s", (kind) => {
  const service = Layer.unwrap(Effect.gen(function*() {
    const s3 = yield* bucket
    return testServer(kind, {
      ATTACHMENT_STORAGE: "s3",
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: "tickets",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      RATE_LIMIT_PER_MINUTE: "1000"
    }).pipe(Layer.provideMerge(Layer.succeed(Bucket, s3)))
  }))

  layer(service, { excludeTestServices: true })((it) => {
    it.effect("a file goes to the bucket, its row keeps no bytes, and it downloads byte for byte", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const { key } = yield* createProject(server)
        const screenshot = new Uint8Array(randomBytes(200 * 1024))
        const uploaded = yield* upload(server, key, screenshot, "shot.png")
        expect(uploaded.status).toBe(201)
        const created = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { subject: "S3", body: "x", attachment_ids: [uploaded.body.upload_id] } })
        )
        expect(created.status).toBe(202)
        const [row] = yield* sql<{ content: Uint8Array | null; storage_key: string | null; size: number }>`
          SELECT content, storage_key, size FROM attachments WHERE id = ${uploaded.body.upload_id}`
        expect(row!.content).toBeNull()
        expect(row!.storage_key).toMatch(new RegExp(`/${uploaded.body.upload_id}$`))
        const got = yield* Effect.promise(async () => {
          const response = await fetch(`${server.baseUrl}/v1/attachments/${uploaded.body.upload_id}`, { headers: { authorization: `Bearer ${key}` } })
          return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) }
        })
        expect(got.status).toBe(200)
        expect(sha256(got.bytes)).toBe(sha256(screenshot))
        // the bytes are the bucket's: read there directly, under the row's key
        const s3 = yield* Bucket
        const reader = new AwsClient({ accessKeyId: "S3RVER", secretAccessKey: "S3RVER", service: "s3", region: "us-east-1" })
        const inBucket = yield* Effect.promise(async () => {
          const response = await reader.fetch(`${s3.endpoint}/tickets/${row!.storage_key}`)
          return new Uint8Array(await response.arrayBuffer())
        })
        expect(sha256(inBucket)).toBe(sha256(screenshot))
      }))

    it.effect("with the bucket away, an upload is 503 with Retry-After and leaves no row", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const s3 = yield* Bucket
        const { key, projectId } = yield* createProject(server)
        yield* Effect.promise(() => s3.server.close())
        const refused = yield* upload(server, key, new Uint8Array([1, 2, 3]), "x.png")
        expect(refused.status).toBe(503)
        expect(refused.body.error.code).toBe("SERVICE_UNAVAILABLE")
        expect(refused.headers.get("retry-after")).toBe("30")
        const rows = yield* sql`SELECT id FROM attachments WHERE project_id = ${projectId}`
        expect(rows).toHaveLength(0)
      }))
  })
})

