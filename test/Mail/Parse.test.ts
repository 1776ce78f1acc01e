/**
 * Mail parsing on real raw messages (CRLF, the encodings clients send), one built by nodemailer:
 * loop detection, threading, addresses, charsets, HTML-only bodies, attachments, and the reply
 * trimming that keeps only what the customer newly wrote.
 */
import { Effect } from "effect"
import MailComposer from "nodemailer/lib/mail-composer/index.js"
import { describe, expect, it } from "vitest"
import { type LoopReason, MalformedMail, newText, parseMail, splitAddress } from "../../src/Mail/Parse.ts"

const crlf = (...lines: Array<string>) => lines.join("\r\n")
const utf8 = (text: string) => new TextEncoder().encode(text)
/** One byte per character, for 8-bit bodies in a legacy charset. */
const latin1 = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0))

type Envelope = { readonly mailFrom: string | null | undefined }
const parse = (raw: string | Uint8Array, envelope?: Envelope) =>
  Effect.runPromise(parseMail(typeof raw === "string" ? utf8(raw) : raw, envelope))
const refusal = (raw: string | Uint8Array) =>
  Effect.runPromise(Effect.flip(parseMail(typeof raw === "string" ? utf8(raw) : raw)))

const simpleMail = (headers: Array<string>, from = "Ann Customer <ann@example.com>") =>
  crlf(
    `From: ${from}`,
    "To: support@help.example",
    "Subject: Export fails",
    "Message-ID: <m1@example.com>",
    ...headers,
    "Content-Type: text/plain; charset=utf-8",
    "",
    "The export fails.",
    ""
  )

