import { Context, Effect, Layer } from "effect"
import type { AddressInfo } from "node:net"
import { SMTPServer } from "smtp-server"

export interface Received {
  readonly from: string | undefined
  readonly to: ReadonlyArray<string>
  readonly raw: string
}

/** A local SMTP server that keeps what it is given, or refuses it while `reject` is set. */
export class SmtpSink extends Context.Service<SmtpSink, {
  readonly url: string
  readonly received: Array<Received>
  reject: boolean
}>()("test/SmtpSink") {}

export const smtpSink = Layer.effect(
  SmtpSink,
  Effect.gen(function*() {
    const state = { url: "", received: [] as Array<Received>, reject: false }
    const server = new SMTPServer({
      authOptional: true,
      allowInsecureAuth: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      closeTimeout: 1000,
      onAuth: (_auth, _session, callback) => callback(null, { user: "user" }),
      onData: (stream, session, callback) => {
        const chunks: Array<Buffer> = []
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () => {
          if (state.reject) {
            return callback(Object.assign(new Error("mailbox unavailable"), { responseCode: 550 }))
          }
          state.received.push({
            from: session.envelope.mailFrom === false ? undefined : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((address) => address.address),
            raw: Buffer.concat(chunks).toString("utf8")
          })
          callback()
        })
      }
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.close(() => resume(Effect.void))
        })
    )
    const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address()).port
    state.url = `smtp://user:pass@127.0.0.1:${port}`
    return state
  })
)
