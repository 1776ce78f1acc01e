import { Clock, Context, DateTime, Effect, Layer, Option, Result, Schema } from "effect"
import { AgentsRepo } from "../Admin/Repo.ts"
import { Attachments } from "../Attachments/Attachments.ts"
import { AppConfig } from "../Config.ts"
import { type Cursor, type CursorScope, cursorsOf, pageOf } from "../Domain/Cursor.ts"
import { NotFound, ValidationError } from "../Domain/Errors.ts"
import * as Events from "../Domain/Events.ts"
import { slaUpdateJob } from "../Domain/Sla.ts"
import { type MessageId, type ProjectId, TicketId } from "../Domain/Ids.ts"
import { contactNotifyJob, eventJobs, type NewJob, notifyJob, ticketCreatedJobs } from "../Domain/Jobs.ts"
import type {
  AddMessageInput,
  AgentMessageInput,
  ContactTicketList,
  CreateTicketInput,
  MessageCreated,
  TicketCreated,
  TicketGuard,
  TicketList,
  TicketListQuery,
  TicketOrder,
  UpdateTicketInput
} from "../Domain/Ticket.ts"
import type { NewFile } from "../Domain/Attachment.ts"
import type { VerifiedVisitor } from "../Domain/Visitor.ts"
import { CursorKey } from "../Projects/CursorKey.ts"
import { ContactsRepo } from "./ContactsRepo.ts"
import { MessagesRepo } from "./MessagesRepo.ts"
import { type ListedTicket, type NewTicketRow, ownerOf, type TicketFilter, type TicketPage, TicketsRepo } from "./TicketsRepo.ts"
import { CustomFieldsRepo } from "../Fields/Repo.ts"
import { customFieldSort } from "../Domain/Ticket.ts"
import {
  checkValues,
  type CustomFieldInput,
  type CustomFieldValues,
  type FieldDefinition,
  fitText,
  notAField
} from "../Domain/CustomField.ts"

const ticketNotFound = new NotFound({ message: "ticket not found" })
const isTicketId = Schema.is(TicketId)

const cursorAfter = (order: TicketPage["order"]) => ({ ticket, updatedKey, customSortKey, slaKey }: ListedTicket): Cursor =>
  typeof order === "object"
    ? { order: "custom_field", value: customSortKey, number: ticket.ticket_number }
    : order === "created"
    ? { order, number: ticket.ticket_number }
    : order === "sla_due"
    ? { order, at: slaKey, id: ticket.ticket_id }
    : { order, at: updatedKey, id: ticket.ticket_id }

const nowIso = Effect.map(DateTime.now, DateTime.formatIso)

export type { TicketGuard, TicketOwner } from "../Domain/Ticket.ts"

/**
 * What a message brings besides its text: files that came with it (a mail's), and work that must
 * commit or roll back with it (recording the mail that carried it). Uploads are named in the input.
 */
export interface Extras<E = never> {
  readonly files?: ReadonlyArray<NewFile> | undefined
  readonly within?: ((written: { readonly ticketId: TicketId; readonly messageId: MessageId | null }) => Effect.Effect<void, E>) | undefined
}

const hasExtras = (extras: Extras<unknown>, uploads: ReadonlyArray<string> | null | undefined) =>
  (extras.files?.length ?? 0) > 0 || extras.within !== undefined || (uploads?.length ?? 0) > 0

/** Tag names de-duplicated case-insensitively; the first spelling wins. */
const distinctTags = (tags: ReadonlyArray<string>) => {
  const seen = new Map<string, string>()
  for (const tag of tags) if (!seen.has(tag.toLowerCase())) seen.set(tag.toLowerCase(), tag)
  return [...seen.values()]
}

