/**
 * Raw RFC 5322 mail to the few facts the help desk keeps: who wrote, to whom, about what, the text,
 * the files, the thread it belongs to, and whether it is machine mail that must never be answered.
 * postal-mime does all MIME work (structure, transfer encodings, charsets, encoded words, addresses);
 * this module only picks from its result and tidies it.
 */
import { Data, Effect } from "effect"
import PostalMime, { type Address, addressParser, type Attachment, type Email, type Mailbox } from "postal-mime"

export interface ParsedAttachment {
  readonly filename: string
  readonly contentType: string
  readonly content: Uint8Array
  readonly inline: boolean
  /** The Content-ID without angle brackets, so an inline image can be matched to its `cid:` reference. */
  readonly contentId: string | null
}

export interface ParsedMail {
  readonly messageId: string | null
  readonly inReplyTo: ReadonlyArray<string>
  readonly references: ReadonlyArray<string>
  readonly from: { readonly address: string; readonly name: string | null }
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string
  readonly attachments: ReadonlyArray<ParsedAttachment>
  readonly loop: LoopReason | null
}

export type LoopReason = "auto_submitted" | "precedence" | "autoreply_header" | "mailing_list" | "bounce" | "mailer_daemon"

export class MalformedMail extends Data.TaggedError("MalformedMail")<{ readonly message: string }> {}

const headerValues = (email: Email, key: string): Array<string> =>
  email.headers.filter((header) => header.key === key).map((header) => header.value)

const hasHeader = (email: Email, key: string): boolean => headerValues(email, key).some((value) => value.trim() !== "")

/** The first token of a structured header, comments and parameters dropped, lower-cased. */
const headerToken = (value: string): string => value.replace(/\([^()]*\)/g, " ").split(";")[0]!.trim().toLowerCase()

const mailboxes = (addresses: ReadonlyArray<Address> | undefined): Array<Mailbox> =>
  (addresses ?? []).flatMap((address) => address.group ?? [address])

/** An address a reply can go to: a local part and a domain, no spaces or control characters. */
const isUsableAddress = (address: string): boolean => {
  const at = address.lastIndexOf("@")
  return at > 0 && at < address.length - 1 && !/[\s\u0000-\u001f\u007f<>]/.test(address) &&
    !address.slice(at + 1).includes("@")
}

const unique = (values: ReadonlyArray<string>): Array<string> => [...new Set(values)]

const collapse = (value: string): string => value.replace(/[\s\u0000-\u001f\u007f]+/g, " ").trim()

// PostgreSQL text refuses U+0000, and no mail means one, so it goes here rather than at every insert
const cleanText = (text: string): string => text.replace(/\r\n?/g, "\n").replace(/\u0000/g, "").trim()

/** Ids in angle brackets; a value without any brackets (broken clients) falls back to its bare `x@y` tokens. */
const messageIds = (values: ReadonlyArray<string>): Array<string> =>
  unique(values.flatMap((value) => {
    const bracketed = [...value.matchAll(/<([^<>]*)>/g)].map((match) => match[1]!.trim()).filter((id) => id !== "")
    return bracketed.length > 0 ? bracketed : value.split(/[\s,]+/).filter((token) => token.includes("@"))
  }))

const firstMessageId = (values: ReadonlyArray<string>): string | null => {
  const value = values.find((candidate) => candidate.trim() !== "")
  if (value === undefined) return null
  return messageIds([value])[0] ?? (value.trim() || null)
}

// ---------------------------------------------------------------------------------------------
// Loop detection

const autoreplyHeaders = ["x-autoreply", "x-autorespond", "x-autoresponse"]
const bulkPrecedence = new Set(["bulk", "junk", "list", "auto_reply", "auto-reply"])

/** smtp-server reports `MAIL FROM:<>` as the address "", so "" and "<>" are the null path as well as null. */
const isNullReversePath = (mailFrom: string | null | undefined): boolean =>
  mailFrom === null || (mailFrom !== undefined && /^<?\s*>?$/.test(mailFrom.trim()))

/**
 * Bounces first (they may carry any other header), then the sender's name, then the headers of
 * RFC 3834 and common practice. `X-Loop` is deliberately not a reason: it names the system that
 * stamped it and only that system can tell its own stamp, and procmail stamps it on human mail it
 * forwards; matching our own stamp belongs where the outgoing address is configured.
 */
