import { Context, Data, Duration, Effect, Layer, Option, Redacted } from "effect"
import { Buffer } from "node:buffer"
import { AppConfig } from "../Config.ts"

export interface Mail {
  /** one stored address, passed to nodemailer as an address object so it never parses a display string out of it */
  readonly to: string
  readonly subject: string
  readonly text: string
  /** the Message-ID, without angle brackets: recorded, so an answer finds its ticket */
  readonly messageId?: string | undefined
  /** the ticket's reply address: an answer to it reaches the ticket */
  readonly replyTo?: string | undefined
  readonly inReplyTo?: string | undefined
  readonly references?: ReadonlyArray<string> | undefined
  /** RFC 3834: `auto-generated` on notifications, so well-behaved auto-responders stay silent */
  readonly autoSubmitted?: "auto-generated" | undefined
  readonly attachments?: ReadonlyArray<{ readonly filename: string; readonly contentType: string; readonly content: Uint8Array }> | undefined
}

export class MailFailed extends Data.TaggedError("MailFailed")<{
  readonly message: string
  readonly cause?: unknown
}> {}

// nodemailer's own socket timeout is ten minutes; a job should give up and retry long before
const sendTimeout = Duration.seconds(30)

const errorText = (cause: unknown) => cause instanceof Error ? cause.message : String(cause)

/** Sends plain-text mail through the SMTP server of SMTP_URL, from MAIL_FROM. */
export class Mailer extends Context.Service<Mailer, {
  /** false without SMTP_URL: nothing can be sent, and `send` always fails */
  readonly configured: boolean
  readonly send: (mail: Mail) => Effect.Effect<void, MailFailed>
}>()("app/Notifier/Mailer") {
  static readonly unconfigured = Layer.succeed(Mailer, {
    configured: false,
    send: () => Effect.fail(new MailFailed({ message: "SMTP_URL is not set" }))
  })

  /** SMTP when SMTP_URL is set, else the unconfigured mailer; the connection closes with the layer. */
  static readonly layer: Layer.Layer<Mailer, never, AppConfig> = Layer.unwrap(Effect.gen(function*() {
    const config = yield* AppConfig
    const smtpUrl = config.smtpUrl
    if (Option.isNone(smtpUrl)) return Mailer.unconfigured
    // loaded only when SMTP_URL asks for it, for the same reason as node-redis (RateLimit/RateLimit)
    const { createTransport } = yield* Effect.promise(() => import("nodemailer"))
    const transport = yield* Effect.acquireRelease(
      Effect.sync(() => createTransport(Redacted.value(smtpUrl.value), { from: config.mailFrom })),
      (transport) => Effect.sync(() => transport.close())
    )
    const send = Effect.fn("Mailer.send")(function*(mail: Mail) {
      yield* Effect.tryPromise({
        try: () =>
          transport.sendMail({
            to: { name: "", address: mail.to },
            subject: mail.subject,
            text: mail.text,
            ...(mail.messageId === undefined ? {} : { messageId: `<${mail.messageId}>` }),
            ...(mail.replyTo === undefined ? {} : { replyTo: { name: "", address: mail.replyTo } }),
            ...(mail.inReplyTo === undefined ? {} : { inReplyTo: `<${mail.inReplyTo}>` }),
            ...(mail.references === undefined || mail.references.length === 0
              ? {}
              : { references: mail.references.map((id) => `<${id}>`) }),
            ...(mail.autoSubmitted === undefined ? {} : { headers: { "auto-submitted": mail.autoSubmitted } }),
            ...(mail.attachments === undefined ? {} : {
              attachments: mail.attachments.map((file) => ({
                filename: file.filename,
                contentType: file.contentType,
                content: Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength)
              }))
            })
          }),
        // the text is stored as email_error: nodemailer's messages name the host and the SMTP reply, not the credentials
        catch: (cause) => new MailFailed({ message: `the mail server refused the mail: ${errorText(cause)}`, cause })
      }).pipe(
        Effect.timeoutOrElse({
          duration: sendTimeout,
          orElse: () =>
            Effect.fail(new MailFailed({ message: `the mail server did not answer within ${Duration.format(sendTimeout)}` }))
        })
      )
    })
    return Layer.succeed(Mailer, { configured: true, send })
  }))
}
