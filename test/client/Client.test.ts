// The client against the real service (in-process, on loopback) and against stubs for what the
// service cannot be made to do on demand. This file also runs under Deno (test/Deno.test.ts), so
// it uses only what both runtimes have: vitest, node:http through the stub, WebCrypto, fetch.
import { Effect, Exit, ManagedRuntime, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import {
  ApiError,
  backoffDelay,
  type ClientOptions,
  createClient,
  type EventStream,
  NetworkError,
  type RetryInfo,
  type StreamEvent,
  type SupportClient,
  SupportClientError,
  TimeoutError,
  verifyWebhook,
  WebhookVerificationError
} from "../../src/client/index.ts"
import { filenameOf } from "../../src/client/Client.ts"
import { lockName } from "../../src/Idempotency/Repo.ts"
import { databaseKinds, freshDatabase, sessionsOf } from "../support/Databases.ts"
import { eventuallyDefined } from "../support/Eventually.ts"
import { type StubAnswer, startStub } from "../support/StubServer.ts"
import {
  adminToken,
  type ApiClient,
  createProject,
  startTestServer,
  TestServer,
  testServer
} from "../support/TestServer.ts"

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The error a promise rejects with; fails the test when it resolves. */
const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    const value = await promise
    throw new Error(`expected a rejection, got ${JSON.stringify(value)}`)
  } catch (error) {
    return error
  }
}

/** `n` random bytes; getRandomValues gives at most 64 KiB a call. */
const randomBytes = (n: number) => {
  const bytes = new Uint8Array(n)
  for (let at = 0; at < n; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536))
  return bytes
}

/** Hex SHA-256, as the service reports it, with WebCrypto (this file runs under Deno too). */
const sha256Hex = async (bytes: Uint8Array) =>
  Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)),
    (b) => b.toString(16).padStart(2, "0")
  ).join("")

const apiError = async (promise: Promise<unknown>) => {
  const error = await rejection(promise)
  expect(error).toBeInstanceOf(ApiError)
  return error as ApiError
}

/** The shared `eventuallyDefined`, for a plain probe and a promise. */
const eventually = <A>(what: string, probe: () => A | undefined): Promise<A> =>
  Effect.runPromise(eventuallyDefined(what, Effect.sync(probe)))

/** Reads a stream a step at a time, with a limit on each wait, and says when nothing comes. */
const eventsOf = (stream: EventStream) => {
  let pending: Promise<IteratorResult<StreamEvent, void>> | undefined
  const within = async (ms: number): Promise<IteratorResult<StreamEvent, void> | "nothing"> => {
    pending ??= stream.next()
    let timer: ReturnType<typeof setTimeout> | undefined
    const result: IteratorResult<StreamEvent, void> | "nothing" = await Promise.race([pending, new Promise<"nothing">((resolve) => (timer = setTimeout(() => resolve("nothing"), ms)))])
    clearTimeout(timer)
    if (result !== "nothing") pending = undefined
    return result
  }
  return {
    /** The next `count` events; fails when they take longer than `ms` each, or the stream ends first. */
    take: async (count: number, ms = 15_000): Promise<Array<StreamEvent>> => {
      const taken: Array<StreamEvent> = []
      while (taken.length < count) {
        const result = await within(ms)
        if (result === "nothing") throw new Error(`waited for ${count} events, got ${JSON.stringify(taken)}`)
        if (result.done) throw new Error(`the stream ended after ${JSON.stringify(taken)}`)
        taken.push(result.value)
      }
      return taken
    },
    /** What comes within `ms`: nothing, when the stream gave everything it had. */
    after: async (ms: number) => {
      const result = await within(ms)
      return result === "nothing" ? "nothing" : result.done ? "ended" : result.value
    }
  }
}

/**
 * A client whose stream connections are watched: each one's Last-Event-ID and answer, and every
 * reconnect it announces. `hold` makes new connections wait until it resolves.
 */
const watchedClient = (options: ClientOptions) => {
  const connections: Array<{ lastEventId: string | null; ticketToken: string | null; status?: number }> = []
  const retries: Array<RetryInfo> = []
  const gate: { hold: Promise<void> | undefined } = { hold: undefined }
  const client = createClient({
    retryBaseDelayMs: 50,
    onRetry: (retry) => retries.push(retry),
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers)
      if (headers.get("accept") !== "text/event-stream") return fetch(input, init)
      await gate.hold
      const connection: { lastEventId: string | null; ticketToken: string | null; status?: number } = {
        lastEventId: headers.get("last-event-id"),
        ticketToken: headers.get("x-ticket-token")
      }
      connections.push(connection)
      const response = await fetch(input, init)
      connection.status = response.status
      return response
    },
    ...options
  })
  return { client, connections, retries, gate }
}

/** What a site's backend signs for its signed-in visitor: an HS256 JWT, made here with WebCrypto. */
const signVisitor = async (secret: string, claims: Record<string, unknown>) => {
  const encode = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")
  const part = (value: unknown) => encode(new TextEncoder().encode(JSON.stringify(value)))
  const input = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign"
  ])
  return `${input}.${encode(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input))))}`
}

/**
 * Deno before 2.9.6 sends a request once more by itself when the server drops the connection
 * (denoland/deno#35610, fixed in 2.9.6), so there each attempt of the client reaches a stub that
 * drops twice. The project pins 2.9.5, the newest Deno whose builds for every platform are in the
 * registry (2.9.6 would break `npm ci`); the count below says exactly what each runtime does.
 */
const resendsOnDroppedConnection = (() => {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno
  if (deno === undefined) return false
  const [major, minor, patch] = deno.version.deno.split(".").map(Number)
  return major! < 2 || (major === 2 && (minor! < 9 || (minor === 9 && patch! < 6)))
})()

it("runs on the runtime it was started with", () => {
  // test/Deno.test.ts sets this, so a Deno run that silently fell back to Node would fail here
  if (process.env.CLIENT_TEST_RUNTIME === "deno") expect("Deno" in globalThis).toBe(true)
  else expect("Deno" in globalThis).toBe(false)
})

