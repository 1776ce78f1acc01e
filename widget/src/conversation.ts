import { randomId } from "../../src/client/randomId.ts"
import type { Attachment } from "../../src/client/Types.ts"
import { addReply, claimTicket, rateTicket, download, isMsg, listTickets, type Msg, type Outcome, readTicket, retrySeconds, type TicketRef, type TicketView } from "./api.ts"
import { picker, sizeText } from "./attach.ts"
import type { WidgetConfig } from "./config.ts"
import { backButton, h, heading, viewSection } from "./dom.ts"
import type { Panel, View } from "./launcher.ts"
import { MESSAGES } from "./messages.ts"
import type { Request, RequestStore } from "./store.ts"
import { follow, type Follower } from "./stream.ts"

const STATUSES: Record<string, string> = {
  open: "Open",
  in_progress: "In progress",
  waiting: "Waiting for your reply",
  resolved: "Resolved",
  closed: "Closed"
}

const statusText = (status: string) => STATUSES[status] ?? status

/** A ticket as the list and the conversation know it. */
type Ticket = TicketRef & { readonly ticket_number: number; readonly subject: string; readonly email?: string | undefined }

const full = (date: Date) => date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })

/** "just now", "5 min ago", "3 h ago", then the date. */
const ago = (date: Date) => {
  const s = (Date.now() - date.getTime()) / 1000
  return s < 60
    ? "just now"
    : s < 3600
    ? `${Math.floor(s / 60)} min ago`
    : s < 86400
    ? `${Math.floor(s / 3600)} h ago`
    : date.toLocaleDateString(undefined, { month: "short", day: "numeric" })
}

/** The relative time on screen, the full time for screen readers (and on hover). */
const stamp = (iso: string) => {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return h("time", {})
  return h(
    "time",
    { datetime: iso, title: full(date) },
    h("span", { "aria-hidden": "true" }, ago(date)),
    h("span", { class: "sr" }, full(date))
  )
}

export interface Conversation {
  /** The "Your requests" button, placed at the top of the form. */
  readonly entry: HTMLElement
  readonly list: View
  readonly conversation: View
  /** A ticket just filed: stored, and opened when its token lets it be read; whether it opened. */
  filed(request: Request, body: string, files: Attachment[]): boolean
  /** After each open, close and change of view (and of the page's visibility). */
  changed(): void
}

/**
 * The visitor's requests, and one conversation as a chat: the opening message first, replies as
 * they come over the ticket's stream, a reply box at the bottom. One ticket is followed while the
 * panel is closed too, so the launcher can count the replies the visitor has not seen.
 */