export class Tickets extends Context.Service<Tickets>()("app/Tickets", {
  make: Effect.gen(function*() {
    const repo = yield* TicketsRepo
    const messages = yield* MessagesRepo
    const contacts = yield* ContactsRepo
    const agents = yield* AgentsRepo
    const attachments = yield* Attachments
    const cursorKey = yield* CursorKey
    const config = yield* AppConfig
    const errorTracker = config.errorTracker !== "none"
    const customFields = yield* CustomFieldsRepo

    const invalid = (message: string) => new ValidationError({ message })

    /** `input` checked against the project's fields, read only now that some values came. */
    const checkCustomFields = (projectId: ProjectId, input: CustomFieldInput) =>
      Effect.flatMap(customFields.definitions(projectId), (fields) => {
        const checked = checkValues(fields, input)
        return "problem" in checked ? Effect.fail(invalid(checked.problem)) : Effect.succeed(checked.values)
      })

    /** A new ticket's values: null (a column left empty) when there are none to set. */
    const valuesOnCreate = (projectId: ProjectId, input: CustomFieldInput) =>
      Object.keys(input).length === 0
        ? Effect.succeed(null)
        : Effect.map(checkCustomFields(projectId, input), ({ set }) => Object.keys(set).length === 0 ? null : set)

    /**
     * The list's order (a custom field's by its definition) and its custom field filter, read as
     * the field's type; the project's fields are read only when either names one.
     */
    const listTerms = (
      projectId: ProjectId,
      query: TicketListQuery
    ): Effect.Effect<
      { readonly order: TicketPage["order"]; readonly customField: TicketFilter["customField"] },
      ValidationError
    > => Effect.gen(function*() {
      const sort = query.sort ?? "created"
      const sortKey = sort.startsWith(customFieldSort) ? sort.slice(customFieldSort.length) : undefined
      if (sortKey === undefined && query.custom_field === undefined) {
        return { order: sort as TicketOrder, customField: undefined }
      }
      const fields: ReadonlyMap<string, FieldDefinition> = yield* customFields.definitions(projectId)
      let order: TicketPage["order"] = sort as TicketOrder
      if (sortKey !== undefined) {
        const field = fields.get(sortKey)
        if (field === undefined) return yield* invalid(`sort custom_field:${sortKey} ${notAField}`)
        order = { key: field.key, type: field.type }
      }
      if (query.custom_field === undefined) return { order, customField: undefined }
      const colon = query.custom_field.indexOf(":")
      const key = query.custom_field.slice(0, colon)
      const field = fields.get(key)
      if (field === undefined) return yield* invalid(`custom_field ${key} ${notAField}`)
      const fitted = fitText(field, query.custom_field.slice(colon + 1))
      if ("problem" in fitted) return yield* invalid(`custom_field ${key} ${fitted.problem}`)
      return { order, customField: { key, value: fitted.value } }
    })

    /**
     * The files of a message and the caller's work, in the message's transaction. For a new
     * ticket they run before its row is written (their references to it are checked at commit),
     * so the project's lock that numbering takes is held only from that row to the commit.
     */
    const withExtras = <E>(
      projectId: ProjectId,
      written: { readonly ticketId: TicketId; readonly messageId: MessageId | null; readonly newTicket: boolean },
      uploads: ReadonlyArray<string> | null | undefined,
      extras: Extras<E>
    ) =>
      Effect.gen(function*() {
        const where = { ticketId: written.ticketId, messageId: written.messageId }
        if (extras.within !== undefined) yield* extras.within(where)
        const named = uploads == null
          ? []
          : yield* attachments.attachUploads(projectId, written.ticketId, written.messageId, uploads, written.newTicket)
        const carried = extras.files === undefined
          ? []
          : yield* attachments.storeFiles(projectId, written.ticketId, written.messageId, extras.files, written.newTicket)
        return [...named, ...carried]
      })

    type CreateOptions<E> = { readonly senderVerified: boolean; readonly visitor?: VerifiedVisitor | undefined } & Extras<E>

    /** A new ticket's row and outbox jobs, as one statement writes them; `customFields` already checked. */
    const prepare = Effect.fnUntraced(function*<E>(
      projectId: ProjectId,
      input: CreateTicketInput,
      options: CreateOptions<E>,
      customFields: CustomFieldValues | null = null
    ) {
      // randomUUID makes a uuid: the id's check is for text that comes from outside
      const id = TicketId.make(crypto.randomUUID(), { disableChecks: true })
      const createdAt = yield* nowIso
      const priority = input.priority ?? "p3_medium"
      // what the site's backend signed wins over what was typed, and vouches for the sender
      const visitor = options.visitor
      const senderEmail = visitor?.email ?? input.sender_email ?? null
      const senderName = visitor?.name ?? (input.sender_name || null)
      const senderVerified = options.senderVerified || (visitor !== undefined && visitor.email !== null)
      const event = Events.ticketCreated({
        id,
        project_id: projectId,
        subject: input.subject,
        status: "open",
        priority,
        sender_email: senderEmail,
        created_at: createdAt,
        custom_fields: customFields
      })
      const row: NewTicketRow = {
        id,
        projectId,
        subject: input.subject,
        body: input.body,
        priority,
        priorityGiven: input.priority != null,
        source: input.source ?? "api",
        senderEmail,
        senderName,
        senderVerified,
        metadata: input.metadata ?? null,
        createdAt,
        visitorSub: visitor?.sub ?? null,
        customFields
      }
      return { id, row, jobs: ticketCreatedJobs(event, { errorTracker }) }
    })

    // untraced on the hot paths: a traced function captures a stack and opens a span on every
    // call, some 5 µs even with no tracer installed
    /**
     * `senderVerified` says whether the caller vouches for the sender fields (a full key does, a
     * widget key's visitor cannot): unverified ones may create a contact but never change one.
     * Left out, they are unverified, so a caller that forgets to decide trusts nobody.
     */
    const create = Effect.fnUntraced(function*<E = never>(
      projectId: ProjectId,
      input: CreateTicketInput,
      options: CreateOptions<E> = { senderVerified: false }
    ) {
      // checked before anything is written: a value that does not fit leaves no trace
      const customFields = input.custom_fields == null ? null : yield* valuesOnCreate(projectId, input.custom_fields)
      const { id, row, jobs } = yield* prepare(projectId, input, options, customFields)
      const tags = distinctTags(input.tags ?? [])
      const write = Effect.gen(function*() {
        yield* withExtras(projectId, { ticketId: id, messageId: null, newTicket: true }, input.attachment_ids, options)
        const ticketNumber = yield* repo.insertTicket(row, jobs)
        if (tags.length > 0) yield* repo.tagTicket(projectId, id, tags)
        return { ticket_id: id, ticket_number: ticketNumber } satisfies Omit<TicketCreated, "access_token">
      })
      // a lone statement is atomic by itself; tags and files add statements, and so a transaction
      return yield* (tags.length === 0 && !hasExtras(options, input.attachment_ids) ? write : repo.withTransaction(write))
    })

    /**
     * Several creates in one transaction whose tickets go in one statement, so the projects'
     * numbering locks are taken once for all of them and held only from that statement to the
     * commit. Each create's files and work run first, each in a savepoint: one that fails leaves
     * nothing and its create alone answers its error; the others are written. Tags and custom fields are not taken.
     */
    const createTogether = <E>(
      creates: ReadonlyArray<{ readonly projectId: ProjectId; readonly input: CreateTicketInput; readonly options: CreateOptions<E> }>
    ) =>
      repo.withTransaction(Effect.gen(function*() {
        const prepared = yield* Effect.forEach(creates, ({ projectId, input, options }) =>
          Effect.flatMap(prepare(projectId, input, options), (ticket) =>
            Effect.map(
              Effect.result(repo.withTransaction(
                withExtras(projectId, { ticketId: ticket.id, messageId: null, newTicket: true }, input.attachment_ids, options)
              )),
              (extras) => ({ ticket, extras })
            )))
        const kept = prepared.filter(({ extras }) => Result.isSuccess(extras))
        const numbers = kept.length === 0 ? [] : yield* repo.insertTickets(kept.map(({ ticket }) => ticket))
        const numberOf = new Map(kept.map(({ ticket }, i) => [ticket.id, numbers[i]!]))
        return prepared.map(({ ticket, extras }) =>
          Result.map(extras, () => ({ ticket_id: ticket.id, ticket_number: numberOf.get(ticket.id)! }))
        )
      }))

    const get = Effect.fnUntraced(function*(projectId: ProjectId, ticketId: TicketId, guard: TicketGuard) {
      const found = yield* repo.findPublic(projectId, ticketId)
      if (Option.isNone(found) || !guard({ ticketId, ...found.value })) return yield* ticketNotFound
      return found.value.ticket
    })

    /** Adds an anonymously filed ticket to a verified visitor's list; one of another visitor's stays theirs. */
    const claim = Effect.fn("Tickets.claim")(function*(
      projectId: ProjectId,
      ticketId: TicketId,
      guard: TicketGuard,
      visitor: VerifiedVisitor
    ) {
      return yield* repo.withTransaction(Effect.gen(function*() {
        const locked = yield* repo.lockTicket(projectId, ticketId)
        if (Option.isNone(locked)) return yield* ticketNotFound
        const ticket = locked.value
        const owner = { ticketId, senderEmail: ticket.sender_email, visitorSub: ticket.visitor_sub }
        if (!guard(owner) || (ticket.visitor_sub !== null && ticket.visitor_sub !== visitor.sub)) {
          return yield* ticketNotFound
        }
        if (ticket.visitor_sub === null) yield* repo.claimForVisitor(ticketId, visitor.sub)
        return { ticket_id: ticketId }
      }))
    })

    /**
     * The ticket a message to `named` goes to, locked: `named` itself, or, once it was merged, the
     * ticket it was merged into (a merge keeps every pointer one step long). `guard` is asked of
     * the ticket named, whose proof the caller brings.
     */
    const lockForMessage = Effect.fnUntraced(function*(projectId: ProjectId, named: TicketId, guard?: TicketGuard) {
      const locked = yield* repo.lockWithTarget(projectId, named)
      const ticket = locked.find((row) => row.id === named)
      if (ticket === undefined || (guard !== undefined && !guard(ownerOf(ticket)))) return yield* ticketNotFound
      if (ticket.merged_into_id == null) return ticket
      const target = locked.find((row) => row.id === ticket.merged_into_id)
      if (target !== undefined) return target
      // its target was merged on while this waited for the locks, which that merge has let go
      const moved = yield* repo.lockTicket(projectId, ticket.merged_into_id)
      if (Option.isNone(moved)) return yield* ticketNotFound
      return moved.value
    })

    const addMessage = Effect.fnUntraced(function*<E = never>(
      projectId: ProjectId,
      named: TicketId,
      input: AddMessageInput,
      guard: TicketGuard,
      extras: Extras<E> & { readonly contactName?: string | null | undefined } = {}
    ) {
      return yield* repo.withTransaction(Effect.gen(function*() {
        const ticket = yield* lockForMessage(projectId, named, guard)
        const ticketId = ticket.id
        const contactEmail = input.contact_email ?? null
        const createdAt = yield* nowIso
        const contactId = contactEmail === null
          ? null
          : yield* contacts.upsertContact(projectId, contactEmail, extras.contactName ?? null)
        const messageId = yield* messages.insertMessage({
          projectId,
          ticketId,
          authorType: "contact",
          contactId,
          agentId: null,
          body: input.body,
          internal: false,
          createdAt
        })
        const files = yield* withExtras(projectId, { ticketId, messageId, newTicket: false }, input.attachment_ids, extras)
        const reopens = ticket.status === "resolved" || ticket.status === "closed"
        yield* repo.updateTicket(ticketId, { status: reopens ? "open" : undefined, updatedAt: createdAt })
        const jobs: Array<NewJob> = [
          ...eventJobs(Events.ticketReplied({
            ticket_id: ticketId,
            project_id: projectId,
            message_id: messageId,
            author_type: "contact",
            author_name: null,
            body: input.body,
            contact_email: contactEmail,
            attachments: files,
            created_at: createdAt
          })),
          ...Events.changeEvents(projectId, ticket, { status: reopens ? "open" : undefined }, createdAt)
            .flatMap((event) => eventJobs(event)),
          ...(ticket.assignee === null ? [] : [notifyJob({
            projectId,
            ticketId,
            agentId: ticket.assignee.id,
            messageId,
            reason: "ticket_replied"
          }, createdAt)]),
          // a reply reopens a resolved ticket, whose resolution target is unmet again
          slaUpdateJob(projectId, ticketId, createdAt)
        ]
        yield* repo.enqueue(jobs)
        return { message_id: messageId } satisfies MessageCreated
      }))
    })

    const adminGet = Effect.fn("Tickets.adminGet")(function*(projectId: ProjectId, ticketId: TicketId) {
      const ticket = yield* repo.findAdmin(projectId, ticketId)
      if (Option.isNone(ticket)) return yield* ticketNotFound
      return ticket.value
    })

    const adminUpdate = Effect.fn("Tickets.adminUpdate")(function*(
      projectId: ProjectId,
      ticketId: TicketId,
      input: UpdateTicketInput
    ) {
      yield* repo.withTransaction(Effect.gen(function*() {
        const ticket = yield* repo.lockTicket(projectId, ticketId)
        if (Option.isNone(ticket)) return yield* ticketNotFound
        const assignee = input.assignee_email == null ? undefined : yield* Effect.flatMap(
          agents.findByEmail(projectId, input.assignee_email),
          Option.match({
            onNone: () =>
              Effect.fail(new ValidationError({ message: "assignee_email must be the address of an agent of this project" })),
            onSome: Effect.succeed
          })
        )
        const updatedAt = yield* nowIso
        const status = input.status ?? undefined
        yield* repo.updateTicket(ticketId, {
          status,
          priority: input.priority ?? undefined,
          category: input.category ?? undefined,
          assigneeId: input.assignee_email === null ? null : assignee?.id,
          customFields: input.custom_fields == null ? undefined : yield* checkCustomFields(projectId, input.custom_fields),
          updatedAt
        })
        const movesSla = input.status != null || input.priority != null || input.category != null
        yield* repo.enqueue([
          ...Events.changeEvents(projectId, ticket.value, { status, assignee }, updatedAt).flatMap((event) => eventJobs(event)),
          ...(movesSla || Object.keys(input.custom_fields ?? {}).length > 0 ? [slaUpdateJob(projectId, ticketId, updatedAt)] : [])
        ])
      }))
      return yield* adminGet(projectId, ticketId)
    })

    const addAgentMessage = Effect.fn("Tickets.addAgentMessage")(function*<E = never>(
      projectId: ProjectId,
      named: TicketId,
      input: AgentMessageInput,
      extras: Extras<E> = {}
    ) {
      return yield* repo.withTransaction(Effect.gen(function*() {
        const ticket = yield* lockForMessage(projectId, named)
        const ticketId = ticket.id
        const author = input.author_email == null ? Option.none() : yield* agents.findByEmail(projectId, input.author_email)
        if (input.author_email != null && Option.isNone(author)) {
          return yield* new ValidationError({ message: "author_email must be the address of an agent of this project" })
        }
        const createdAt = yield* nowIso
        const internal = input.internal ?? false
        const messageId = yield* messages.insertMessage({
          projectId,
          ticketId,
          authorType: "agent",
          contactId: null,
          agentId: Option.match(author, { onNone: () => null, onSome: (agent) => agent.id }),
          body: input.body,
          internal,
          createdAt
        })
        const files = yield* withExtras(projectId, { ticketId, messageId, newTicket: false }, input.attachment_ids, extras)
        yield* repo.updateTicket(ticketId, { updatedAt: createdAt })
        if (!internal) {
          const contactId = ticket.contact_id
          yield* repo.enqueue([
            ...eventJobs(Events.ticketReplied({
              ticket_id: ticketId,
              project_id: projectId,
              message_id: messageId,
              author_type: "agent",
              author_name: Option.match(author, { onNone: () => null, onSome: (agent) => agent.name }),
              body: input.body,
              contact_email: null,
              attachments: files,
              created_at: createdAt
            })),
            // written here, in the reply's transaction, so every caller (API, CLI) mails the contact
            ...(contactId === null ? [] : [contactNotifyJob({
              projectId,
              ticketId,
              contactId,
              messageId,
              reason: "agent_replied"
            }, createdAt)]),
            // the first public reply meets the first-response target
            slaUpdateJob(projectId, ticketId, createdAt)
          ])
        }
        return { message_id: messageId } satisfies MessageCreated
      }))
    })

    /** One page of the project's tickets that pass every filter given; `query.limit` defaults to 25. */
    const list = Effect.fn("Tickets.list")(function*(projectId: ProjectId, query: TicketListQuery) {
      const { order, customField } = yield* listTerms(projectId, query)
      const limit = query.limit ?? 25
      const filter: TicketFilter = {
        customField,
        status: query.status,
        priority: query.priority,
        category: query.category,
        source: query.source,
        assignee: query.assignee,
        tag: query.tag,
        contactEmail: query.contact_email,
        text: query.q
      }
      const sla = query.sla === undefined ? undefined : [query.sla, query.sla_within ?? 60] as const
      // the cursor belongs to the filter as asked (minutes), not to the instant it was read at
      const cursors = cursorsOf(cursorKey, { list: "tickets", projectId, query: [order, filter, ...(sla ?? [])] })
      const slaFilter: TicketFilter["sla"] = sla === undefined
        ? undefined
        : sla[0] === "breached"
        ? { state: "breached" }
        : { state: "at_risk", before: new Date((yield* Clock.currentTimeMillis) + sla[1] * 60_000).toISOString() }
      const after = yield* cursors.read(query.cursor, typeof order === "object" ? "custom_field" : order)
      const rows = yield* repo.listTickets(projectId, slaFilter === undefined ? filter : { ...filter, sla: slaFilter }, {
        order,
        after,
        rows: limit + 1
      })
      const page = pageOf(rows, limit, (row) => row.ticket, cursorAfter(order), cursors.encode)
      return { tickets: page.items, next_cursor: page.next_cursor } satisfies TicketList
    })

    /**
     * One page of the tickets `filter` picks (a contact's, or a verified visitor's), newest first,
     * with the public read's fields and whether the sender is known to have filed it: what the
     * operator's list adds stays with the operator. `limit` defaults to 10.
     */
    const listOwned = (
      projectId: ProjectId,
      owner: { readonly list: CursorScope["list"]; readonly filter: TicketFilter; readonly by: string },
      query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }
    ) =>
      Effect.gen(function*() {
        const cursors = cursorsOf(cursorKey, { list: owner.list, projectId, query: [owner.by] })
        const after = yield* cursors.read(query.cursor, "created")
        const limit = query.limit ?? 10
        const rows = yield* repo.listTickets(projectId, owner.filter, { order: "created", after, rows: limit + 1, sla: false })
        const page = pageOf(
          rows,
          limit,
          ({
            ticket: {
              assignee: _a,
              sender_email: _e,
              sender_name: _n,
              source: _s,
              tags: _t,
              sla_due_at: _d,
              sla_breached: _b,
              ...fields
            }
          }) => fields,
          cursorAfter("created"),
          cursors.encode
        )
        return { tickets: page.items, next_cursor: page.next_cursor } satisfies ContactTicketList
      })

    const listForContact = Effect.fn("Tickets.listForContact")(function*(
      projectId: ProjectId,
      query: { readonly contact_email: string; readonly limit?: number | undefined; readonly cursor?: string | undefined }
    ) {
      // addresses match whatever their case, and so does the list a cursor belongs to
      const by = query.contact_email.toLowerCase()
      return yield* listOwned(projectId, { list: "contact_tickets", filter: { contactEmail: query.contact_email }, by }, query)
    })

    /** A verified visitor's tickets in the project, filed on any device. */
    const listForVisitor = Effect.fn("Tickets.listForVisitor")(function*(
      projectId: ProjectId,
      visitor: VerifiedVisitor,
      query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }
    ) {
      return yield* listOwned(projectId, { list: "visitor_tickets", filter: { visitorSub: visitor.sub }, by: visitor.sub }, query)
    })

    /** The id of a ticket named by its id or by its number, as an operator at a terminal names it. */
    const findId = Effect.fn("Tickets.findId")(function*(projectId: ProjectId, ticket: string) {
      if (isTicketId(ticket)) return ticket
      const number = /^#?\d{1,9}$/.test(ticket) ? Number(ticket.replace("#", "")) : undefined
      const found = number === undefined ? Option.none() : yield* repo.findIdByNumber(projectId, number)
      if (Option.isNone(found)) return yield* ticketNotFound
      return found.value
    })

    return { create, createTogether, get, claim, addMessage, adminGet, adminUpdate, addAgentMessage, list, listForContact, listForVisitor, findId }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([TicketsRepo.layer, MessagesRepo.layer, ContactsRepo.layer, AgentsRepo.layer, CursorKey.layer, Attachments.layer, CustomFieldsRepo.layer])
  )
}
