/**
 * A contact's files in an S3-compatible bucket (s3rver on loopback): the zip export reads their
 * bytes from the bucket, and an erasure deletes them there as well as their rows.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AwsClient } from "aws4fetch"
import { unzipSync } from "fflate"
import { createHash, randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import S3rver from "s3rver"
import { databaseKinds } from "../support/Databases.ts"
import { freePort } from "../support/Process.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

class Bucket extends Context.Service<Bucket, { readonly endpoint: string }>()("test/Privacy/Bucket") {}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const bucket = Effect.acquireRelease(
  Effect.promise(async () => {
    const directory = await mkdtemp(join(tmpdir(), "s3rver-privacy-"))
    const port = await freePort()
    const server = new S3rver({ port, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: "tickets", configs: [] }] })
    await server.run()
    return { server, directory, endpoint: `http://127.0.0.1:${port}` }
  }),
  ({ directory, server }) =>
    Effect.promise(async () => {
      await server.close().catch(() => undefined)
      await rm(directory, { recursive: true, force: true })
    })
)

const upload = (server: TestServerShape, key: string, content: Uint8Array, name: string) =>
  Effect.promise(async () => {
    const form = new FormData()
    form.append("file", new Blob([content as Uint8Array<ArrayBuffer>], { type: "image/png" }), name)
    const response = await fetch(`${server.baseUrl}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })
    expect(response.status).toBe(201)
    return (await response.json() as { upload_id: string }).upload_id
  })

const inBucket = (endpoint: string, storageKey: string) =>
  Effect.promise(async () => {
    const reader = new AwsClient({ accessKeyId: "S3RVER", secretAccessKey: "S3RVER", service: "s3", region: "us-east-1" })
    const response = await reader.fetch(`${endpoint}/tickets/${storageKey}`)
    return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) }
  })

describe.each(databaseKinds)("a contact's files in an S3 bucket on %s", (kind) => {
  const service = Layer.unwrap(Effect.map(bucket, (s3) =>
    testServer(kind, {
      ATTACHMENT_STORAGE: "s3",
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: "tickets",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      RATE_LIMIT_PER_MINUTE: "1000"
    }).pipe(Layer.provideMerge(Layer.succeed(Bucket, { endpoint: s3.endpoint })))))

  layer(service, { excludeTestServices: true })((it) => {
    it.effect("the zip holds the bucket's bytes, and an erasure deletes them from the bucket", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const { endpoint } = yield* Bucket
        const { key, projectId } = yield* createProject(server)
        const photo = new Uint8Array(randomBytes(64 * 1024))
        const id = yield* upload(server, key, photo, "photo.png")
        const created = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", {
            key,
            body: { subject: "Broken hinge", body: "See the photo.", sender_email: "cy@example.com", attachment_ids: [id] }
          })
        )
        expect(created.status).toBe(202)
        const [row] = yield* sql<{ storage_key: string }>`SELECT storage_key FROM attachments WHERE id = ${id}`
        expect(sha256((yield* inBucket(endpoint, row!.storage_key)).bytes)).toBe(sha256(photo))

        const zipped = yield* Effect.promise(async () => {
          const response = await fetch(`${server.baseUrl}/v1/admin/projects/${projectId}/contacts/export.zip?email=cy@example.com`, {
            headers: { authorization: `Bearer ${adminToken}` }
          })
          return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) }
        })
        expect(zipped.status).toBe(200)
        const entries = unzipSync(zipped.bytes)
        expect(sha256(entries[`attachments/${id}-photo.png`]!)).toBe(sha256(photo))

        const erased = yield* Effect.promise(() =>
          server.request("POST", `/v1/admin/projects/${projectId}/contacts/erase`, {
            key: adminToken,
            body: { email: "cy@example.com" }
          })
        )
        expect(erased.status).toBe(200)
        expect(erased.body).toMatchObject({ tickets: 1, messages: 0, attachments: 1, already_erased: false })
        expect(yield* sql`SELECT id FROM attachments WHERE id = ${id}`).toEqual([])
        expect((yield* inBucket(endpoint, row!.storage_key)).status).toBe(404)
      }))
  })
})