describe.each(databaseKinds)("the client against the service on %s", (kind) => {
  let service: Awaited<ReturnType<typeof startTestServer>>
  let project: Effect.Success<ReturnType<typeof createProject>>
  let support: SupportClient
  /** An operator's call through the contract's typed client, with the admin token. */
  const operator = <A, E>(call: (admin: ApiClient) => Effect.Effect<A, E>) =>
    service.run(Effect.flatMap(service.api(adminToken), call))

  let database: string | undefined

  beforeAll(async () => {
    // a low file limit, so the test of a file over it sends 1 MiB, not 10
    service = await startTestServer(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", ATTACHMENT_MAX_BYTES: "1MiB" }, { pipeline: "live" })
    project = await service.createProject("Client")
    support = createClient({ apiKey: project.key, baseUrl: service.baseUrl })
    if (kind === "postgres") {
      database = await service.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.map(Effect.orDie(sql<{ name: string }>`SELECT current_database() AS name`), ([row]) => row!.name)))
    }
  }, 120_000)

  // once, under Deno in CI, a test here got no answer for a minute and the service would not close:
  // what its database sessions were doing then is the first thing to know
  afterEach(async ({ task }) => {
    if (task.result?.state === "fail" && database !== undefined) {
      console.error(`sessions of ${database} after "${task.name}" failed:\n${await sessionsOf(database)}`)
    }
  })

  afterAll(async () => {
    await service?.close()
  })

  it("health() reads /health without a key", async () => {
    const health = await createClient({ apiKey: "tf_not_a_key", baseUrl: service.baseUrl }).health()
    expect(health).toEqual({ status: "ok", service: expect.any(String), version: expect.any(String) })
  })

  it("createTicket, getTicket, addMessage: the wire fields as they are, and the conversation in order", async () => {
    const created = await support.createTicket({
      subject: "  Cannot export invoices  ",
      body: "The export button spins forever.",
      sender_email: "Ada@Example.com",
      sender_name: "Ada",
      priority: "p2_high",
      tags: ["billing", "export"],
      metadata: { plan: "pro" }
    })
    expect(created).toEqual({
      ticket_id: expect.stringMatching(uuid),
      ticket_number: expect.any(Number),
      access_token: expect.stringMatching(/^tat_/)
    })

    const ticket = await support.getTicket(created.ticket_id)
    expect(ticket).toMatchObject({
      ticket_id: created.ticket_id,
      ticket_number: created.ticket_number,
      subject: "Cannot export invoices",
      status: "open",
      priority: "p2_high"
    })
    expect(Object.keys(ticket).sort()).toEqual(
      ["attachments", "body", "category", "created_at", "custom_fields", "merged_into_id", "messages", "priority", "satisfaction", "status", "subject", "ticket_id", "ticket_number", "updated_at"]
    )
    expect(ticket.body).toBe("The export button spins forever.")
    expect(ticket.merged_into_id).toBeNull()
    expect(ticket.attachments).toEqual([])

    const first = await support.addMessage(created.ticket_id, { body: "Still broken.", contact_email: "ada@example.com" })
    const second = await support.addMessage(created.ticket_id, { body: "Now it works, thanks." })
    expect(first.message_id).toMatch(uuid)
    const read = await support.getTicket(created.ticket_id, { contactEmail: "ADA@example.com" })
    const added = read.messages.filter((m) => m.id === first.message_id || m.id === second.message_id)
    expect(added.map((m) => [m.body, m.author_type, m.attachments])).toEqual([
      ["Still broken.", "contact", []],
      ["Now it works, thanks.", "contact", []]
    ])
    const times = read.messages.map((m) => m.created_at)
    expect([...times].sort()).toEqual(times)
  })

  it("listTickets: a contact's tickets newest first, a page at a time, and a widget key refused", async () => {
    const filed: Array<string> = []
    for (let i = 0; i < 3; i++) {
      filed.push((await support.createTicket({ subject: `Listed ${i}`, body: "x", sender_email: "grace@example.com" })).ticket_id)
    }
    await support.createTicket({ subject: "Someone else's", body: "x", sender_email: "alan@example.com" })
    const first = await support.listTickets("Grace@Example.com", { limit: 2 })
    expect(first.tickets.map((t) => t.ticket_id)).toEqual([filed[2], filed[1]])
    expect(Object.keys(first.tickets[0]!).sort()).toEqual(
      ["category", "created_at", "custom_fields", "priority", "sender_verified", "status", "subject", "ticket_id", "ticket_number", "updated_at"]
    )
    expect(first.tickets[0]!.sender_verified).toBe(true)
    const rest = await support.listTickets("grace@example.com", { limit: 2, cursor: first.next_cursor! })
    expect(rest).toEqual({ tickets: [expect.objectContaining({ ticket_id: filed[0], subject: "Listed 0" })], next_cursor: null })
    const widget = createClient({ apiKey: project.widgetKey, baseUrl: service.baseUrl, maxRetries: 0 })
    const refused = await apiError(widget.listTickets("grace@example.com"))
    expect([refused.status, refused.code]).toEqual([403, "FORBIDDEN"])
  })

  it("reopens a resolved ticket when a message is added", async () => {
    const { ticket_id } = await support.createTicket({ subject: "Reopen me", body: "x" })
    const [resolved, response] = await operator((admin) =>
      admin.admin.updateTicket({
        params: { pid: project.projectId, id: ticket_id },
        payload: { status: "resolved" },
        responseMode: "decoded-and-response"
      })
    )
    expect(response.status).toBe(200)
    expect(resolved.status).toBe("resolved")
    await support.addMessage(ticket_id, { body: "It came back." })
    expect((await support.getTicket(ticket_id)).status).toBe("open")
  })

  it("createTicket with custom_fields: the reads show them, and a value that does not fit is an ApiError naming it", async () => {
    await operator((admin) =>
      admin.customFields.create({
        params: { pid: project.projectId },
        payload: { key: "plan", label: "Plan", type: "select", options: ["free", "pro"] }
      }))
    await operator((admin) =>
      admin.customFields.create({ params: { pid: project.projectId }, payload: { key: "seats", label: "Seats", type: "number" } }))
    // a key the project has no field for is refused, even unset
    const unknown = await apiError(support.createTicket({ subject: "Fields", body: "x", custom_fields: { plan: "pro", other: null } }))
    expect([unknown.status, unknown.message]).toEqual([400, "custom_fields.other is not a custom field of this project"])
    const { ticket_id } = await support.createTicket({ subject: "Fields", body: "x", custom_fields: { plan: "pro", seats: 12 } })
    expect((await support.getTicket(ticket_id)).custom_fields).toEqual({ plan: "pro", seats: 12 })
    const refused = await apiError(support.createTicket({ subject: "Fields", body: "x", custom_fields: { seats: "12" } }))
    expect([refused.status, refused.code, refused.message]).toEqual([400, "VALIDATION_ERROR", "custom_fields.seats must be a number"])
  })

  it("getRating and rate with a link's token and no key, once; rateTicket with the key, once", async () => {
    // a request as the pipeline makes it when a resolved ticket's contact is asked, with a token of the test's own
    const asked = async (ticketId: string) => {
      const token = `csat_${btoa(String.fromCharCode(...randomBytes(32))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`
      const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)))
      await service.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.orDie(sql`INSERT INTO satisfaction_requests (project_id, ticket_id, token_hash, scale, requested_at)
          VALUES (${project.projectId}, ${ticketId}, ${hash}, 'five', now())`)))
      return token
    }
    const { ticket_id, ticket_number } = await support.createTicket({ subject: "Rate me", body: "x" })
    const token = await asked(ticket_id)
    const keyless = createClient({ apiKey: "tf_not_a_key", baseUrl: service.baseUrl })
    expect(await keyless.getRating(token)).toEqual({
      ticket_number,
      subject: "Rate me",
      scale: "five",
      rating: null,
      comment: null,
      rated_at: null
    })
    const rated = await keyless.rate(token, { rating: 5, comment: "Great" })
    expect(rated).toEqual({
      ticket_number,
      subject: "Rate me",
      scale: "five",
      rating: 5,
      comment: "Great",
      rated_at: expect.stringMatching(/Z$/)
    })
    const twice = await apiError(keyless.rate(token, { rating: 1 }))
    expect([twice.status, twice.code]).toEqual([409, "CONFLICT"])
    expect((await support.getTicket(ticket_id)).satisfaction).toEqual({ scale: "five", rating: 5, comment: "Great", rated_at: rated.rated_at })
    const bad = await apiError(keyless.rate(token.slice(0, -1), { rating: 1 }))
    expect([bad.status, bad.code, bad.message]).toEqual([404, "NOT_FOUND", "rating not found"])

    const other = await support.createTicket({ subject: "Rate me too", body: "y" })
    const notAsked = await apiError(support.rateTicket(other.ticket_id, { rating: 3 }))
    expect([notAsked.status, notAsked.code]).toEqual([409, "CONFLICT"])
    await asked(other.ticket_id)
    expect(await support.rateTicket(other.ticket_id, { rating: 3 })).toMatchObject({ rating: 3, comment: null })
    expect((await apiError(support.rateTicket(other.ticket_id, { rating: 3 }))).status).toBe(409)
  })

  it("createTicket sends an Idempotency-Key of its own: a retry after a lost answer files one ticket", async () => {
    const keys: Array<string | null> = []
    let lost = false
    const losingFetch: typeof fetch = async (input, init) => {
      keys.push(new Headers(init?.headers).get("idempotency-key"))
      const response = await fetch(input, init)
      // the service did the work, but the answer never reaches the caller
      if (!lost) {
        lost = true
        await response.text()
        throw new TypeError("socket hang up")
      }
      return response
    }
    const retries: Array<RetryInfo> = []
    const client = createClient({
      apiKey: project.key,
      baseUrl: service.baseUrl,
      fetch: losingFetch,
      retryBaseDelayMs: 1,
      onRetry: (r) => retries.push(r)
    })
    const created = await client.createTicket({ subject: "Filed once", body: "Even though the answer got lost" })
    expect(keys).toHaveLength(2)
    expect(keys[0]).toMatch(uuid)
    expect(keys[1]).toBe(keys[0])
    expect(retries).toEqual([expect.objectContaining({ method: "POST", path: "/v1/tickets", attempt: 2 })])
    expect(retries[0]!.error).toBeInstanceOf(NetworkError)
    const next = await support.createTicket({ subject: "The one after", body: "x" })
    expect(next.ticket_number).toBe(created.ticket_number + 1)

    // addMessage does the same
    const messageKeys = keys.length
    lost = false
    const { message_id } = await client.addMessage(created.ticket_id, { body: "Said once" })
    expect(keys.slice(messageKeys)).toEqual([keys[messageKeys], keys[messageKeys]])
    const said = (await support.getTicket(created.ticket_id)).messages.filter((m) => m.body === "Said once")
    expect(said.map((m) => m.id)).toEqual([message_id])
  })

  it("a key of the caller's own replays the first answer, and with another body is CONFLICT", async () => {
    const idempotencyKey = crypto.randomUUID()
    const first = await support.createTicket({ subject: "Once", body: "x" }, { idempotencyKey })
    const again = await support.createTicket({ subject: "Once", body: "x" }, { idempotencyKey })
    expect(again).toEqual(first)
    const conflict = await apiError(support.createTicket({ subject: "Other", body: "y" }, { idempotencyKey }))
    expect(conflict).toMatchObject({ status: 409, code: "CONFLICT" })
  })

  if (kind === "postgres") {
    it("a retry that meets its first attempt still in flight waits for it, and gets its answer", async () => {
      // the first attempt's transaction holds this lock while it works; a session holding it
      // stands in for an attempt that timed out at the client but is still running
      const idempotencyKey = crypto.randomUUID()
      const lockKey = lockName({ keyId: project.keyId }, idempotencyKey)
      let release: (() => void) | undefined
      const held = service.run(Effect.scoped(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const connection = yield* sql.reserve
        yield* connection.executeRaw("SELECT pg_advisory_lock(hashtextextended($1, 0))", [lockKey])
        yield* Effect.callback<void>((resume) => {
          release = () => resume(Effect.void)
        })
        yield* connection.executeRaw("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockKey])
      })))
      await eventually("the lock to be held", () => release)
      const retries: Array<RetryInfo> = []
      const client = createClient({
        apiKey: project.key,
        baseUrl: service.baseUrl,
        onRetry: (r) => {
          retries.push(r)
          release?.()
        }
      })
      const created = await client.createTicket({ subject: "In flight", body: "x" }, { idempotencyKey })
      await held
      expect(retries).toHaveLength(1)
      expect(retries[0]!.error).toMatchObject({ status: 409, code: "CONFLICT", retryAfterMs: 1000 })
      expect(retries[0]!.delayMs).toBe(1000)
      expect((await support.getTicket(created.ticket_id)).subject).toBe("In flight")

      // a CONFLICT without Retry-After (the key reused for another body) is final
      const reused = await apiError(client.createTicket({ subject: "Other", body: "y" }, { idempotencyKey }))
      expect(reused).toMatchObject({ status: 409, code: "CONFLICT", retryAfterMs: undefined })
      expect(retries).toHaveLength(1)
    })
  }

  it("refuses isInternal: true before sending anything, so a note is never published by mistake", async () => {
    const { ticket_id } = await support.createTicket({ subject: "Internal?", body: "x" })
    const refused = await rejection(support.addMessage(ticket_id, { body: "agents only" }, { isInternal: true as never }))
    expect(refused).toBeInstanceOf(TypeError)
    expect(String(refused)).toContain("operator API")
    const { message_id } = await support.addMessage(ticket_id, { body: "public" }, { isInternal: false })
    expect((await support.getTicket(ticket_id)).messages.map((m) => m.id)).toEqual([message_id])
  })

  it("searchArticles, getArticle and search: typed results, limit and types passed through", async () => {
    const createArticle = (payload: { title: string; body: string; category: string; published?: boolean }) =>
      operator((admin) =>
        admin.admin.createArticle({ params: { pid: project.projectId }, payload, responseMode: "decoded-and-response" })
      )
    for (const title of ["Reconciling ledgers as PDF", "Reconciling ledgers to CSV", "Resetting a password"]) {
      const [, created] = await createArticle({ title, body: `${title}: step by step.`, category: "Billing", published: true })
      expect(created.status).toBe(201)
    }
    await createArticle({ title: "Reconciling ledgers (draft)", body: "Not yet", category: "Billing" })

    const articles = await support.searchArticles("reconciling ledgers")
    expect(articles.total).toBe(2)
    expect(articles.articles.map((a) => a.title).sort()).toEqual(["Reconciling ledgers as PDF", "Reconciling ledgers to CSV"])
    expect(articles.articles[0]).toEqual({
      id: expect.stringMatching(uuid),
      title: expect.any(String),
      slug: expect.any(String),
      excerpt: expect.any(String),
      category: "Billing",
      relevance: expect.any(Number)
    })
    const one = await support.searchArticles("reconciling ledgers", { limit: 1 })
    expect([one.articles.length, one.total]).toEqual([1, 2])

    // a suggestion opens: by the id search gave, or by its slug, with a widget key too
    const hit = articles.articles[0]!
    const widget = createClient({ apiKey: project.widgetKey, baseUrl: service.baseUrl, maxRetries: 0 })
    const opened = await widget.getArticle(hit.id)
    expect(opened).toEqual({
      id: hit.id,
      title: hit.title,
      slug: hit.slug,
      body: `${hit.title}: step by step.`,
      category: "Billing",
      updated_at: expect.stringMatching(/Z$/)
    })
    expect(await support.getArticle(hit.slug)).toEqual(opened)
    const draft = await apiError(support.getArticle("reconciling-ledgers-draft"))
    expect([draft.status, draft.code]).toEqual([404, "NOT_FOUND"])

    const { ticket_id } = await support.createTicket({
      subject: "Reconciling ledgers fails",
      body: "Reconciling ledgers gives a blank page",
      sender_email: "grace@example.com",
      sender_name: "Grace"
    })
    const tickets = await support.search("reconciling ledgers", { types: ["tickets"] })
    expect(tickets.results.map((r) => r.type)).toEqual(["ticket"])
    expect(tickets.results[0]).toMatchObject({ type: "ticket", id: ticket_id, status: "open", ticket_number: expect.any(Number) })
    const everything = await support.search("reconciling ledgers")
    expect(new Set(everything.results.map((r) => r.type))).toEqual(new Set(["ticket", "article"]))
    const contacts = await support.search("grace", { types: ["contacts", "articles"], limit: 5 })
    const contact = contacts.results.find((r) => r.type === "contact")
    expect(contact).toMatchObject({ email: "grace@example.com", name: "Grace" })
    const limited = await support.search("reconciling ledgers", { limit: 1 })
    expect([limited.results.length, limited.total]).toEqual([1, 3])
  })

  it("every error envelope of the service becomes an ApiError with its status, code, message and request id", async () => {
    const validation = await apiError(support.createTicket({ subject: " ", body: "x" }))
    expect(validation).toMatchObject({ status: 400, code: "VALIDATION_ERROR", message: "subject is required" })
    expect(validation.requestId).toMatch(uuid)
    expect(validation).toBeInstanceOf(SupportClientError)
    expect(await apiError(support.searchArticles("x", { limit: 51 }))).toMatchObject({
      status: 400,
      code: "VALIDATION_ERROR",
      message: "limit must be at most 50"
    })
    expect(await apiError(support.search("x", { types: ["tickets", "people" as never] }))).toMatchObject({
      status: 400,
      code: "VALIDATION_ERROR"
    })

    const stranger = createClient({ apiKey: "tf_unknown", baseUrl: service.baseUrl })
    expect(await apiError(stranger.getTicket(crypto.randomUUID()))).toMatchObject({ status: 401, code: "UNAUTHORIZED" })

    const widget = createClient({ apiKey: project.widgetKey, baseUrl: service.baseUrl })
    const forbidden = await apiError(widget.search("anything"))
    expect(forbidden).toMatchObject({ status: 403, code: "FORBIDDEN" })
    expect(forbidden.message).toContain("scope")

    expect(await apiError(support.getTicket(crypto.randomUUID()))).toMatchObject({ status: 404, code: "NOT_FOUND" })
    expect(await apiError(support.getTicket("../../health"))).toMatchObject({ status: 404, code: "NOT_FOUND" })
    const { ticket_id } = await support.createTicket({ subject: "Owned", body: "x", sender_email: "owner@example.com" })
    expect(await apiError(support.getTicket(ticket_id, { contactEmail: "someone@example.com" }))).toMatchObject({
      status: 404,
      code: "NOT_FOUND"
    })
    expect(await apiError(support.addMessage(crypto.randomUUID(), { body: "x" }))).toMatchObject({ status: 404, code: "NOT_FOUND" })

    expect(await apiError(support.createTicket({ subject: "Huge", body: "x".repeat(1_100_000) }))).toMatchObject({
      status: 413,
      code: "PAYLOAD_TOO_LARGE"
    })
  })

  it("RATE_LIMITED from the service carries its Retry-After", async () => {
    const { key } = await service.createProject("Busy")
    const client = createClient({ apiKey: key, baseUrl: service.baseUrl, maxRetries: 0 })
    for (let i = 0; i < 100; i++) await client.searchArticles("x")
    const limited = await apiError(client.searchArticles("x"))
    expect(limited).toMatchObject({ status: 429, code: "RATE_LIMITED" })
    expect(limited.requestId).toMatch(uuid)
    expect(limited.retryAfterMs).toBeGreaterThan(0)
    expect(limited.retryAfterMs).toBeLessThanOrEqual(60_000)
  })

  it("verifyWebhook accepts a real delivery of the service and refuses a tampered one", async () => {
    const receiver = await startStub(() => ({ status: 204 }))
    try {
      const [{ secret }, registered] = await operator((admin) =>
        admin.webhooks.register({
          params: { pid: project.projectId },
          payload: { url: `${receiver.url}/hooks`, events: ["ticket_created"] },
          responseMode: "decoded-and-response"
        })
      )
      expect(registered.status).toBe(201)
      const { ticket_id } = await support.createTicket({ subject: "Signed", body: "x", sender_email: "sig@example.com" })
      const delivery = await eventually("the ticket_created delivery", () =>
        receiver.requests.find((r) => r.body.includes(ticket_id)))
      const signature = delivery.headers["x-service-signature"] as string

      const event = await verifyWebhook({ secret, body: delivery.body, signature })
      expect(event.event).toBe("ticket_created")
      if (event.event !== "ticket_created") throw new Error("narrowing")
      expect(event.data).toMatchObject({
        id: ticket_id,
        project_id: project.projectId,
        subject: "Signed",
        sender_email: "sig@example.com",
        status: "open"
      })
      const bytes = new TextEncoder().encode(delivery.body)
      expect(await verifyWebhook({ secret, body: bytes, signature })).toEqual(event)
      expect(await verifyWebhook({ secret, body: bytes.buffer, signature: signature.toUpperCase().replace("SHA256=", "sha256=") }))
        .toEqual(event)

      const refused = async (attempt: Parameters<typeof verifyWebhook>[0]) => {
        const error = await rejection(verifyWebhook(attempt))
        expect(error).toBeInstanceOf(WebhookVerificationError)
        return (error as Error).message
      }
      const tampered = delivery.body.replace('"Signed"', '"Signed!"')
      expect(await refused({ secret, body: tampered, signature })).toContain("does not match")
      expect(await refused({ secret: `${secret}x`, body: delivery.body, signature })).toContain("does not match")
      expect(await refused({ secret, body: `${delivery.body} `, signature })).toContain("does not match")
      expect(await refused({ secret, body: delivery.body, signature: undefined })).toContain("missing")
      expect(await refused({ secret, body: delivery.body, signature: signature.slice(0, -2) })).toContain("not sha256=")
      expect(await refused({ secret, body: delivery.body, signature: signature.replace("sha256=", "sha1=") }))
        .toContain("not sha256=")
      expect(await rejection(verifyWebhook({ secret, body: JSON.parse(delivery.body), signature }))).toBeInstanceOf(TypeError)
    } finally {
      await receiver.close()
    }
  })

  it("streamTicketEvents yields an agent's reply as it is sent; resumed from its id, exactly what followed", async () => {
    const { ticket_id } = await support.createTicket({ subject: "Streamed", body: "Waiting for an answer" })
    const reply = (body: string) =>
      operator((admin) => admin.admin.addAgentMessage({ params: { pid: project.projectId, id: ticket_id }, payload: { body } }))
    const controller = new AbortController()
    const { client, connections } = watchedClient({ apiKey: project.key, baseUrl: service.baseUrl })
    const live = eventsOf(client.streamTicketEvents(ticket_id, { signal: controller.signal }))
    const first = live.take(1)
    await eventually("the stream to be open", () => connections.find((c) => c.status === 200))
    const { message_id } = await reply("Have you tried turning it off and on again?")
    const [answered] = await first
    expect(answered).toEqual({
      id: expect.stringMatching(/^\d+$/),
      event: "ticket_replied",
      data: {
        event: "ticket_replied",
        timestamp: expect.any(String),
        data: expect.objectContaining({
          id: ticket_id,
          project_id: project.projectId,
          message_id,
          author_type: "agent",
          body: "Have you tried turning it off and on again?"
        })
      }
    })
    // the consumer is done: the signal ends the iteration, without an error
    controller.abort()
    expect(await live.after(5_000)).toBe("ended")

    // two more while nobody listens; resumed after the first, the stream gives exactly those two
    const second = await reply("Second")
    const third = await reply("Third")
    const resumedControl = new AbortController()
    const resumed = eventsOf(
      client.streamTicketEvents(ticket_id, { lastEventId: answered!.id!, signal: resumedControl.signal })
    )
    const missed = await resumed.take(2)
    expect(missed.map((e) => [e.event, (e.data as any).data.message_id])).toEqual([
      ["ticket_replied", second.message_id],
      ["ticket_replied", third.message_id]
    ])
    expect(missed.map((e) => Number(e.id))).toEqual([...missed.map((e) => Number(e.id))].sort((a, b) => a - b))
    expect(Number(missed[0]!.id)).toBeGreaterThan(Number(answered!.id))
    expect(connections.at(-1)!.lastEventId).toBe(answered!.id)
    expect(await resumed.after(500)).toBe("nothing")
    // and it goes on live
    const fourth = await reply("Fourth")
    expect((await resumed.take(1)).map((e) => (e.data as any).data.message_id)).toEqual([fourth.message_id])
    resumedControl.abort()
    expect(await resumed.after(5_000)).toBe("ended")

    // leaving a for-await loop closes the stream too
    const seen: Array<string> = []
    const looping = (async () => {
      for await (const event of client.streamTicketEvents(ticket_id, { lastEventId: answered!.id! })) {
        seen.push(event.id!)
        if (seen.length === 3) break
      }
    })()
    await looping
    expect(seen).toEqual([...missed.map((e) => e.id), expect.any(String)])
  })

  it("streams: reset when the id cannot be resumed from; a 400, 401 or 404 ends the iteration with an ApiError, unretried", async () => {
    const { ticket_id } = await support.createTicket({ subject: "Reset", body: "x" })
    const controller = new AbortController()
    const { client, connections, retries } = watchedClient({ apiKey: project.key, baseUrl: service.baseUrl })
    const stream = eventsOf(client.streamTicketEvents(ticket_id, { lastEventId: "999999999999", signal: controller.signal }))
    const [reset] = await stream.take(1)
    expect(reset).toEqual({ id: undefined, event: "reset", data: { reason: expect.any(String) } })
    // what follows comes as usual
    const { message_id } = await operator((admin) =>
      admin.admin.addAgentMessage({ params: { pid: project.projectId, id: ticket_id }, payload: { body: "After the reset" } }))
    // event ids hold the writing transaction's id, so on a server whose transactions are past a
    // million the ticket's own ticket_created follows the reset too
    let next = (await stream.take(1))[0]!
    if (next.event === "ticket_created") next = (await stream.take(1))[0]!
    expect([next.event, (next.data as any).data.message_id]).toEqual(["ticket_replied", message_id])
    controller.abort()

    const final = async (stream: EventStream) => {
      const before = connections.length
      const error = await rejection(stream.next())
      expect(error).toBeInstanceOf(ApiError)
      expect(connections.length - before).toBe(1)
      return error as ApiError
    }
    expect(await final(client.streamTicketEvents(ticket_id, { lastEventId: "yesterday" }))).toMatchObject({
      status: 400,
      code: "VALIDATION_ERROR",
      message: "Last-Event-ID must be the id of an event this stream sent"
    })
    expect(await final(client.streamTicketEvents(crypto.randomUUID()))).toMatchObject({ status: 404, code: "NOT_FOUND" })
    const stranger = watchedClient({ apiKey: "tf_unknown", baseUrl: service.baseUrl })
    expect(await rejection(stranger.client.streamEvents().next())).toMatchObject({ status: 401, code: "UNAUTHORIZED" })
    expect(stranger.connections).toHaveLength(1)
    expect(retries).toEqual([])
  })

  it("a widget key reads, answers and streams its ticket with the access token; without it 403, with another's 404", async () => {
    const widget = createClient({ apiKey: project.widgetKey, baseUrl: service.baseUrl, maxRetries: 0 })
    const created = await widget.createTicket({ subject: "From the widget", body: "Where is my order?", source: "widget" })
    const other = await widget.createTicket({ subject: "Someone else's", body: "x", source: "widget" })
    const ticketToken = created.access_token
    expect(ticketToken).toMatch(/^tat_/)
    expect(await widget.getTicket(created.ticket_id, { ticketToken })).toMatchObject({
      ticket_id: created.ticket_id,
      subject: "From the widget",
      body: "Where is my order?",
      messages: []
    })
    expect(await apiError(widget.getTicket(created.ticket_id))).toMatchObject({ status: 403, code: "FORBIDDEN" })
    expect(await apiError(widget.getTicket(created.ticket_id, { ticketToken: other.access_token }))).toMatchObject({
      status: 404,
      code: "NOT_FOUND"
    })
    expect(await apiError(widget.addMessage(created.ticket_id, { body: "Any news?" }))).toMatchObject({ status: 403 })
    const { message_id } = await widget.addMessage(created.ticket_id, { body: "Any news?" }, { ticketToken })

    // the stream: refused at once without the token, and with another ticket's
    const { client, connections, retries } = watchedClient({ apiKey: project.widgetKey, baseUrl: service.baseUrl })
    expect(await rejection(client.streamTicketEvents(created.ticket_id).next())).toMatchObject({ status: 403, code: "FORBIDDEN" })
    expect(await rejection(client.streamTicketEvents(created.ticket_id, { ticketToken: other.access_token }).next()))
      .toMatchObject({ status: 404, code: "NOT_FOUND" })
    expect(connections.map((c) => c.status)).toEqual([403, 404])
    expect(retries).toEqual([])

    // with it: the agent's answer as it comes, with the agent's name on the read
    const agent = await operator((admin) =>
      admin.admin.createAgent({ params: { pid: project.projectId }, payload: { email: "sam@desk.example.com", name: "Sam" } }))
    const controller = new AbortController()
    const stream = eventsOf(client.streamTicketEvents(created.ticket_id, { ticketToken, signal: controller.signal }))
    // a new stream starts from the last event this instance has seen, which can be just before the
    // contact's own message above: that event may come first, and no other
    const next = (async () => {
      for (;;) {
        const [event] = await stream.take(1)
        if (!JSON.stringify(event!.data).includes(message_id)) return event
      }
    })()
    await eventually("the stream to be open", () => connections.find((c) => c.status === 200))
    expect(connections.at(-1)!.ticketToken).toBe(ticketToken)
    const answer = await operator((admin) =>
      admin.admin.addAgentMessage({
        params: { pid: project.projectId, id: created.ticket_id },
        payload: { body: "It ships tomorrow.", author_email: agent.email }
      }))
    const event = await next
    expect(event).toMatchObject({ event: "ticket_replied", data: { data: { message_id: answer.message_id, author_type: "agent" } } })
    controller.abort()
    const read = await widget.getTicket(created.ticket_id, { ticketToken })
    expect(read.messages.map((m) => [m.id, m.author_type, m.author_name, m.body])).toEqual([
      [message_id, "contact", null, "Any news?"],
      [answer.message_id, "agent", "Sam", "It ships tomorrow."]
    ])
  })

  it("a verified visitor (visitorToken) lists, reads and streams their tickets, and claims one filed before signing in", async () => {
    const { identity_secret } = await operator((admin) =>
      admin.admin.createIdentitySecret({ params: { pid: project.projectId } }))
    const exp = Math.floor(Date.now() / 1000) + 3600
    const visitorToken = await signVisitor(identity_secret, { sub: "user-42", email: "kim@example.com", name: "Kim", exp })
    const visitor = createClient({ apiKey: project.widgetKey, baseUrl: service.baseUrl, visitorToken, maxRetries: 0 })
    const anonymous = createClient({ apiKey: project.widgetKey, baseUrl: service.baseUrl, maxRetries: 0 })

    const mine = await visitor.createTicket({ subject: "Signed in", body: "From the laptop" })
    const before = await anonymous.createTicket({ subject: "Before signing in", body: "Hello" })
    expect((await visitor.listVisitorTickets()).tickets.map((t) => t.ticket_id)).toEqual([mine.ticket_id])
    // no ticket token needed: the visitor filed it
    expect((await visitor.getTicket(mine.ticket_id)).body).toBe("From the laptop")
    await visitor.addMessage(mine.ticket_id, { body: "And from the phone" })

    expect(await visitor.claimTicket(before.ticket_id, before.access_token)).toEqual({ ticket_id: before.ticket_id })
    const page = await visitor.listVisitorTickets({ limit: 1 })
    expect(page.tickets.map((t) => t.ticket_id)).toEqual([before.ticket_id])
    const rest = await visitor.listVisitorTickets({ limit: 1, cursor: page.next_cursor! })
    expect(rest).toEqual({ tickets: [expect.objectContaining({ ticket_id: mine.ticket_id })], next_cursor: null })
    // a call's own token, on a client without one
    expect((await anonymous.listVisitorTickets({ visitorToken })).tickets).toHaveLength(2)
    expect(await rejection(anonymous.listVisitorTickets())).toBeInstanceOf(TypeError)
    expect(await rejection(anonymous.claimTicket(before.ticket_id, before.access_token))).toBeInstanceOf(TypeError)

    // someone else, verified too, sees none of it; a token of another secret is a 401
    const someoneElse = createClient({
      apiKey: project.widgetKey,
      baseUrl: service.baseUrl,
      visitorToken: await signVisitor(identity_secret, { sub: "user-7", exp }),
      maxRetries: 0
    })
    expect((await someoneElse.listVisitorTickets()).tickets).toEqual([])
    expect(await apiError(someoneElse.getTicket(mine.ticket_id))).toMatchObject({ status: 404, code: "NOT_FOUND" })
    const forged = createClient({
      apiKey: project.widgetKey,
      baseUrl: service.baseUrl,
      visitorToken: await signVisitor("not the secret", { sub: "user-42", exp })
    })
    expect(await apiError(forged.listVisitorTickets())).toMatchObject({ status: 401, code: "UNAUTHORIZED" })

    // the visitor's stream of their own ticket
    const { client, connections } = watchedClient({ apiKey: project.widgetKey, baseUrl: service.baseUrl, visitorToken })
    const controller = new AbortController()
    const stream = eventsOf(client.streamTicketEvents(before.ticket_id, { signal: controller.signal }))
    const next = stream.take(1)
    await eventually("the stream to be open", () => connections.find((c) => c.status === 200))
    const { message_id } = await operator((admin) =>
      admin.admin.addAgentMessage({ params: { pid: project.projectId, id: before.ticket_id }, payload: { body: "Hi Kim" } }))
    expect(((await next)[0]!.data as any).data.message_id).toBe(message_id)
    controller.abort()
  })

  it("uploadFile, then a ticket and a message naming the uploads: the reads list them, downloadAttachment gives the same bytes", async () => {
    const screenshot = randomBytes(200 * 1024)
    const uploaded = await support.uploadFile(screenshot, { filename: "screen shot é.png", contentType: "image/png" })
    expect(uploaded).toEqual({
      upload_id: expect.stringMatching(uuid),
      filename: "screen shot é.png",
      content_type: "image/png",
      size: 200 * 1024,
      sha256: await sha256Hex(screenshot),
      expires_at: expect.any(String)
    })
    const { ticket_id } = await support.createTicket({
      subject: "Broken page",
      body: "See the screenshot",
      attachment_ids: [uploaded.upload_id]
    })
    // a Blob keeps its own type; a File's name is the option's
    const log = new Blob(["line 1\nline 2\n"], { type: "text/plain" })
    const logUpload = await support.uploadFile(log, { filename: "app.log" })
    expect(logUpload).toMatchObject({ content_type: "text/plain", size: log.size })
    const { message_id } = await support.addMessage(ticket_id, { body: "and the log", attachment_ids: [logUpload.upload_id] })

    const ticket = await support.getTicket(ticket_id)
    expect(ticket.attachments).toEqual([{
      id: uploaded.upload_id,
      filename: "screen shot é.png",
      content_type: "image/png",
      size: 200 * 1024,
      sha256: uploaded.sha256,
      url: `/v1/attachments/${uploaded.upload_id}`
    }])
    expect(ticket.messages.map((m) => [m.id, m.attachments.map((a) => [a.filename, a.size, a.content_type])])).toEqual([
      [message_id, [["app.log", log.size, "text/plain"]]]
    ])

    // by the Attachment, its url and its id: the same bytes, and the name from Content-Disposition's filename*
    const attachment = ticket.attachments[0]!
    for (const handle of [attachment, attachment.url, `${service.baseUrl}${attachment.url}`, attachment.id]) {
      const got = await support.downloadAttachment(handle)
      expect(got.bytes).toBeInstanceOf(Uint8Array)
      expect(got.bytes.byteLength).toBe(screenshot.byteLength)
      expect(await sha256Hex(got.bytes)).toBe(attachment.sha256)
      expect(got.filename).toBe("screen shot é.png")
      expect(got.contentType).toBe("image/png")
    }
    const logFile = await support.downloadAttachment(ticket.messages[0]!.attachments[0]!.id)
    expect(new TextDecoder().decode(logFile.bytes)).toBe("line 1\nline 2\n")
    expect(logFile.filename).toBe("app.log")

    // an upload is named once; an unknown file is a 404
    expect(await apiError(support.addMessage(ticket_id, { body: "again", attachment_ids: [uploaded.upload_id] })))
      .toMatchObject({ status: 400, code: "VALIDATION_ERROR" })
    expect(await apiError(support.downloadAttachment(crypto.randomUUID()))).toMatchObject({ status: 404, code: "NOT_FOUND" })
  })

  it("a widget key uploads, and downloads its ticket's file with the access token; without it 403, with another's 404", async () => {
    const widget = createClient({ apiKey: project.widgetKey, baseUrl: service.baseUrl, maxRetries: 0 })
    const bytes = randomBytes(200 * 1024)
    const { upload_id, sha256 } = await widget.uploadFile(new Blob([bytes as Uint8Array<ArrayBuffer>]), {
      filename: "shot.png",
      contentType: "image/png"
    })
    const created = await widget.createTicket({ subject: "From the widget, with a file", body: "x", attachment_ids: [upload_id] })
    const other = await widget.createTicket({ subject: "Someone else's", body: "y" })
    const ticketToken = created.access_token
    const [attachment] = (await widget.getTicket(created.ticket_id, { ticketToken })).attachments
    expect(attachment).toMatchObject({ id: upload_id, filename: "shot.png", content_type: "image/png", sha256 })

    const got = await widget.downloadAttachment(attachment!, { ticketToken })
    expect(await sha256Hex(got.bytes)).toBe(await sha256Hex(bytes))
    expect(got.bytes.byteLength).toBe(bytes.byteLength)
    expect([got.filename, got.contentType]).toEqual(["shot.png", "image/png"])
    expect(await apiError(widget.downloadAttachment(attachment!))).toMatchObject({ status: 403, code: "FORBIDDEN" })
    expect(await apiError(widget.downloadAttachment(attachment!, { ticketToken: other.access_token })))
      .toMatchObject({ status: 404, code: "NOT_FOUND" })
  })

  it("uploadFile: a file over the service's limit is PAYLOAD_TOO_LARGE, unretried; a missing name or another origin is refused before sending", async () => {
    let sent = 0
    const retries: Array<RetryInfo> = []
    const counting = createClient({
      apiKey: project.key,
      baseUrl: service.baseUrl,
      retryBaseDelayMs: 1,
      onRetry: (r) => retries.push(r),
      fetch: (input, init) => (sent++, fetch(input, init))
    })
    const tooLarge = await apiError(counting.uploadFile(new Uint8Array(1024 * 1024 + 1), { filename: "big.bin" }))
    expect(tooLarge).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" })
    expect([sent, retries.length]).toEqual([1, 0])
    expect(await rejection(counting.uploadFile(new Uint8Array(1), { filename: " " }))).toBeInstanceOf(TypeError)
    expect(await rejection(counting.uploadFile("text" as never, { filename: "a.txt" }))).toBeInstanceOf(TypeError)
    const elsewhere = await rejection(counting.downloadAttachment("https://files.example.net/v1/attachments/x"))
    expect(elsewhere).toBeInstanceOf(TypeError)
    expect(String(elsewhere)).toContain("not a URL of the service")
    expect(sent).toBe(1)
  })
})

