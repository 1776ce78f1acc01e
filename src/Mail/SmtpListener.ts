import { Cause, Effect, Exit, FiberSet, Layer, Option } from "effect"
import { readFile } from "node:fs/promises"
import type { AddressInfo } from "node:net"
import type { Readable } from "node:stream"
import { AppConfig } from "../Config.ts"
import { DatabaseOutage } from "../Database/Outage.ts"
import { InboundMail, MailRefused } from "./Inbound.ts"

/** An SMTP reply: the code and enhanced status a sending server acts on, and words for its log. */
const reply = (responseCode: number, message: string) => Object.assign(new Error(message), { responseCode })

/** A refused mail as an SMTP reply; the sender bounces a 5xx and retries a 4xx later. */
const smtpReplyOf = (refused: MailRefused) => {
  switch (refused.reason) {
    case "too_large":
      return reply(552, `5.3.4 ${refused.message}`)
    case "unknown_recipient":
      return reply(550, `5.1.1 ${refused.message}`)
    case "sender_limit":
      return reply(451, `4.7.1 ${refused.message}`)
    case "malformed":
      return reply(550, `5.6.0 ${refused.message}`)
  }
}

/** Reads the message to its end; past `maxBytes` it keeps nothing more and says so. */
const readMessage = (stream: Readable & { sizeExceeded?: boolean }) =>
  new Promise<{ readonly bytes: Uint8Array; readonly tooLarge: boolean }>((resolve, reject) => {
    const chunks: Array<Uint8Array> = []
    stream.on("data", (chunk: Uint8Array) => {
      if (stream.sizeExceeded !== true) chunks.push(chunk)
    })
    stream.on("error", reject)
    stream.on("end", () => resolve({ bytes: Buffer.concat(chunks), tooLarge: stream.sizeExceeded === true }))
  })

/**
 * The SMTP door for mail, on SMTP_LISTEN_PORT when it is set: what a self-hoster points an MX or a
 * relay at. Recipients are checked at RCPT TO, so mail for nobody is refused before its bytes come;
 * a mail is answered 250 only once it is committed, and 451 when the database cannot take it now,
 * so the sending server keeps it and tries again: nothing acknowledged is lost. STARTTLS is offered
 * when SMTP_TLS_CERT and SMTP_TLS_KEY are set; the size limit is MAIL_MAX_BYTES (SIZE extension).
 */
export const SmtpListenerLive = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  if (Option.isNone(config.smtpListenPort)) return
  const inbound = yield* InboundMail
  const outage = yield* DatabaseOutage
  const run = yield* FiberSet.makeRuntimePromise<never>()
  const { SMTPServer } = yield* Effect.promise(() => import("smtp-server"))
  const tls = config.smtpTlsCert !== null && config.smtpTlsKey !== null
    ? {
      cert: yield* Effect.promise(() => readFile(config.smtpTlsCert!)),
      key: yield* Effect.promise(() => readFile(config.smtpTlsKey!))
    }
    : undefined

  /** Runs `effect` and answers the SMTP callback: a refusal with its code, an outage with 451. */
  const answer = <A>(effect: Effect.Effect<A, MailRefused>, callback: (error?: Error | null) => void) =>
    run(Effect.exit(effect)).then(async (exit) => {
      if (Exit.isSuccess(exit)) return callback()
      const refusal = Cause.findErrorOption(exit.cause)
      if (Option.isSome(refusal)) return callback(smtpReplyOf(refusal.value))
      const passing = await run(outage.absorbs(exit.cause, "background"))
      if (!passing) await run(Effect.logError("inbound mail failed", exit.cause))
      callback(reply(451, "4.3.0 the mail could not be stored now; try again later"))
    }, () => callback(reply(421, "4.3.2 shutting down")))

  const server = new SMTPServer({
    name: "support-ticketing",
    banner: "support-ticketing inbound mail",
    size: config.mailMaxBytes,
    authOptional: true,
    disabledCommands: tls === undefined ? ["AUTH", "STARTTLS"] : ["AUTH"],
    ...(tls === undefined ? {} : tls),
    logger: false,
    closeTimeout: 5000,
    onRcptTo: (address, _session, callback) => {
      answer(
        Effect.flatMap(inbound.knowsRecipient(address.address), (known) =>
          known
            ? Effect.void
            // the same refusal the mail itself would get, before any of it is sent
            : Effect.fail(new MailRefused({ reason: "unknown_recipient", message: `no project receives mail at ${address.address}` }))),
        callback
      )
    },
    onData: (stream, session, callback) => {
      readMessage(stream).then(({ bytes, tooLarge }) => {
        if (tooLarge) return callback(reply(552, `5.3.4 the mail is larger than ${config.mailMaxBytes} bytes`))
        const mailFrom = session.envelope.mailFrom === false ? null : session.envelope.mailFrom.address
        const recipients = session.envelope.rcptTo.map((rcpt) => rcpt.address)
        answer(inbound.receive(bytes, { mailFrom, recipients }), callback)
      }, () => callback(reply(451, "4.3.0 the mail could not be read; try again")))
    }
  })
  const port = config.smtpListenPort.value
  yield* Effect.acquireRelease(
    Effect.callback<void, Error>((resume) => {
      const failed = (error: Error) => resume(Effect.fail(error))
      server.on("error", failed)
      server.listen(port, config.smtpListenHost, () => {
        server.off("error", failed)
        resume(Effect.void)
      })
    }),
    () => Effect.callback<void>((resume) => server.close(() => resume(Effect.void)))
  ).pipe(Effect.orDie)
  const bound = (server as unknown as { server: { address(): AddressInfo } }).server.address()
  yield* Effect.logInfo(`taking mail by SMTP on ${config.smtpListenHost}:${bound.port}${tls === undefined ? "" : " (STARTTLS)"}`)
}))