/** Deterministic bytes that look random (xorshift32), so a failure reproduces. */
const noise = (length: number, seed: number) => {
  const out = new Uint8Array(length)
  let x = seed
  for (let i = 0; i < length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

describe("parseMail: a plain mail", () => {
  it("reads sender, recipients, subject, text and threading headers", async () => {
    const mail = await parse(crlf(
      "Return-Path: <ann@example.com>",
      "Delivered-To: support+t0k@help.example",
      "X-Original-To: desk@help.example",
      "From: \"Ann Customer\" <Ann@Example.COM>",
      "To: Support <Support+T0k@Help.Example>, other@example.org",
      "Cc: Team: a@example.org, B@Example.org;",
      "Subject: Re: Order\r\n\t  status",
      "Message-ID:   <CAF=abc+def@mail.gmail.com>  ",
      "In-Reply-To: <m0@help.example>",
      "References: <r1@help.example> <r2@help.example>\r\n\t<m0@help.example>",
      "Content-Type: text/plain; charset=utf-8",
      "",
      "Hello,",
      "line two",
      "",
      ""
    ), { mailFrom: "ann@example.com" })
    expect(mail).toEqual({
      messageId: "CAF=abc+def@mail.gmail.com",
      inReplyTo: ["m0@help.example"],
      references: ["r1@help.example", "r2@help.example", "m0@help.example"],
      from: { address: "ann@example.com", name: "Ann Customer" },
      // a repeated address (To and Delivered-To) is listed once, where it first appears
      to: ["support+t0k@help.example", "other@example.org", "a@example.org", "b@example.org", "desk@help.example"],
      subject: "Re: Order status",
      text: "Hello,\nline two",
      attachments: [],
      loop: null
    })
  })

  it("gives null and empty lists when the threading headers and the display name are absent", async () => {
    const mail = await parse(crlf("From: ann@example.com", "To: support@help.example", "", "Hi", ""))
    expect([mail.messageId, mail.inReplyTo, mail.references, mail.from, mail.subject])
      .toEqual([null, [], [], { address: "ann@example.com", name: null }, ""])
  })

  it("reads several ids in one In-Reply-To and ids a broken client wrote without brackets", async () => {
    const mail = await parse(crlf(
      "From: ann@example.com",
      "Message-ID: bare-id",
      "In-Reply-To: your message of Monday <a@x.example> <b@x.example>",
      "References: c@x.example d@x.example",
      "",
      "Hi",
      ""
    ))
    expect([mail.messageId, mail.inReplyTo, mail.references])
      .toEqual(["bare-id", ["a@x.example", "b@x.example"], ["c@x.example", "d@x.example"]])
  })
})

describe("parseMail: loop detection", () => {
  const loopOf = async (headers: Array<string>, envelope?: Envelope, from?: string) =>
    (await parse(simpleMail(headers, from), envelope)).loop

  it("finds none in a person's mail, whatever the envelope sender", async () => {
    expect(await loopOf([], { mailFrom: "ann@example.com" })).toBe(null)
    // an unknown envelope (undefined) is not the null reverse path
    expect(await loopOf([], { mailFrom: undefined })).toBe(null)
    expect(await loopOf([])).toBe(null)
  })

  it.each<[string, Array<string>, LoopReason | null]>([
    ["Auto-Submitted auto-replied", ["Auto-Submitted: auto-replied"], "auto_submitted"],
    ["Auto-Submitted auto-generated with a comment", ["Auto-Submitted: auto-generated (vacation)"], "auto_submitted"],
    ["Auto-Submitted no", ["Auto-Submitted: No"], null],
    ["Precedence bulk", ["Precedence: bulk"], "precedence"],
    ["Precedence junk", ["Precedence: junk"], "precedence"],
    ["Precedence list", ["Precedence: list"], "precedence"],
    ["Precedence auto_reply", ["Precedence: auto_reply"], "precedence"],
    ["Precedence first-class", ["Precedence: first-class"], null],
    ["X-Autoreply", ["X-Autoreply: yes"], "autoreply_header"],
    ["X-Autorespond", ["X-Autorespond: vacation"], "autoreply_header"],
    ["X-Autoresponse", ["X-Autoresponse: 1"], "autoreply_header"],
    ["X-Auto-Response-Suppress OOF", ["X-Auto-Response-Suppress: DR, OOF"], "autoreply_header"],
    ["X-Auto-Response-Suppress All", ["X-Auto-Response-Suppress: All"], "autoreply_header"],
    ["X-Auto-Response-Suppress AutoReply", ["X-Auto-Response-Suppress: AutoReply"], "autoreply_header"],
    ["X-Auto-Response-Suppress receipts only", ["X-Auto-Response-Suppress: DR, RN, NRN"], null],
    // procmail stamps X-Loop on human mail it forwards, so a foreign X-Loop proves nothing
    ["a foreign X-Loop", ["X-Loop: ann@example.com"], null],
    ["List-Id", ["List-Id: Users <users.lists.example.org>"], "mailing_list"],
    ["List-Unsubscribe", ["List-Unsubscribe: <mailto:leave@lists.example.org>"], "mailing_list"],
    ["Return-Path <>", ["Return-Path: <>"], "bounce"]
  ])("%s", async (_, headers, reason) => {
    expect(await loopOf(headers)).toBe(reason)
  })

  it("calls the SMTP null reverse path a bounce, as null or as smtp-server's empty address", async () => {
    expect(await loopOf([], { mailFrom: null })).toBe("bounce")
    expect(await loopOf([], { mailFrom: "" })).toBe("bounce")
    expect(await loopOf([], { mailFrom: "<>" })).toBe("bounce")
  })

  it("calls a multipart/report delivery status a bounce, whoever signs it", async () => {
    const report = await parse(crlf(
      "From: Delivery Notifications <notify@mx.example.net>",
      "To: support@help.example",
      "Subject: Undelivered Mail Returned to Sender",
      "MIME-Version: 1.0",
      "Content-Type: multipart/report; report-type=delivery-status; boundary=\"dsn\"",
      "",
      "--dsn",
      "Content-Type: text/plain; charset=us-ascii",
      "",
      "Your message could not be delivered.",
      "--dsn",
      "Content-Type: message/delivery-status",
      "",
      "Reporting-MTA: dns; mx.example.net",
      "",
      "Final-Recipient: rfc822; gone@example.com",
      "Action: failed",
      "Status: 5.1.1",
      "--dsn--",
      ""
    ))
    expect(report.loop).toBe("bounce")
    expect(report.text).toBe("Your message could not be delivered.")
  })

  it("calls mail from MAILER-DAEMON or postmaster a mailer_daemon mail, in any case", async () => {
    expect(await loopOf([], undefined, "Mail Delivery System <MAILER-DAEMON@mx.example.net>")).toBe("mailer_daemon")
    expect(await loopOf([], undefined, "PostMaster@example.org")).toBe("mailer_daemon")
    expect(await loopOf([], undefined, "postmaster-team@example.org")).toBe(null)
  })

  it("checks bounces first, then the sender's name, then the headers", async () => {
    const everything = ["Auto-Submitted: auto-replied", "Precedence: bulk", "List-Id: <l.example.org>"]
    expect(await loopOf(everything, { mailFrom: null }, "MAILER-DAEMON@mx.example.net")).toBe("bounce")
    expect(await loopOf(everything, { mailFrom: "x@mx.example.net" }, "MAILER-DAEMON@mx.example.net"))
      .toBe("mailer_daemon")
    expect(await loopOf(everything)).toBe("auto_submitted")
    expect(await loopOf(["List-Id: <l.example.org>", "X-Autoreply: yes", "Precedence: junk"])).toBe("precedence")
    expect(await loopOf(["List-Unsubscribe: <mailto:x@l.example.org>", "X-Autoreply: yes"])).toBe("autoreply_header")
  })
})

describe("parseMail: refusals", () => {
  it.each([
    ["no From header", crlf("To: support@help.example", "Subject: Hi", "", "Hello", "")],
    ["a From without an address", crlf("From: Ann Customer", "To: support@help.example", "", "Hello", "")],
    ["an empty group as From", crlf("From: Undisclosed recipients:;", "", "Hello", "")],
    ["a From with no domain", crlf("From: <ann@>", "", "Hello", "")]
  ])("refuses a mail with %s", async (_, raw) => {
    const error = await refusal(raw)
    expect(error).toBeInstanceOf(MalformedMail)
    expect(error.message).toBe("the mail has no From address")
  })

  it("refuses random bytes and empty input as mail with no From, without throwing", async () => {
    // postal-mime reads anything as headers and body, so garbage parses but has no sender
    for (const raw of [noise(4096, 0x9e3779b9), noise(65_536, 42), new Uint8Array(0)]) {
      const error = await refusal(raw)
      expect(error._tag).toBe("MalformedMail")
      expect(error.message).toBe("the mail has no From address")
    }
  })
})

describe("parseMail: charsets", () => {
  it("decodes an ISO-8859-1 8-bit body and Q-encoded ISO-8859-1 words", async () => {
    const mail = await parse(latin1(crlf(
      "From: =?iso-8859-1?q?Fran=E7ois?= <francois@example.fr>",
      "Subject: =?ISO-8859-1?Q?R=E9clamation_d=E9j=E0_faite?=",
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=ISO-8859-1",
      "Content-Transfer-Encoding: 8bit",
      "",
      "Grüße, café crème à la française.",
      ""
    )))
    expect([mail.from?.name, mail.subject, mail.text])
      .toEqual(["François", "Réclamation déjà faite", "Grüße, café crème à la française."])
  })

  it("decodes Windows-1252 quoted-printable, soft line breaks and the euro sign included", async () => {
    const mail = await parse(crlf(
      "From: kunde@example.de",
      "Subject: =?windows-1252?Q?Rechnung_=96_10_=80?=",
      "Content-Type: text/plain; charset=windows-1252",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "Preis: 10 =80 =93inkl.=94 MwSt., bitte =",
      "best=E4tigen.",
      ""
    ))
    expect([mail.subject, mail.text]).toEqual(["Rechnung – 10 €", "Preis: 10 € “inkl.” MwSt., bitte bestätigen."])
  })

  it("joins base64 UTF-8 encoded words folded over lines, and a base64 UTF-8 body", async () => {
    const subject = "Grüße aus Köln 🎉 und Zürich"
    const chars = Array.from(subject)
    const word = (part: Array<string>) => `=?UTF-8?B?${btoa(String.fromCharCode(...utf8(part.join(""))))}?=`
    const mail = await parse(crlf(
      "From: =?utf-8?b?SsO8cmdlbg==?= <juergen@example.de>",
      `Subject: ${word(chars.slice(0, 10))}\r\n ${word(chars.slice(10, 17))}\r\n\t${word(chars.slice(17))}`,
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: base64",
      "",
      btoa(String.fromCharCode(...utf8("Schöne Grüße 🎉\r\nJürgen"))),
      ""
    ))
    expect([mail.from?.name, mail.subject, mail.text]).toEqual(["Jürgen", subject, "Schöne Grüße 🎉\nJürgen"])
  })
})

describe("parseMail: HTML-only mail", () => {
  it("takes the text from postal-mime's conversion: paragraphs, line breaks, links and entities", async () => {
    const mail = await parse(crlf(
      "From: Ann Customer <ann@example.com>",
      "To: support@help.example",
      "Subject: Screenshot",
      "MIME-Version: 1.0",
      "Content-Type: text/html; charset=\"UTF-8\"",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "<html><head><style>p { margin: 0 }</style></head><body>",
      "<p>Hello,</p><p>the export fails since Monday.<br>Steps are on <a href=3D\"https://=",
      "example.com/steps\">this page</a> &amp; in the caf=C3=A9&#39;s wiki.</p>",
      "</body></html>",
      ""
    ))
    expect(mail.text).toBe(
      "Hello,\n\nthe export fails since Monday.\nSteps are on (https://example.com/steps) this page & in the café's wiki."
    )
  })

  it("keeps the text/plain part of a multipart/alternative rather than converting its HTML", async () => {
    const mail = await parse(crlf(
      "From: ann@example.com",
      "Content-Type: multipart/alternative; boundary=\"alt\"",
      "",
      "--alt",
      "Content-Type: text/plain; charset=utf-8",
      "",
      "Plain version",
      "--alt",
      "Content-Type: text/html; charset=utf-8",
      "",
      "<p>HTML version</p>",
      "--alt--",
      ""
    ))
    expect(mail.text).toBe("Plain version")
  })
})

describe("parseMail: attachments", () => {
  it("round-trips nodemailer's 200 KB binary attachment byte for byte, with its non-ASCII name, and marks the cid image inline", async () => {
    const binary = noise(200 * 1024, 0xdecafbad)
    const png = noise(512, 7)
    const raw = await new MailComposer({
      from: "Zoë Müller <Zoe@Example.com>",
      to: "support@help.example",
      subject: "Überweisung für März ✓",
      text: "Anbei die Überweisung.",
      html: "<p>Anbei die Überweisung.</p><img src=\"cid:logo@help.example\">",
      attachments: [
        { filename: "Überweisung März 2024 – Kopie.pdf", content: Buffer.from(binary), contentType: "application/pdf" },
        { filename: "logo.png", content: Buffer.from(png), cid: "logo@help.example" },
        // a Content-ID the HTML never references is a file the reader would otherwise never see
        { filename: "unused.png", content: Buffer.from(png), cid: "unused@help.example" }
      ]
    }).compile().build()
    const mail = await parse(new Uint8Array(raw))
    expect([mail.from, mail.subject, mail.text])
      .toEqual([{ address: "zoe@example.com", name: "Zoë Müller" }, "Überweisung für März ✓", "Anbei die Überweisung."])
    const byName = new Map(mail.attachments.map((attachment) => [attachment.filename, attachment]))
    expect([...byName.keys()].sort()).toEqual(["logo.png", "unused.png", "Überweisung März 2024 – Kopie.pdf"])
    const pdf = byName.get("Überweisung März 2024 – Kopie.pdf")!
    expect([pdf.contentType, pdf.inline, pdf.content.length]).toEqual(["application/pdf", false, binary.length])
    expect(Buffer.from(pdf.content).equals(Buffer.from(binary))).toBe(true)
    const logo = byName.get("logo.png")!
    expect([logo.contentType, logo.inline, logo.contentId]).toEqual(["image/png", true, "logo@help.example"])
    expect(Buffer.from(logo.content).equals(Buffer.from(png))).toBe(true)
    expect(byName.get("unused.png")!.inline).toBe(false)
  })

  it("names, cleans and types attachments: generated names, path and control characters, 255 characters at most", async () => {
    const part = (headers: Array<string>) =>
      ["--b", ...headers, "Content-Transfer-Encoding: base64", "", btoa("content")]
    const longName = `${"a".repeat(300)}.pdf`
    const mail = await parse(crlf(
      "From: ann@example.com",
      "Content-Type: multipart/mixed; boundary=\"b\"",
      "",
      "--b",
      "Content-Type: text/plain",
      "",
      "See attached.",
      ...part(["Content-Type: IMAGE/PNG", "Content-Disposition: attachment"]),
      ...part(["Content-Type: application/x-unknown", "Content-Disposition: attachment"]),
      ...part(["Content-Type: garbage", "Content-Disposition: attachment; filename=\"..\\\\..\\\\windows\\\\evil.exe\""]),
      ...part(["Content-Type: text/plain", "Content-Disposition: attachment; filename*=utf-8''evil%07name%0A.txt"]),
      ...part(["Content-Type: application/pdf", "Content-Disposition: attachment; filename=\"invoice\u202Efdp.exe\""]),
      ...part(["Content-Type: application/pdf; name=\"../../etc/passwd\""]),
      ...part(["Content-Type: application/pdf", `Content-Disposition: attachment; filename="${longName}"`]),
      ...part(["Content-Type: application/pdf", "Content-Disposition: attachment; filename=\"..\""]),
      "--b--",
      ""
    ))
    expect(mail.attachments.map((attachment) => [attachment.filename, attachment.contentType])).toEqual([
      ["attachment-1.png", "image/png"],
      ["attachment-2", "application/x-unknown"],
      ["evil.exe", "application/octet-stream"],
      ["evilname.txt", "text/plain"],
      ["invoicefdp.exe", "application/pdf"],
      ["passwd", "application/pdf"],
      [`${"a".repeat(251)}.pdf`, "application/pdf"],
      ["attachment-8.pdf", "application/pdf"]
    ])
    expect(new TextDecoder().decode(mail.attachments[0]!.content)).toBe("content")
    expect(mail.attachments.every((attachment) => !attachment.inline)).toBe(true)
  })
})

describe("newText", () => {
  it("trims a Gmail reply, its wrapped attribution and the quoted signature included", () => {
    expect(newText([
      "Yes, the export works now. Thanks!",
      "",
      "On Mon, Mar 4, 2024 at 10:00 AM Help Desk <support@help.example>",
      "wrote:",
      "",
      "> Hello Ann,",
      ">",
      "> Please try the export again.",
      ">",
      "> --",
      "> Help Desk",
      ""
    ].join("\r\n"))).toBe("Yes, the export works now. Thanks!")
  })

  it("trims an Outlook reply at its underscore rule and header block", () => {
    expect(newText([
      "Please find the invoice attached.",
      "",
      "Best regards,",
      "John Smith",
      "",
      "________________________________",
      "From: Help Desk <support@help.example>",
      "Sent: Monday, March 4, 2024 10:00 AM",
      "To: John Smith <john@corp.example>",
      "Subject: RE: Invoice [#42]",
      "",
      "Hello John,",
      "could you send the invoice?"
    ].join("\n"))).toBe("Please find the invoice attached.\n\nBest regards,\nJohn Smith")
  })

  it("trims an Outlook reply at -----Original Message----- and a header block after a blank line", () => {
    expect(newText("Done, thanks.\n\n-----Original Message-----\nFrom: Help Desk\nSent: Monday\n\nOld text"))
      .toBe("Done, thanks.")
    expect(newText("Done, thanks.\n\nFrom: Help Desk <support@help.example>\nDate: Monday\nSubject: Re: x\n\nOld"))
      .toBe("Done, thanks.")
  })

  it("trims Apple Mail replies, with the attribution quoted (iOS) or not (macOS)", () => {
    expect(newText([
      "Works on my iPad too.",
      "",
      "Sent from my iPad",
      "",
      "> On 4 Mar 2024, at 10:00, Help Desk <support@help.example> wrote:",
      "> ",
      "> Does it work on mobile?"
    ].join("\n"))).toBe("Works on my iPad too.\n\nSent from my iPad")
    expect(newText([
      "Thanks, that did it.",
      "",
      "On 4 Mar 2024, at 10:00, Help Desk <support@help.example> wrote:",
      "",
      "> Does it work now?"
    ].join("\n"))).toBe("Thanks, that did it.")
  })

  it("trims a Thunderbird top-posted reply and its signature", () => {
    expect(newText([
      "Works now.",
      "",
      "-- ",
      "Jane Roe",
      "ACME Corp",
      "",
      "On 04/03/2024 10:00, Help Desk wrote:",
      "> Try again."
    ].join("\n"))).toBe("Works now.")
  })

  it("keeps a Thunderbird interleaved reply, its quotes and answers, and cuts the signature and trailing quotes", () => {
    const answer = [
      "On 3/4/24 10:00, Help Desk wrote:",
      "> Could you send the log?",
      "> And the version?",
      "",
      "Here it is, attached. Version 2.4.1.",
      "",
      "> Which browser?",
      "",
      "Firefox 124."
    ]
    expect(newText([...answer, "", "> Thanks!", "> Help Desk", "", "-- ", "Jane Roe", "ACME Corp"].join("\n")))
      .toBe(answer.join("\n"))
  })

  it("keeps inline quotes that are answered when there is no attribution, and drops the unanswered last one", () => {
    expect(newText("> Which version?\n2.4.1\n\n> Which OS?\nLinux\n\n> Anything else?\n>\n"))
      .toBe("> Which version?\n2.4.1\n\n> Which OS?\nLinux")
  })

  it.each([
    ["French", "Le lun. 4 mars 2024 à 10:00, Help Desk <support@help.example> a\u00a0écrit :"],
    ["German (Thunderbird)", "Am 04.03.24 um 10:00 schrieb Help Desk:"],
    ["German (Gmail)", "Am Mo., 4. März 2024 um 10:00 Uhr schrieb Help Desk <support@help.example>:"],
    ["Spanish", "El lun, 4 mar 2024 a las 10:00, Help Desk (<support@help.example>) escribió:"]
  ])("cuts at a %s attribution", (_, attribution) => {
    expect(newText(`Merci / Danke / Gracias.\n\n${attribution}\n> Old text`)).toBe("Merci / Danke / Gracias.")
  })

  it("cuts at a signature delimiter, and at a bare -- only with a short tail", () => {
    expect(newText("Here is the log.\n\n-- \nAnn Customer\nACME Corp\n+1 555 0100")).toBe("Here is the log.")
    expect(newText("Here is the log.\n--\nAnn Customer\nACME Corp")).toBe("Here is the log.")
    const divided = ["Part one.", "--", ...Array.from({ length: 9 }, (_, i) => `Step ${i + 1}.`)].join("\n")
    expect(newText(divided)).toBe(divided)
  })

  it("leaves prose that merely looks like an attribution, having no date in it", () => {
    const text = "Hi,\n\nOn Monday my colleague wrote:\nthe server is down.\n\nCan you check?"
    expect(newText(text)).toBe(text)
  })

  it("returns the whole text trimmed rather than nothing", () => {
    expect(newText("  > only a quote\n> more\n")).toBe("> only a quote\n> more")
    expect(newText("-- \nAnn Customer")).toBe("-- \nAnn Customer")
    expect(newText("On Mon, Mar 4, 2024 at 10:00 AM Ann <ann@example.com> wrote:\n> hi")).toBe(
      "On Mon, Mar 4, 2024 at 10:00 AM Ann <ann@example.com> wrote:\n> hi"
    )
  })

  it("trims a parsed quoted-printable Gmail reply, whose signature delimiter arrives as --=20", async () => {
    const mail = await parse(crlf(
      "From: Ann Customer <ann@example.com>",
      "Subject: Re: Export fails",
      "Content-Type: text/plain; charset=UTF-8",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "Fixed, thank you!",
      "--=20",
      "Ann",
      "",
      "On Mon, Mar 4, 2024 at 10:00 AM Help Desk <support@help.example> wrote:",
      "",
      "> Please try again.",
      ""
    ))
    expect(newText(mail.text)).toBe("Fixed, thank you!")
  })
})

describe("splitAddress", () => {
  it("splits the plus tag off the local part, lower-cased", () => {
    expect(splitAddress("Support+Tok@X.org")).toEqual({ base: "support@x.org", tag: "tok" })
    expect(splitAddress("support@x.org")).toEqual({ base: "support@x.org", tag: null })
    // only the first plus separates: the tag may contain more
    expect(splitAddress("support+a+b@x.org")).toEqual({ base: "support@x.org", tag: "a+b" })
    expect(splitAddress("support+@x.org")).toEqual({ base: "support@x.org", tag: null })
  })
})
