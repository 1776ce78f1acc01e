import { Context, Effect, Layer } from "effect"
import { Buffer } from "node:buffer"
import { createHmac, timingSafeEqual } from "node:crypto"
import type { CursorSigner } from "../Domain/Cursor.ts"
import { ProjectsRepo } from "./Repo.ts"

const settingName = "cursor_key"

/** Cursors need to tell only a forged or moved one from a real one: 128 bits of HMAC-SHA256 do. */
const tagBytes = 16

const signerFor = (secret: string): CursorSigner => {
  const tag = (data: string) => createHmac("sha256", secret).update(data).digest().subarray(0, tagBytes)
  return {
    sign: (data) => tag(data).toString("base64url"),
    verifies: (data, given) => {
      const bytes = Buffer.from(given, "base64url")
      return bytes.length === tagBytes && timingSafeEqual(bytes, tag(data))
    }
  }
}

/**
 * The service's key for list cursors, made once and kept in the database, so that every instance
 * reads back the cursors any of them made, across restarts.
 */
export class CursorKey extends Context.Service<CursorKey, CursorSigner>()("app/Projects/CursorKey") {
  static readonly layer = Layer.effect(
    CursorKey,
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      return signerFor(yield* repo.keepSecret(settingName))
    })
  ).pipe(Layer.provide(ProjectsRepo.layer))

  /** A key of the caller's, for tests that build a service over mock repositories. */
  static readonly layerFrom = (secret: string) => Layer.succeed(CursorKey, signerFor(secret))
}