export function conversation(config: WidgetConfig, store: RequestStore, panel: Panel): Conversation {
  const verified = !!config.identityToken
  const entry = h("button", { type: "button", class: "r", "data-testid": "requests-entry", hidden: true })

  const listTitle = heading("requests-title", "Your requests")
  listTitle.id = "sw-requests-title"
  const listBack = backButton("requests-back", "Back to the form")
  const listNote = h("p", { class: "m e", role: "alert", "data-testid": "requests-error" })
  const requestList = h("ul", { class: "q", "data-testid": "request-list", "aria-labelledby": "sw-requests-title" })
  const list: View = { element: viewSection("requests", listBack, listTitle, listNote, requestList), focus: listTitle }

  const convBack = backButton("conversation-back", "Back to your requests")
  const convTitle = heading("conversation-title")
  const convStatus = h("p", { class: "m st", "data-testid": "conversation-status" })
  const reconnecting = h("p", { class: "m st", "data-testid": "reconnecting", hidden: true }, MESSAGES.reconnecting)
  const rating = h("p", { class: "m", "data-testid": "rating", hidden: true })
  const messages = h("ol", { class: "c", "data-testid": "messages", "aria-label": "Conversation" })
  const empty = h("p", { class: "m st", "data-testid": "no-messages", hidden: true }, MESSAGES.noMessages)
  // scrolled by keyboard too: a stop of its own in the Tab order
  const thread = h("div", { class: "sc", tabindex: "0", role: "region", "aria-label": "Messages", "data-testid": "thread" }, messages, empty)
  // short words for screen readers; what they say is on screen already
  const convLive = h("p", { class: "sr", role: "status", "aria-live": "polite", "data-testid": "conversation-live" })
  const reply = h("textarea", {
    id: "sw-reply",
    rows: "2",
    required: true,
    maxlength: "50000",
    placeholder: "Write a reply…",
    "data-testid": "reply"
  })
  const notice = h("p", { id: "sw-reply-error", class: "m e", role: "alert", "data-testid": "reply-error" })
  const replySend = h("button", { type: "submit", class: "s", "data-testid": "reply-send" }, "Send")
  const replyFiles = picker(config, "reply")
  const replyForm = h(
    "form",
    // the widget's own message, not the browser's bubble as well: one message per problem
    { class: "rf", "aria-label": "Reply", novalidate: true },
    h("label", { for: "sw-reply", class: "sr" }, "Your reply"),
    reply,
    replySend,
    replyFiles.element
  )
  const conv: View = {
    element: viewSection(
      "conversation",
      h("div", { class: "ch" }, convBack, convTitle, convStatus, rating, reconnecting),
      thread,
      notice,
      convLive,
      replyForm
    ),
    focus: convTitle
  }
  conv.element.classList.add("cv")

  const showEntry = () => {
    const count = store.list().length
    entry.hidden = !verified && count === 0
    entry.textContent = verified ? "Your requests" : `Your requests (${count})`
  }
  showEntry()

  /** The conversation on screen, or last on screen: the one followed while the panel is closed. */
  let current: Ticket | undefined
  /** The messages on screen, by id. */
  let seen = new Map<string, HTMLElement>()
  let follower: Follower | undefined
  let followed: string | undefined

  const viewing = (id: string) => current?.ticket_id === id && panel.shows(conv) && document.visibilityState !== "hidden"
  const badge = () => panel.badge(store.list().reduce((n, r) => n + (r.unread ?? 0), 0))
  const toBottom = () => (thread.scrollTop = thread.scrollHeight)

  /** A problem of a read or a reply, in plain words; a 429 says when to try again. */
  const problem = (outcome: Outcome) =>
    outcome.kind === "rate-limited"
      ? MESSAGES.tooMany(retrySeconds(outcome))
      : outcome.kind === "unauthorized"
      ? MESSAGES.whoAreYou
      : outcome.kind === "gone"
      ? MESSAGES.gone
      : outcome.kind !== "rejected"
      ? MESSAGES.unreachable
      : outcome.code === "CONFLICT"
      ? MESSAGES.stillSending
      : outcome.code === "PAYLOAD_TOO_LARGE"
      ? MESSAGES.tooLarge
      : /^body (.+)$/.exec(outcome.message)?.[1]?.replace(/^/, "Your reply ") ?? MESSAGES.unavailable

  /**
   * A file is fetched with the ticket's proof, which a link cannot send, then saved from a blob
   * URL through a link with `download`.
   */
  const save = async (a: Attachment) => {
    const blob = current && (await download(config, current, a.url))
    if (!blob) return void (notice.textContent = MESSAGES.noFile)
    const link = h("a", { href: URL.createObjectURL(blob), download: a.filename })
    link.click()
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000)
  }

  /** A message's files, under its text, once: a read may bring those its stream event did not. */
  const files = (li: HTMLElement, list?: ReadonlyArray<Attachment>) => {
    if (!list || !list[0] || li.querySelector(".at")) return
    li.lastChild!.before(h("p", { class: "at" }, ...list.map((a) => {
      const button = h("button", { type: "button", "data-testid": "attachment" }, h("span", { class: "sr" }, "Download "), `${a.filename} (${sizeText(a.size)})`)
      button.addEventListener("click", () => void save(a))
      return button
    })))
  }

  /** Adds a message to the thread once; a reply from support is announced while it is watched. */
  const append = (m: Msg, announce: boolean) => {
    const shown = seen.get(m.id)
    if (shown) {
      files(shown, m.attachments)
      return false
    }
    const mine = m.author_type === "contact"
    const name = mine ? "You" : m.author_name || "Support"
    const li = h(
      "li",
      { class: mine ? "me" : "", "data-testid": "message", "data-author": mine ? "you" : "support" },
      h("b", { class: mine ? "sr" : "" }, name),
      h("div", {}, m.body),
      stamp(m.created_at)
    )
    seen.set(m.id, li)
    files(li, m.attachments)
    messages.append(li)
    empty.hidden = !!messages.querySelector("[data-author=support]")
    if (announce && !mine) convLive.textContent = MESSAGES.newReply(name)
    toBottom()
    return true
  }

  const showStatus = (status: string) => (convStatus.textContent = `Status: ${statusText(status)}`)

  /** Once asked (the ticket was resolved), the rating's buttons; once rated, thanks. */
  const showRating = (asked: TicketView["satisfaction"]) => {
    rating.hidden = !asked
    if (!asked) return
    if (asked.rating != null) return void (rating.textContent = MESSAGES.rated)
    rating.replaceChildren(
      MESSAGES.rate,
      ...(asked.scale == "five" ? [1, 2, 3, 4, 5] : ["good", "bad"]).map((value) => {
        const button = h("button", { type: "button", class: "r" }, `${value}`)
        button.onclick = async () => {
          const outcome = await rateTicket(config, current!, value)
          // a 409 is an answer given before, from the mail's link or another tab
          if (outcome.kind == "ok" || outcome.kind == "rejected") showRating({ ...asked, rating: value })
          else notice.textContent = problem(outcome)
        }
        return button
      })
    )
  }

  const render = (ticket: TicketView) => {
    showStatus(ticket.status)
    showRating(ticket.satisfaction)
    let fresh = false
    // replies that arrive after the first read are announced; the conversation as opened is not
    const announce = seen.size > 0
    for (const m of ticket.messages) fresh = append(m, announce) || fresh
    empty.hidden = !!messages.querySelector("[data-author=support]")
    return fresh
  }

  /** A ticket the service no longer shows this visitor: out of the list, and said so if on screen. */
  const gone = (id: string) => {
    store.remove(id)
    showEntry()
    badge()
    if (current?.ticket_id === id) {
      convStatus.textContent = MESSAGES.gone
      replyForm.hidden = true
    }
  }

  /** Reads `ticket` and shows it when it is on screen; the answer, as the follower wants it. */
  const read = async (ticket: Ticket) => {
    const outcome = await readTicket(config, ticket)
    const here = current?.ticket_id === ticket.ticket_id
    if (outcome.kind === "gone") {
      gone(ticket.ticket_id)
      return "gone" as const
    }
    if (outcome.kind === "ok") {
      const t = outcome.ticket!
      if (outcome.into) {
        // merged: the request is the target now, opened with the same secret
        const moved = { ...ticket, ticket_id: outcome.into, ticket_number: t.ticket_number!, subject: t.subject! }
        store.update(ticket.ticket_id, moved)
        if (here) openConversation(moved)
        return "gone" as const
      }
      store.update(ticket.ticket_id, { status: t.status })
      if (here && notice.textContent !== MESSAGES.whoAreYou) notice.textContent = ""
      return here && render(t) ? ("fresh" as const) : ("same" as const)
    }
    if (here && outcome.kind !== "unreachable") notice.textContent = problem(outcome)
    return outcome.kind === "rate-limited" ? retrySeconds(outcome) * 1000 : ("same" as const)
  }

  /** Follows one ticket: the one on screen, else the last looked at, else the newest open one. */
  const watch = () => {
    const target = current ?? store.list().filter((r) => r.access_token && !/^(resolved|closed)$/.test(r.status ?? ""))
      .sort((a, b) => (b.seen_at ?? 0) - (a.seen_at ?? 0))[0]
    if (target?.ticket_id === followed) return
    follower?.stop()
    reconnecting.hidden = true
    followed = target?.ticket_id
    if (!target) return (follower = undefined)
    const id = target.ticket_id
    follower = follow(config, target, store.get(id)?.last_event_id, {
      event(name, data) {
        const here = current?.ticket_id === id
        if (name === "reset") void read(target)
        else if (name === "ticket_replied" && isMsg({ ...data, id: data.message_id })) {
          const m: Msg = { ...data, id: data.message_id }
          if (here) append(m, true)
          if (m.author_type !== "contact" && !viewing(id)) {
            store.update(id, { unread: (store.get(id)?.unread ?? 0) + 1 })
            badge()
          }
        } else if (name === "ticket_status_changed" && typeof data.status === "string") {
          store.update(id, { status: data.status })
          if (here) showStatus(data.status)
        }
      },
      id: (last) => store.update(id, { last_event_id: last }),
      up: (connected) => (reconnecting.hidden = connected),
      read: () => read(target),
      wanted: () => viewing(id),
      refused: () => (notice.textContent = MESSAGES.whoAreYou)
    })
  }

  const changed = () => {
    if (current && viewing(current.ticket_id)) {
      store.update(current.ticket_id, { unread: 0 })
      badge()
      for (const time of Array.from(messages.querySelectorAll("time"))) {
        if (time.dateTime) time.firstChild!.textContent = ago(new Date(time.dateTime))
      }
      toBottom()
    }
    watch()
  }
  document.addEventListener("visibilitychange", changed)
  // the times stay true while the visitor looks
  setInterval(() => panel.shows(conv) && changed(), 30_000)

  let listSeq = 0
  /** One request of the list: a button that opens it, or the way to read an old one. */
  const item = (ticket: Ticket, status?: string): { ticket: Ticket; state: HTMLElement; item: HTMLElement; button?: HTMLElement } => {
    const label = h("b", {}, `#${ticket.ticket_number} ${ticket.subject}`)
    const state = h("span", { class: "st", "data-testid": "request-status" }, status ? statusText(status) : "")
    if (!ticket.access_token && !verified) {
      return { ticket, state, item: h("li", { class: "o" }, label, h("span", { class: "st", "data-testid": "request-note" }, MESSAGES.byEmail)) }
    }
    const button = h("button", { type: "button", "data-testid": "request" }, label, state)
    button.addEventListener("click", () => openConversation(ticket))
    return { ticket, state, button, item: h("li", {}, button) }
  }

  /** The verified visitor's list from the service, after claiming the tickets filed here. */
  const serverList = async () => {
    for (const r of store.list()) {
      if (!r.access_token || r.claimed) continue
      const claimed = await claimTicket(config, r)
      if (claimed.kind === "ok") store.update(r.ticket_id, { claimed: true })
      if (claimed.kind === "unauthorized" || claimed.kind === "rate-limited") break
    }
    const outcome = await listTickets(config)
    if (outcome.kind === "ok" && Array.isArray(outcome.data?.tickets)) {
      return (outcome.data.tickets as any[]).filter((t) => t && typeof t.ticket_id === "string").map((t) =>
        item({ ...t, access_token: store.get(t.ticket_id)?.access_token }, t.status)
      )
    }
    listNote.textContent = problem(outcome.kind === "ok" ? { kind: "unreachable" } : outcome)
    return undefined
  }

  /** The list, each with its status read afresh; one the service no longer shows drops out. */
  const openList = async (focusTicket?: string) => {
    const seq = ++listSeq
    listNote.textContent = ""
    requestList.replaceChildren()
    panel.show(list)
    let items = verified ? await serverList() : undefined
    if (seq !== listSeq) return
    if (!items) {
      items = store.list().map((r) => item(r))
      for (const i of items) {
        if (!i.button) continue
        void readTicket(config, i.ticket).then((read) => {
          if (seq !== listSeq) return
          if (read.kind === "gone") {
            gone(i.ticket.ticket_id)
            i.item.remove()
          } else if (read.kind === "ok") {
            store.update(i.ticket.ticket_id, { status: read.ticket!.status })
            i.state.textContent = statusText(read.ticket!.status)
          } else if (read.kind !== "unreachable") listNote.textContent = problem(read)
        })
      }
    }
    requestList.replaceChildren(...items.map((i) => i.item))
    items.find((i) => i.ticket.ticket_id === focusTicket)?.button?.focus()
  }
  entry.addEventListener("click", () => void openList())
  listBack.addEventListener("click", () => {
    listSeq++
    showEntry()
    panel.home()
    if (!entry.hidden) entry.focus()
  })

  const openConversation = (ticket: Ticket) => {
    listSeq++
    current = ticket
    seen = new Map()
    messages.replaceChildren()
    replyFiles.clear()
    convLive.textContent = notice.textContent = convStatus.textContent = ""
    empty.hidden = true
    replyForm.hidden = false
    reply.value = ""
    convTitle.textContent = `#${ticket.ticket_number} ${ticket.subject}`
    store.update(ticket.ticket_id, { seen_at: Date.now(), unread: 0 })
    // showing it follows it (the panel's onChange)
    panel.show(conv)
    void read(ticket)
  }
  convBack.addEventListener("click", () => void openList(current?.ticket_id))

  let replyKey: string | undefined
  let replyFor: string | undefined
  let replying = false
  replyForm.addEventListener("submit", (event) => {
    event.preventDefault()
    void (async () => {
      const ticket = current
      const text = reply.value.trim()
      if (replying || !ticket) return
      if (!text) {
        notice.textContent = "Your reply is required"
        reply.setAttribute("aria-invalid", "true")
        reply.setAttribute("aria-describedby", "sw-reply-error")
        return reply.focus()
      }
      reply.removeAttribute("aria-invalid")
      reply.removeAttribute("aria-describedby")
      replying = true
      replySend.disabled = true
      notice.textContent = ""
      try {
        const tell = (text: string) => (convLive.textContent = text)
        const up = await replyFiles.ids(tell)
        const ids: string[] = up.kind === "ok" ? up.data : []
        const fingerprint = `${ticket.ticket_id}\n${text}\n${ids}`
        if (replyKey === undefined || replyFor !== fingerprint) {
          replyKey = randomId()
          replyFor = fingerprint
        }
        const outcome = up.kind === "ok" ? await addReply(config, ticket, text, ids, replyKey, () => tell(MESSAGES.busy)) : up
        if (outcome.kind === "ok") {
          replyKey = replyFor = undefined
          reply.value = ""
          convLive.textContent = MESSAGES.sent
          const id = outcome.data?.message_id
          const sent = replyFiles.done()
          if (current === ticket) {
            append({ id: typeof id === "string" ? id : randomId(), author_type: "contact", body: text, created_at: new Date().toISOString(), attachments: sent }, false)
            // the status a reply to a resolved ticket reopened comes over the stream; else read it
            if (!follower?.live()) void read(ticket)
          }
        } else notice.textContent = replyFiles.spent(outcome) ? MESSAGES.fileAgain : problem(outcome)
      } catch {
        notice.textContent = MESSAGES.unreachable
      } finally {
        replying = false
        replySend.disabled = false
        if (panel.shows(conv) && !panel.hasFocus()) reply.focus()
      }
    })()
  })

  watch()
  badge()
  return {
    entry,
    list,
    conversation: conv,
    changed,
    filed(request, body, files) {
      if (!request.access_token && !request.email) return false
      store.add(request)
      showEntry()
      if (!request.access_token) return false
      openConversation(request)
      append({ id: "opening", author_type: "contact", body, created_at: new Date().toISOString(), attachments: files }, false)
      empty.hidden = false
      return true
    }
  }
}