const loopReason = (
  email: Email,
  fromAddress: string,
  envelope: { readonly mailFrom: string | null | undefined } | undefined
): LoopReason | null => {
  if (envelope !== undefined && isNullReversePath(envelope.mailFrom)) return "bounce"
  if (headerValues(email, "return-path").some((value) => /^<\s*>$/.test(value.trim()))) return "bounce"
  // every multipart/report (delivery status, read receipt, abuse feedback) is a machine's report on a mail we sent
  if (headerValues(email, "content-type").slice(0, 1).some((value) => headerToken(value) === "multipart/report")) {
    return "bounce"
  }
  if (/^(mailer-daemon|postmaster)$/i.test(fromAddress.slice(0, fromAddress.lastIndexOf("@")))) return "mailer_daemon"
  if (headerValues(email, "auto-submitted").some((value) => headerToken(value) !== "no")) return "auto_submitted"
  if (headerValues(email, "precedence").some((value) => bulkPrecedence.has(headerToken(value)))) return "precedence"
  if (autoreplyHeaders.some((key) => headerValues(email, key).length > 0)) return "autoreply_header"
  if (
    headerValues(email, "x-auto-response-suppress").some((value) =>
      value.split(/[\s,;]+/).some((token) => /^(oof|autoreply|all)$/i.test(token))
    )
  ) return "autoreply_header"
  if (hasHeader(email, "list-id") || hasHeader(email, "list-unsubscribe")) return "mailing_list"
  return null
}

// ---------------------------------------------------------------------------------------------
// Attachments

const extensions: Record<string, string> = {
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/jpg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
  "image/svg+xml": ".svg",
  "image/bmp": ".bmp",
  "image/tiff": ".tif",
  "image/heic": ".heic",
  "application/pdf": ".pdf",
  "application/zip": ".zip",
  "application/gzip": ".gz",
  "application/json": ".json",
  "application/xml": ".xml",
  "application/msword": ".doc",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
  "application/vnd.ms-excel": ".xls",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
  "text/plain": ".txt",
  "text/html": ".html",
  "text/csv": ".csv",
  "text/calendar": ".ics",
  "message/rfc822": ".eml",
  "audio/mpeg": ".mp3",
  "video/mp4": ".mp4"
}

const mediaType = (value: string): string => {
  const type = value.split(";")[0]!.trim().toLowerCase()
  return /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(type) ? type : "application/octet-stream"
}

const maxFilename = 255

/** At most 255 characters (code points, never half a pair), keeping a short extension. */
const limitLength = (name: string): string => {
  const chars = Array.from(name)
  if (chars.length <= maxFilename) return name
  const dot = name.lastIndexOf(".")
  const extension = dot > 0 ? Array.from(name.slice(dot)) : []
  const kept = extension.length <= 16 ? extension : []
  return chars.slice(0, maxFilename - kept.length).join("") + kept.join("")
}

/**
 * The last path segment (as browsers save a download), without C0/C1 controls or bidi overrides
 * (`invoice\u202Efdp.exe` shows as `invoiceexe.pdf`); null when nothing usable is left.
 */
const safeFilename = (name: string | null): string | null => {
  if (name === null) return null
  const segment = name.split(/[\\/]/).pop() ?? ""
  const cleaned = segment.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "").trim()
  return cleaned === "" || /^\.+$/.test(cleaned) ? null : limitLength(cleaned)
}

const bytesOf = (content: Attachment["content"]): Uint8Array =>
  typeof content === "string"
    ? new TextEncoder().encode(content)
    : content instanceof Uint8Array
    ? content
    : new Uint8Array(content)

/**
 * Inline means shown inside the HTML body: a Content-ID that the HTML references, on a part not
 * marked `attachment`. A Content-ID nothing references would otherwise be a file no one sees.
 */
const toAttachment = (attachment: Attachment, index: number, html: string): ParsedAttachment => {
  const contentType = mediaType(attachment.mimeType)
  const contentId = attachment.contentId?.trim().replace(/^<|>$/g, "").trim() || null
  const inline = contentId !== null && attachment.disposition !== "attachment" &&
    html.toLowerCase().includes(`cid:${contentId.toLowerCase()}`)
  return {
    filename: safeFilename(attachment.filename) ?? `attachment-${index + 1}${extensions[contentType] ?? ""}`,
    contentType,
    content: bytesOf(attachment.content),
    inline,
    contentId
  }
}