describe("retries, against a stub", () => {
  const stubs: Array<{ close: () => Promise<void> }> = []
  const stub = async (answer: (n: number) => StubAnswer) => {
    const started = await startStub(answer)
    stubs.push(started)
    return started
  }
  afterAll(async () => {
    await Promise.all(stubs.map((s) => s.close()))
  })
  const ok = { status: 200, body: { articles: [], total: 0 } }
  const rateLimited = (headers: Record<string, string> = {}): StubAnswer => ({
    status: 429,
    headers,
    body: { error: { code: "RATE_LIMITED", message: "rate limit exceeded" } }
  })
  const unavailable: StubAnswer = { status: 503, body: { error: { code: "INTERNAL_ERROR", message: "try later" } } }

  it("429 twice with Retry-After: waits what the service asked, then succeeds on the third attempt", async () => {
    const server = await stub((n) => (n <= 2 ? rateLimited({ "retry-after": "1" }) : ok))
    const retries: Array<RetryInfo> = []
    const client = createClient({ apiKey: "tf_stub", baseUrl: server.url, onRetry: (r) => retries.push(r) })
    expect(await client.searchArticles("x")).toEqual(ok.body)
    expect(server.requests).toHaveLength(3)
    expect(retries.map((r) => [r.attempt, r.delayMs])).toEqual([[2, 1000], [3, 1000]])
    const [a, b, c] = server.requests.map((r) => r.at)
    expect(b! - a!).toBeGreaterThanOrEqual(995)
    expect(c! - b!).toBeGreaterThanOrEqual(995)
    expect(server.requests.every((r) => r.headers.authorization === "Bearer tf_stub")).toBe(true)
  })

  it("Retry-After as an HTTP date is honoured too", async () => {
    const server = await stub((n) => (n === 1 ? rateLimited({ "retry-after": new Date(Date.now() + 2_000).toUTCString() }) : ok))
    const retries: Array<RetryInfo> = []
    const client = createClient({ apiKey: "tf_stub", baseUrl: server.url, onRetry: (r) => retries.push(r) })
    await client.searchArticles("x")
    // HTTP dates have whole seconds, so between one and two seconds remain
    expect(retries[0]!.delayMs).toBeGreaterThan(900)
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(2_000)
  })

  it("429 without Retry-After: exponential backoff with full jitter, up to maxRetries, then the 429", async () => {
    const base = 10
    const runs: Array<Array<number>> = []
    for (let run = 0; run < 5; run++) {
      const server = await stub(() => rateLimited())
      const retries: Array<RetryInfo> = []
      const client = createClient({
        apiKey: "tf_stub",
        baseUrl: server.url,
        maxRetries: 6,
        retryBaseDelayMs: base,
        onRetry: (r) => retries.push(r)
      })
      const error = await apiError(client.createTicket({ subject: "x", body: "y" }))
      expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED", retryAfterMs: undefined })
      expect(server.requests).toHaveLength(7)
      const delays = retries.map((r) => r.delayMs)
      delays.forEach((delay, retry) => {
        expect(delay).toBeGreaterThanOrEqual(0)
        expect(delay).toBeLessThan(base * 2 ** retry)
        // never earlier than the delay it announced
        expect(server.requests[retry + 1]!.at - server.requests[retry]!.at).toBeGreaterThanOrEqual(delay - 5)
      })
      runs.push(delays)
    }
    // the windows double, so late delays are far longer than early ones (their sums cannot overlap:
    // 10 early delays are under 150 ms together; the 10 late ones average 1,200 ms)
    const early = runs.reduce((sum, d) => sum + d[0]! + d[1]!, 0)
    const late = runs.reduce((sum, d) => sum + d[4]! + d[5]!, 0)
    expect(late).toBeGreaterThan(early)
    // jitter: the same retry waits differently from run to run
    expect(new Set(runs.map((d) => d[5])).size).toBeGreaterThan(1)
  })

  it("backoffDelay: full jitter between 0 and min(cap, base·2^retry)", () => {
    expect([0, 1, 2, 3, 4].map((n) => backoffDelay(n, 100, 1_000, () => 0.999_999))).toEqual([99, 199, 399, 799, 999])
    expect(backoffDelay(3, 100, 1_000, () => 0)).toBe(0)
    expect(backoffDelay(30, 100, 1_000, () => 0.5)).toBe(500)
  })

  it("503 on a read and on an idempotent create is retried with the same key; maxRetries: 0 gives the error at once", async () => {
    const server = await stub((n) => (n % 3 === 0 ? { status: 202, body: { ticket_id: "t", ticket_number: 1 } } : unavailable))
    const client = createClient({ apiKey: "tf_stub", baseUrl: server.url, retryBaseDelayMs: 1 })
    expect(await client.createTicket({ subject: "x", body: "y" })).toEqual({ ticket_id: "t", ticket_number: 1 })
    const keys = server.requests.map((r) => r.headers["idempotency-key"])
    expect(keys).toHaveLength(3)
    expect(new Set(keys).size).toBe(1)
    expect(keys[0]).toMatch(uuid)
    expect(new Set(server.requests.map((r) => r.headers["x-request-id"])).size).toBe(1)

    const failing = await stub(() => ({ status: 500, body: { error: { code: "INTERNAL_ERROR", message: "unexpected" } } }))
    const once = createClient({ apiKey: "tf_stub", baseUrl: failing.url, maxRetries: 0 })
    expect(await apiError(once.getTicket("t"))).toMatchObject({ status: 500, code: "INTERNAL_ERROR", message: "unexpected" })
    expect(failing.requests).toHaveLength(1)
    const twice = createClient({ apiKey: "tf_stub", baseUrl: failing.url, maxRetries: 1, retryBaseDelayMs: 1 })
    expect(await apiError(twice.getTicket("t"))).toMatchObject({ status: 500, code: "INTERNAL_ERROR" })
    expect(failing.requests).toHaveLength(3)
  })

  it("other errors are not retried, and an answer without an envelope is UNEXPECTED_RESPONSE", async () => {
    const server = await stub((n) =>
      n === 1
        ? { status: 400, body: { error: { code: "VALIDATION_ERROR", message: "q is required" } } }
        : n === 2
        ? { status: 409, body: { error: { code: "CONFLICT", message: "still in progress" } } }
        : n === 3
        ? { status: 501, body: "<html>Not Implemented</html>" }
        : { status: 200, body: "not json" }
    )
    const client = createClient({ apiKey: "tf_stub", baseUrl: server.url, retryBaseDelayMs: 1 })
    expect(await apiError(client.searchArticles(""))).toMatchObject({ status: 400, code: "VALIDATION_ERROR" })
    expect(await apiError(client.createTicket({ subject: "x", body: "y" }))).toMatchObject({ status: 409, code: "CONFLICT" })
    const proxy = await apiError(client.health())
    expect(proxy).toMatchObject({ status: 501, code: "UNEXPECTED_RESPONSE" })
    expect(proxy.message).toContain("Not Implemented")
    expect(await apiError(client.health())).toMatchObject({ status: 200, code: "UNEXPECTED_RESPONSE" })
    expect(server.requests).toHaveLength(4)
  })

  it("a dropped connection is a NetworkError after the retries; a refused one too", async () => {
    const server = await stub(() => "drop")
    let attempts = 0
    const client = createClient({
      apiKey: "tf_stub",
      baseUrl: server.url,
      maxRetries: 2,
      retryBaseDelayMs: 1,
      fetch: (input, init) => (attempts++, globalThis.fetch(input, init))
    })
    const dropped = await rejection(client.getTicket("t"))
    expect(dropped).toBeInstanceOf(NetworkError)
    expect((dropped as NetworkError).requestId).toMatch(uuid)
    expect(attempts).toBe(3)
    expect(server.requests).toHaveLength(resendsOnDroppedConnection ? 6 : 3)

    const closed = await stub(() => ok)
    await closed.close()
    const refused = createClient({ apiKey: "tf_stub", baseUrl: closed.url, maxRetries: 1, retryBaseDelayMs: 1 })
    expect(await rejection(refused.health())).toBeInstanceOf(NetworkError)
  })

  it("no answer within timeoutMs is a TimeoutError, per attempt", async () => {
    const server = await stub(() => "hang")
    const retries: Array<RetryInfo> = []
    const client = createClient({
      apiKey: "tf_stub",
      baseUrl: server.url,
      // long enough for the stub to have read each attempt before the client gives it up: at
      // 100 ms a loaded machine saw the second attempt aborted before it was read
      timeoutMs: 400,
      maxRetries: 1,
      retryBaseDelayMs: 1,
      onRetry: (r) => retries.push(r)
    })
    const error = await rejection(client.searchArticles("x"))
    expect(error).toBeInstanceOf(TimeoutError)
    expect(error).toMatchObject({ timeoutMs: 400 })
    expect(server.requests).toHaveLength(2)
    expect(retries[0]!.error).toBeInstanceOf(TimeoutError)
    const quicker = await rejection(client.health({ timeoutMs: 50 }))
    expect(quicker).toMatchObject({ timeoutMs: 50 })
  })

  it("the signal aborts a request in flight, a wait before a retry, and a call not yet sent", async () => {
    const server = await stub(() => "hang")
    const client = createClient({ apiKey: "tf_stub", baseUrl: server.url })
    const controller = new AbortController()
    const pending = client.getTicket("t", { signal: controller.signal })
    await eventually("the request to arrive", () => server.requests[0])
    controller.abort()
    const aborted = await rejection(pending)
    expect((aborted as Error).name).toBe("AbortError")
    expect(server.requests).toHaveLength(1)

    const waitingServer = await stub(() => rateLimited({ "retry-after": "30" }))
    const retries: Array<RetryInfo> = []
    const patient = createClient({ apiKey: "tf_stub", baseUrl: waitingServer.url, onRetry: (r) => retries.push(r) })
    const giveUp = new AbortController()
    const started = performance.now()
    const waiting = patient.createTicket({ subject: "Later", body: "x" }, { signal: giveUp.signal })
    await eventually("the first retry to be scheduled", () => retries[0])
    expect(retries[0]!.delayMs).toBe(30_000)
    giveUp.abort(new Error("the user gave up"))
    expect(await rejection(waiting)).toEqual(new Error("the user gave up"))
    expect(waitingServer.requests).toHaveLength(1)
    expect(performance.now() - started).toBeLessThan(30_000)

    const before = await rejection(client.health({ signal: AbortSignal.abort(new Error("never sent")) }))
    expect(before).toEqual(new Error("never sent"))
    expect(server.requests).toHaveLength(1)
  })

  it("a stream reconnects after a 503, a 429 and each end of the stream, resuming from the last id, until a 401", async () => {
    const sse = (body: string): StubAnswer => ({ status: 200, headers: { "content-type": "text/event-stream" }, body })
    const server = await stub((n) =>
      n === 1
        ? unavailable
        : n === 2
        ? sse('id: 1\r\nevent: a\r\ndata: {"n":1}\r\n\r\n: keep-alive\r\n\r\nid: 2\nevent: b\ndata: {"n":\ndata: 2}\n\n')
        : n === 3
        ? rateLimited({ "retry-after": "0" })
        : n === 4
        ? sse('event: reset\rdata: {"reason":"too old"}\r\rid: 3\revent: c\rdata: not json\r\r')
        : { status: 401, body: { error: { code: "UNAUTHORIZED", message: "the key was revoked" } } }
    )
    const retries: Array<RetryInfo> = []
    const client = createClient({ apiKey: "tf_stub", baseUrl: server.url, retryBaseDelayMs: 40, onRetry: (r) => retries.push(r) })
    const seen: Array<StreamEvent> = []
    const ended = await rejection((async () => {
      for await (const event of client.streamEvents({ lastEventId: "0" })) seen.push(event)
    })())
    expect(ended).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "the key was revoked" })
    expect(seen).toEqual([
      { id: "1", event: "a", data: { n: 1 } },
      { id: "2", event: "b", data: { n: 2 } },
      { id: undefined, event: "reset", data: { reason: "too old" } },
      { id: "3", event: "c", data: "not json" }
    ])
    expect(server.requests.map((r) => [r.path, r.headers["last-event-id"], r.headers.accept])).toEqual([
      ["/v1/events", "0", "text/event-stream"],
      ["/v1/events", "0", "text/event-stream"],
      ["/v1/events", "2", "text/event-stream"],
      ["/v1/events", "2", "text/event-stream"],
      ["/v1/events", "3", "text/event-stream"]
    ])
    expect(server.requests.every((r) => r.headers.authorization === "Bearer tf_stub")).toBe(true)
    expect(retries.map((r) => [r.attempt, r.error.constructor.name])).toEqual([
      [2, "ApiError"],
      [3, "NetworkError"],
      [4, "ApiError"],
      [5, "NetworkError"]
    ])
    expect(retries[1]!.error.message).toContain("ended the stream")
    // the backoff starts again after each connection that was answered with a stream: a first
    // window each time (20..40 ms); the 429's Retry-After is what it waits
    expect(retries.map((r) => r.delayMs)).toEqual([
      expect.toSatisfy((d: number) => d >= 20 && d <= 40),
      expect.toSatisfy((d: number) => d >= 20 && d <= 40),
      0,
      expect.toSatisfy((d: number) => d >= 20 && d <= 40)
    ])
  })

  it("a stream: no answer within timeoutMs is retried with a growing backoff; the signal ends it, while connecting or waiting", async () => {
    const server = await stub(() => "hang")
    const retries: Array<RetryInfo> = []
    const client = createClient({ apiKey: "tf_stub", baseUrl: server.url, retryBaseDelayMs: 20, onRetry: (r) => retries.push(r) })
    const controller = new AbortController()
    const iteration = client.streamEvents({ signal: controller.signal, timeoutMs: 200 }).next()
    await eventually("three timeouts", () => retries[2])
    expect(retries.every((r) => r.error instanceof TimeoutError)).toBe(true)
    expect(retries.map((r) => r.delayMs)).toEqual([
      expect.toSatisfy((d: number) => d >= 10 && d <= 20),
      expect.toSatisfy((d: number) => d >= 20 && d <= 40),
      expect.toSatisfy((d: number) => d >= 40 && d <= 80)
    ])
    controller.abort()
    expect(await iteration).toEqual({ done: true, value: undefined })

    // aborted while it waits to reconnect
    const waiting = await stub(() => rateLimited({ "retry-after": "30" }))
    const patient = createClient({ apiKey: "tf_stub", baseUrl: waiting.url, onRetry: (r) => retries.push(r) })
    const giveUp = new AbortController()
    const before = retries.length
    const pending = patient.streamEvents({ signal: giveUp.signal }).next()
    await eventually("the wait to start", () => retries[before])
    expect(retries[before]!.delayMs).toBe(30_000)
    giveUp.abort()
    expect(await pending).toEqual({ done: true, value: undefined })
    expect(waiting.requests).toHaveLength(1)
    // an answer that is not a stream is not one to wait for
    const html = await stub(() => ({ status: 200, headers: { "content-type": "text/html" }, body: "<html>portal</html>" }))
    const portal = createClient({ apiKey: "tf_stub", baseUrl: html.url })
    expect(await rejection(portal.streamEvents().next())).toMatchObject({ status: 200, code: "UNEXPECTED_RESPONSE" })
  })

  it("uploadFile: one multipart part named file, no Idempotency-Key, so a 503 is final and only a 429 is retried", async () => {
    const upload = { upload_id: "u", filename: "a b.txt", content_type: "text/plain", size: 5, sha256: "x", expires_at: "t" }
    const server = await stub((n) => (n === 1 ? unavailable : n === 2 ? rateLimited({ "retry-after": "0" }) : { status: 201, body: upload }))
    const retries: Array<RetryInfo> = []
    const client = createClient({ apiKey: "tf_stub", baseUrl: server.url, retryBaseDelayMs: 1, onRetry: (r) => retries.push(r) })
    const file = new TextEncoder().encode("hello")
    expect(await apiError(client.uploadFile(file, { filename: "a b.txt", contentType: "text/plain" }))).toMatchObject({ status: 503 })
    expect(server.requests).toHaveLength(1)
    expect(await client.uploadFile(file, { filename: "a b.txt", contentType: "text/plain" })).toEqual(upload)
    expect(server.requests).toHaveLength(3)
    expect(retries.map((r) => [r.method, r.path, r.error.constructor.name])).toEqual([["POST", "/v1/uploads", "ApiError"]])
    for (const sent of server.requests) {
      expect(sent.method).toBe("POST")
      expect(sent.path).toBe("/v1/uploads")
      expect(sent.headers.authorization).toBe("Bearer tf_stub")
      expect(sent.headers["idempotency-key"]).toBeUndefined()
      const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(sent.headers["content-type"]!)?.[1]
      expect(boundary).toBeDefined()
      // the retry sends the whole form again
      const parts = sent.body.split(`--${boundary}`)
      expect(parts).toHaveLength(3)
      expect(parts[1]).toMatch(/^\r\nContent-Disposition: form-data; name="file"; filename="a b.txt"\r\nContent-Type: text\/plain\r\n\r\nhello\r\n$/)
      // the closing delimiter; Deno ends the body right after it, Node with a CRLF
      expect(parts[2]).toMatch(/^--(\r\n)?$/)
    }
    // a Uint8Array without a type goes as octet-stream
    await client.uploadFile(file, { filename: "blob" })
    expect(server.requests.at(-1)!.body).toContain("Content-Type: application/octet-stream")
  })

  it("downloadAttachment: a GET, so a 503 is retried; the bytes as sent, the name from filename*, the ticket token sent", async () => {
    const content = "héllo\u0000\u00ff"
    const server = await stub((n) =>
      n === 1 ? unavailable : {
        status: 200,
        headers: {
          "content-type": "text/plain",
          "content-disposition": `attachment; filename="h_llo.txt"; filename*=UTF-8''h%C3%A9llo%20%281%29.txt`
        },
        body: content
      }
    )
    const client = createClient({ apiKey: "tf_stub", baseUrl: `${server.url}/support`, retryBaseDelayMs: 1 })
    const got = await client.downloadAttachment("0b5e2a5c-8a7f-4b1e-9d6b-1d2f3c4b5a69", { ticketToken: "tat_x" })
    expect(got.bytes).toEqual(new TextEncoder().encode(content))
    expect(got.filename).toBe("héllo (1).txt")
    expect(got.contentType).toBe("text/plain")
    expect(server.requests.map((r) => [r.method, r.path, r.headers["x-ticket-token"], r.headers.accept])).toEqual([
      ["GET", "/support/v1/attachments/0b5e2a5c-8a7f-4b1e-9d6b-1d2f3c4b5a69", "tat_x", "*/*"],
      ["GET", "/support/v1/attachments/0b5e2a5c-8a7f-4b1e-9d6b-1d2f3c4b5a69", "tat_x", "*/*"]
    ])
    // an attachment's url is the service's path: the prefix of baseUrl goes before it
    await client.downloadAttachment({ id: "a", filename: "x", content_type: "", size: 0, sha256: "", url: "/v1/attachments/a" })
    expect(server.requests.at(-1)!.path).toBe("/support/v1/attachments/a")
  })

  it("filenameOf: filename* (UTF-8 or ISO-8859-1) before filename, quoted or not; none is undefined", () => {
    expect(filenameOf(`attachment; filename="screen shot _.png"; filename*=UTF-8''screen%20shot%20%C3%A9.png`)).toBe("screen shot é.png")
    expect(filenameOf(`attachment; filename*=utf-8'en'%E2%82%AC%20rates.txt`)).toBe("€ rates.txt")
    expect(filenameOf(`attachment; filename*=iso-8859-1''caf%E9.txt`)).toBe("café.txt")
    expect(filenameOf(`attachment; filename="a \\"b\\".txt"`)).toBe(`a "b".txt`)
    expect(filenameOf(`attachment; filename=plain.txt`)).toBe("plain.txt")
    // a broken encoding falls back to the plain name
    expect(filenameOf(`attachment; filename="fallback.txt"; filename*=UTF-8''%E2%82`)).toBe("fallback.txt")
    expect(filenameOf("attachment")).toBeUndefined()
    expect(filenameOf(null)).toBeUndefined()
  })

  it("refuses bad settings at once", () => {
    expect(() => createClient({ apiKey: "", baseUrl: "http://127.0.0.1" })).toThrow("apiKey is required")
    expect(() => createClient({ apiKey: "tf_x", baseUrl: "support.example.com" })).toThrow("baseUrl")
    expect(() => createClient({ apiKey: "tf_x", baseUrl: "ftp://example.com" })).toThrow("baseUrl")
    expect(() => createClient({ apiKey: "tf_x", baseUrl: "http://127.0.0.1", maxRetries: -1 })).toThrow("maxRetries")
  })

  it("keeps a path prefix of baseUrl and sends the key, JSON and its user agent", async () => {
    const server = await stub(() => ok)
    const client = createClient({ apiKey: "tf_stub", baseUrl: `${server.url}/support/`, userAgent: "acme-app/2" })
    await client.search("a b&c", { types: ["tickets", "contacts"], limit: 5 })
    await client.addMessage("a/b", { body: "hi" })
    const [search, message] = server.requests
    expect(search!.path).toBe("/support/v1/search?q=a+b%26c&types=tickets%2Ccontacts&limit=5")
    expect(search!.headers["user-agent"]).toBe("acme-app/2")
    expect(message!.path).toBe("/support/v1/tickets/a%2Fb/messages")
    expect(message!.headers["content-type"]).toBe("application/json")
    expect(JSON.parse(message!.body)).toEqual({ body: "hi" })
  })
})

