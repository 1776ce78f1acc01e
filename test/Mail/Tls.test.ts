/**
 * STARTTLS on the SMTP listener: offered with SMTP_TLS_CERT and SMTP_TLS_KEY, so a sender that
 * requires TLS delivers; without them, such a sender is refused before it sends anything.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createTransport } from "nodemailer"
import { AppConfig } from "../../src/Config.ts"
import { freePort } from "../support/Process.ts"
import { adminToken, createProject, TestServer, testServer } from "../support/TestServer.ts"

/** A self-signed certificate for localhost, made by openssl in a fresh directory. */
const selfSigned = () => {
  const dir = mkdtempSync(join(tmpdir(), "smtp-tls-"))
  const cert = join(dir, "cert.pem")
  const key = join(dir, "key.pem")
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
    "-keyout", key, "-out", cert
  ], { stdio: "ignore" })
  return { cert, key }
}

const deliver = (port: number, requireTLS: boolean) =>
  Effect.promise(async () => {
    const transport = createTransport({
      host: "127.0.0.1",
      port,
      secure: false,
      requireTLS,
      // the certificate is self-signed: what is tested is that the session is encrypted
      tls: { rejectUnauthorized: false }
    })
    try {
      await transport.sendMail({ from: "tls@example.com", to: "help@tls.test", subject: "Over TLS", text: "Encrypted." })
      return true
    } catch {
      return false
    } finally {
      transport.close()
    }
  })

const listenerPort = Effect.map(Effect.service(AppConfig), (config) => Option.getOrThrow(config.smtpListenPort))

const withListener = (tls: boolean) =>
  Layer.unwrap(Effect.gen(function*() {
    const port = yield* Effect.promise(() => freePort())
    const files = tls ? selfSigned() : undefined
    return testServer("pglite", {
      SMTP_LISTEN_PORT: String(port),
      SMTP_LISTEN_HOST: "127.0.0.1",
      ...(files === undefined ? {} : { SMTP_TLS_CERT: files.cert, SMTP_TLS_KEY: files.key })
    })
  }))

const mailProject = Effect.gen(function*() {
  const server = yield* TestServer
  const { projectId } = yield* createProject(server)
  const set = yield* Effect.promise(() =>
    server.request("PUT", `/v1/admin/projects/${projectId}/mail`, { key: adminToken, body: { inbound_address: "help@tls.test" } })
  )
  expect(set.status).toBe(200)
})

describe("the SMTP listener with a certificate", () => {
  layer(withListener(true), { excludeTestServices: true })((it) => {
    it.effect("offers STARTTLS, and a sender that requires TLS delivers", () =>
      Effect.gen(function*() {
        yield* mailProject
        expect(yield* deliver(yield* listenerPort, true)).toBe(true)
      }))
  })
})

describe("the SMTP listener without a certificate", () => {
  layer(withListener(false), { excludeTestServices: true })((it) => {
    it.effect("offers no STARTTLS: a sender that requires TLS gives up, one that does not delivers", () =>
      Effect.gen(function*() {
        yield* mailProject
        const port = yield* listenerPort
        expect(yield* deliver(port, true)).toBe(false)
        expect(yield* deliver(port, false)).toBe(true)
      }))
  })
})