// ---------------------------------------------------------------------------------------------
// Text

const base64Lines = (bytes: Uint8Array): Array<string> => {
  let binary = ""
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary).match(/.{1,76}/g) ?? []
}

/**
 * postal-mime turns HTML into text only for a message that also has a text/plain part (its converter
 * is not exported), so an HTML-only body is handed back to it beside an empty text/plain part. The
 * HTML travels base64-encoded, so no line of it can be read as the boundary.
 */
const htmlToText = (html: string): Effect.Effect<string, MalformedMail> => {
  const boundary = "=_parse-html-to-text_="
  const wrapped = [
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    `--${boundary}`,
    "Content-Type: text/html; charset=utf-8",
    "Content-Transfer-Encoding: base64",
    "",
    ...base64Lines(new TextEncoder().encode(html)),
    `--${boundary}--`,
    ""
  ].join("\r\n")
  return Effect.tryPromise({
    try: () => PostalMime.parse(wrapped).then((email) => email.text ?? ""),
    catch: (error) => new MalformedMail({ message: `the mail's HTML cannot be converted to text: ${String(error)}` })
  })
}

// ---------------------------------------------------------------------------------------------
// parseMail

/** Parses raw RFC 5322 bytes; fails with MalformedMail when the library cannot parse it, or it has no usable From address. */
export const parseMail = (
  raw: Uint8Array,
  envelope?: { readonly mailFrom: string | null | undefined }
): Effect.Effect<ParsedMail, MalformedMail> =>
  Effect.gen(function*() {
    const email = yield* Effect.tryPromise({
      try: () => PostalMime.parse(raw, { attachmentEncoding: "arraybuffer" }),
      catch: (error) => new MalformedMail({ message: `the mail cannot be parsed: ${String(error)}` })
    })
    const sender = mailboxes(email.from ? [email.from] : []).find((mailbox) => isUsableAddress(mailbox.address.trim()))
    if (sender === undefined) return yield* new MalformedMail({ message: "the mail has no From address" })
    const from = { address: sender.address.trim().toLowerCase(), name: collapse(sender.name) || null }

    const html = email.html ?? ""
    const plain = cleanText(email.text ?? "")
    const text = plain === "" && html.trim() !== "" ? cleanText(yield* htmlToText(html)) : plain

    const recipients = [
      ...mailboxes(email.to),
      ...mailboxes(email.cc),
      ...["delivered-to", "x-original-to"].flatMap((key) =>
        headerValues(email, key).flatMap((value) => mailboxes(addressParser(value)))
      )
    ]
    return {
      messageId: firstMessageId(headerValues(email, "message-id")),
      inReplyTo: messageIds(headerValues(email, "in-reply-to")),
      references: messageIds(headerValues(email, "references")),
      from,
      to: unique(recipients.map((mailbox) => mailbox.address.trim().toLowerCase()).filter(isUsableAddress)),
      subject: collapse(email.subject ?? ""),
      text,
      attachments: email.attachments.map((attachment, index) => toAttachment(attachment, index, html)),
      loop: loopReason(email, from.address, envelope)
    }
  })

// ---------------------------------------------------------------------------------------------
// newText

const isQuoted = (line: string): boolean => /^[ \t]*>/.test(line)
const isBlank = (line: string): boolean => line.trim() === ""

// a date (so a digit) is what tells a client's attribution from prose such as "On Monday Ann wrote:"
const attributionStart = /^(On|Le|Am|El)\s/
const attributions = [
  /^On\s.+\swrote:$/,
  /^Le\s.+\sa\s+écrit\s*:$/,
  /^Am\s.+\sschrieb\s.*:$/,
  /^El\s.+\sescribió\s*:$/
]

/** The index of the last line of an attribution starting at `i` (Gmail wraps long ones), or -1. */
const attributionEnd = (lines: ReadonlyArray<string>, i: number): number => {
  if (!attributionStart.test(lines[i]!.trim())) return -1
  let joined = ""
  for (let end = i; end < Math.min(lines.length, i + 3); end++) {
    const line = lines[end]!
    if (isBlank(line) || isQuoted(line)) return -1
    joined = `${joined} ${line.trim()}`.trim()
    if (joined.length <= 400 && /\d/.test(joined) && attributions.some((pattern) => pattern.test(joined))) return end
  }
  return -1
}