describe.each(databaseKinds)("an event stream while the service restarts, on %s", (kind) => {
  it("reconnects by itself when the service ends the stream, and resumes with exactly what it missed", async () => {
    // the database outlives both instances; the second listens on the first one's port
    const database = Effect.runSync(Scope.make())
    const instances: Array<ManagedRuntime.ManagedRuntime<any, any>> = []
    const start = async (env: Record<string, string>, port?: number) => {
      const runtime = ManagedRuntime.make(testServer(kind, {}, env, { port }))
      instances.push(runtime)
      return { runtime, server: await runtime.runPromise(Effect.service(TestServer)) }
    }
    try {
      const env = await Effect.runPromise(freshDatabase(kind).pipe(Scope.provide(database)))
      const first = await start(env)
      const baseUrl = first.server.baseUrl
      const { key } = await first.runtime.runPromise(createProject(first.server))
      const support = createClient({ apiKey: key, baseUrl })
      const { client, connections, retries, gate } = watchedClient({ apiKey: key, baseUrl })
      const controller = new AbortController()
      const stream = eventsOf(client.streamEvents({ signal: controller.signal }))
      const created = (events: ReadonlyArray<StreamEvent>) => events.map((e) => [e.event, (e.data as any).data.id])

      const firstEvent = stream.take(1)
      await eventually("the stream to be open", () => connections.find((c) => c.status === 200))
      const one = await support.createTicket({ subject: "Before the restart", body: "x" })
      const [seen] = await firstEvent
      expect(created([seen!])).toEqual([["ticket_created", one.ticket_id]])

      // the instance stops while the stream is read on (as a loop waits for its next event): the
      // stream ends from the service's side, and the client connects again by itself
      const missedEvents = stream.take(2, 60_000)
      await first.runtime.dispose()
      await eventually("a reconnect refused while nothing listens", () =>
        retries.length >= 2 ? retries : undefined)
      expect(retries[0]!.error).toBeInstanceOf(NetworkError)
      expect(retries[0]!.error.message).toContain("ended the stream")
      expect(retries[1]!.error).toBeInstanceOf(NetworkError)

      // while the client is held back, the next instance starts and two tickets are filed
      let release!: () => void
      gate.hold = new Promise<void>((resolve) => (release = resolve))
      const second = await start(env, Number(new URL(baseUrl).port))
      expect(second.server.baseUrl).toBe(baseUrl)
      const two = await support.createTicket({ subject: "While it was away", body: "x" })
      const three = await support.createTicket({ subject: "Also while away", body: "x" })
      gate.hold = undefined
      release()

      const missed = await missedEvents
      expect(created(missed)).toEqual([["ticket_created", two.ticket_id], ["ticket_created", three.ticket_id]])
      const resumedWith = connections.filter((c) => c.status === 200)
      expect(resumedWith.map((c) => c.lastEventId)).toEqual([null, seen!.id])
      const four = await support.createTicket({ subject: "After the restart", body: "x" })
      expect(created(await stream.take(1))).toEqual([["ticket_created", four.ticket_id]])
      // nothing twice, nothing more
      expect(await stream.after(500)).toBe("nothing")
      const ids = [seen!, ...missed].map((e) => Number(e.id))
      expect(ids).toEqual([...ids].sort((a, b) => a - b))
      controller.abort()
      expect(await stream.after(5_000)).toBe("ended")
    } finally {
      for (const runtime of instances.reverse()) await runtime.dispose()
      await Effect.runPromise(Scope.close(database, Exit.void))
    }
  }, 120_000)
})
