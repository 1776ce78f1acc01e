import { Clock, Context, Effect, Layer } from "effect"
import { type AuditPage, type AuditQuery } from "../Domain/Audit.ts"
import { cursorsOf, pageOf } from "../Domain/Cursor.ts"
import { ValidationError } from "../Domain/Errors.ts"
import { CursorKey } from "../Projects/CursorKey.ts"
import { AuditRepo, type NewAuditEntry } from "./Repo.ts"

/** A page of the log when the caller names no limit. */
const defaultLimit = 50

/**
 * The operator's audit log: every action that changed something, through the operator API or
 * the CLI, appended as it happened; read newest first with filters and cursor paging.
 */
export class Audit extends Context.Service<Audit>()("app/Audit", {
  make: Effect.gen(function*() {
    const repo = yield* AuditRepo
    const cursorKey = yield* CursorKey

    /** Appends one action, stamped now. */
    const record = (entry: Omit<NewAuditEntry, "at">) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) => repo.append({ ...entry, at }))

    const list = Effect.fn("Audit.list")(function*(query: AuditQuery) {
      const since = query.since === undefined ? undefined : Date.parse(query.since)
      const until = query.until === undefined ? undefined : Date.parse(query.until)
      if (since !== undefined && until !== undefined && until <= since) {
        return yield* new ValidationError({ message: "until must be later than since" })
      }
      const filter = {
        projectId: query.project_id,
        action: query.action,
        actor: query.actor,
        agentEmail: query.agent_email,
        since,
        until
      }
      const cursors = cursorsOf(cursorKey, {
        list: "audit",
        projectId: query.project_id ?? "",
        query: [query.action ?? null, query.actor ?? null, query.agent_email ?? null, since ?? null, until ?? null]
      })
      const after = yield* cursors.read(query.cursor, "audit")
      const limit = query.limit ?? defaultLimit
      const rows = yield* repo.list(filter, after?.id, limit + 1)
      const page = pageOf(rows, limit, (row) => row, (row) => ({ order: "audit", id: row.audit_id }), cursors.encode)
      return { entries: page.items, next_cursor: page.next_cursor } satisfies AuditPage
    })

    return { record, list }
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([AuditRepo.layer, CursorKey.layer]))
}