const originalMessage =
  /^-{3,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original|Messaggio originale)\s*-{3,}$/i
const underscoreRule = /^_{10,}$/
const fromHeader = /^\*?(From|Von|De)\*?\s*:\*?\s*\S/
const otherHeader = /^\*?(Sent|Date|To|Cc|Subject|Gesendet|Datum|An|Betreff|Envoyé|À|Objet|Enviado|Fecha|Para|Asunto)\*?\s*:/

/** A quoted header block as Outlook writes it: a From line soon followed by Sent/To/Subject lines. */
const isHeaderBlock = (lines: ReadonlyArray<string>, i: number): boolean =>
  fromHeader.test(lines[i]!.trim()) &&
  lines.slice(i + 1, i + 5).some((line) => otherHeader.test(line.trim()))

/** Where the quoted history starts at line `i` in one of the unquoted forms (Outlook), else false. */
const isHistoryStart = (lines: ReadonlyArray<string>, i: number): boolean => {
  const line = lines[i]!.trim()
  if (originalMessage.test(line)) return true
  if (underscoreRule.test(line)) {
    for (let next = i + 1; next < Math.min(lines.length, i + 3); next++) {
      if (!isBlank(lines[next]!)) return isHeaderBlock(lines, next)
    }
    return false
  }
  return (i === 0 || isBlank(lines[i - 1]!)) && isHeaderBlock(lines, i)
}

const maxBareSignatureLines = 8

/**
 * "-- " is the standard delimiter. Editors often strip its trailing space, so a bare "--" counts
 * too, but only with at most 8 lines under it: a longer tail is more likely text after a divider.
 */
const isSignature = (lines: ReadonlyArray<string>, i: number): boolean => {
  const line = lines[i]!
  if (line === "-- ") return true
  if (line.trimEnd() !== "--") return false
  let below = 0
  for (let j = i + 1; j < lines.length; j++) {
    if (isQuoted(lines[j]!) || isHistoryStart(lines, j) || attributionEnd(lines, j) !== -1) break
    if (!isBlank(lines[j]!) && ++below > maxBareSignatureLines) return false
  }
  return true
}

/** Whether the quote that follows an attribution is answered in between (an interleaved reply). */
const isInterleaved = (lines: ReadonlyArray<string>, from: number): boolean => {
  let quoteSeen = false
  for (let j = from; j < lines.length; j++) {
    const line = lines[j]!
    if (isQuoted(line)) quoteSeen = true
    else if (isSignature(lines, j) || isHistoryStart(lines, j)) return false
    else if (quoteSeen && !isBlank(line)) return true
  }
  return false
}

/** The new part of a reply: quoted history and the signature removed where they can be told apart reliably. */
export const newText = (text: string): string => {
  const whole = cleanText(text)
  const lines = whole.split("\n")
  let cut = lines.length
  for (let i = 0; i < lines.length; i++) {
    if (isQuoted(lines[i]!)) continue
    if (isSignature(lines, i) || isHistoryStart(lines, i)) {
      cut = i
      break
    }
    const end = attributionEnd(lines, i)
    if (end === -1) continue
    if (!isInterleaved(lines, end + 1)) {
      cut = i
      break
    }
    i = end
  }
  let last = cut
  while (last > 0 && (isBlank(lines[last - 1]!) || isQuoted(lines[last - 1]!))) last--
  const kept = lines.slice(0, last).join("\n").trim()
  return kept === "" ? whole : kept
}

/** `support+tok@x.org` -> { base: "support@x.org", tag: "tok" }; tag null without '+'. Lower-cased. */
export const splitAddress = (address: string): { readonly base: string; readonly tag: string | null } => {
  const lower = address.trim().toLowerCase()
  const at = lower.lastIndexOf("@")
  const local = at === -1 ? lower : lower.slice(0, at)
  const domain = at === -1 ? "" : lower.slice(at)
  const plus = local.indexOf("+")
  if (plus === -1) return { base: lower, tag: null }
  return { base: `${local.slice(0, plus)}${domain}`, tag: local.slice(plus + 1) || null }
}
