import { Context, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../Config.ts"
import { ServiceUnavailable } from "../Domain/Errors.ts"

/**
 * The object store did not take or give the bytes: like the database being away, nothing a caller
 * did, so it is a defect that carries its answer (503 with Retry-After; the SMTP door says 451 and
 * the sender retries), and the transaction around it keeps nothing.
 */
const unavailable = (message: string) => Effect.die(new ServiceUnavailable({ message, retryAfterSeconds: 30 }))

/** Where an attachment's bytes went: in the row, or under a key of the object store. */
export type Placement =
  | { readonly content: Uint8Array; readonly storageKey: null }
  | { readonly content: null; readonly storageKey: string }

/**
 * Where attachments' bytes live. By default in the database, so the embedded database and its
 * backups keep them; with ATTACHMENT_STORAGE=s3, in an S3-compatible bucket, for deployments whose
 * files outgrow their database. The rows keep name, type, size and hash either way.
 */
export class AttachmentStore extends Context.Service<AttachmentStore, {
  readonly kind: "database" | "s3"
  /** Puts the bytes where they live; `key` names them in the bucket. */
  readonly place: (key: string, content: Uint8Array, contentType: string) => Effect.Effect<Placement>
  readonly load: (storageKey: string) => Effect.Effect<Uint8Array>
  readonly remove: (storageKey: string) => Effect.Effect<void>
}>()("app/Attachments/Storage") {
  static readonly database = Layer.succeed(AttachmentStore, {
    kind: "database",
    place: (_key, content) => Effect.succeed({ content, storageKey: null }),
    load: (key) => Effect.die(new Error(`${key} is in an object store, and ATTACHMENT_STORAGE is database`)),
    remove: () => Effect.void
  })

  static readonly layer: Layer.Layer<AttachmentStore, never, AppConfig> = Layer.unwrap(Effect.gen(function*() {
    const config = yield* AppConfig
    if (config.attachmentStorage === "database") return AttachmentStore.database
    if (config.s3Endpoint === "" || config.s3Bucket === "" || config.s3AccessKeyId === "" || Option.isNone(config.s3SecretAccessKey)) {
      return yield* Effect.die(
        new Error("ATTACHMENT_STORAGE=s3 needs S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY")
      )
    }
    // loaded only when the bucket is asked for, for the same reason as nodemailer (Notifier/Mailer)
    const { AwsClient } = yield* Effect.promise(() => import("aws4fetch"))
    const client = new AwsClient({
      accessKeyId: config.s3AccessKeyId,
      secretAccessKey: Redacted.value(config.s3SecretAccessKey.value),
      service: "s3",
      region: config.s3Region
    })
    const base = `${config.s3Endpoint.replace(/\/+$/, "")}/${encodeURIComponent(config.s3Bucket)}/`
    const urlOf = (key: string) => base + key.split("/").map(encodeURIComponent).join("/")
    const call = (what: string, key: string, init: RequestInit) =>
      Effect.tryPromise(async () => {
        const response = await client.fetch(urlOf(key), init)
        if (!response.ok) throw new Error(`${response.status} ${(await response.text()).slice(0, 200)}`)
        return response
      }).pipe(
        Effect.timeout("30 seconds"),
        Effect.tapError((cause) => Effect.logWarning(`the object store failed to ${what} ${key}`, cause)),
        Effect.catch(() => unavailable("the file store does not answer; try again shortly"))
      )
    return Layer.succeed(AttachmentStore, {
      kind: "s3",
      place: (key, content, contentType) =>
        Effect.as(
          call("store", key, {
            method: "PUT",
            body: content as Uint8Array<ArrayBuffer>,
            headers: { "content-type": contentType, "content-length": String(content.byteLength) }
          }),
          { content: null, storageKey: key }
        ),
      load: (key) =>
        Effect.flatMap(call("read", key, { method: "GET" }), (response) =>
          Effect.tryPromise(async () => new Uint8Array(await response.arrayBuffer())).pipe(
            Effect.catch(() => unavailable("the file store does not answer; try again shortly"))
          )),
      remove: (key) => Effect.asVoid(call("delete", key, { method: "DELETE" }))
    })
  }))
}
