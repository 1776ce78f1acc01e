/**
 * The `sort=updated` list pages on (updated_at, id): tickets updated at the same microsecond are
 * ordered by id, and a page that ends inside such a tie goes on after the last id it showed. The
 * ties are made in SQL, so they are certain rather than left to the clock.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createTicket } from "../support/Calls.ts"
import { databaseKinds } from "../support/Databases.ts"
import { adminToken, createProject, TestServer, type TestServerShape, testServer } from "../support/TestServer.ts"

/** Every ticket id the operator's list shows with `sort=updated`, in its order, all pages read. */
const idsByUpdate = (server: TestServerShape, projectId: string, limit: number) =>
  Effect.gen(function*() {
    const admin = yield* server.api(adminToken)
    const ids: Array<string> = []
    let cursor: string | undefined
    do {
      const page = yield* admin.admin.listTickets({
        params: { pid: projectId },
        query: { sort: "updated", limit, ...(cursor === undefined ? {} : { cursor }) }
      })
      ids.push(...page.tickets.map((ticket) => ticket.ticket_id))
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
    return ids
  })

/** Descending, as PostgreSQL orders uuids: byte by byte, which lower-case hex text keeps. */
const byIdDescending = (ids: ReadonlyArray<string>) => [...ids].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))

describe.each(databaseKinds)("ties in the updated order on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "100000" }), { excludeTestServices: true })((it) => {
    it.effect("shows every ticket of a tie once, in id order, whatever page the tie starts or ends on", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const { key, projectId } = yield* createProject(server)
        const ids: Array<string> = []
        for (let i = 0; i < 11; i++) ids.push((yield* createTicket(server, key, { subject: `Tie ${i}`, body: "x" })).ticket_id)
        const [newest, oldest, ...tied] = ids as [string, string, ...Array<string>]

        // one row at a time, in an order that is neither the ids' nor its reverse, so the table
        // stores the tie in an order the list must not show: an order left to storage comes out wrong
        const ascending = [...tied].sort()
        const stored = [0, 5, 2, 8, 1, 6, 3, 7, 4].map((i) => ascending[i]!)
        for (const id of stored) {
          yield* sql`UPDATE tickets SET updated_at = '2026-03-04T05:06:07.123456Z' WHERE id = ${id}`
        }
        yield* sql`UPDATE tickets SET updated_at = '2026-03-04T05:06:07.123457Z' WHERE id = ${newest}`
        yield* sql`UPDATE tickets SET updated_at = '2026-03-04T05:06:07.123455Z' WHERE id = ${oldest}`

        const expected = [newest, ...byIdDescending(tied), oldest]
        const pagesInOrder = Effect.gen(function*() {
          // page sizes that end pages inside the tie at every offset, and one that holds it whole
          for (const limit of [1, 2, 3, 4, 20]) {
            const seen = yield* idsByUpdate(server, projectId, limit)
            expect(seen, `pages of ${limit}`).toEqual(expected)
          }
        })
        yield* pagesInOrder

        // a list shows the times a read shows: to the millisecond, cut rather than rounded
        const admin = yield* server.api(adminToken)
        const listed = yield* admin.admin.listTickets({ params: { pid: projectId }, query: { sort: "updated", limit: 3 } })
        expect(listed.tickets.map((ticket) => ticket.updated_at)).toEqual([
          "2026-03-04T05:06:07.123Z",
          "2026-03-04T05:06:07.123Z",
          "2026-03-04T05:06:07.123Z"
        ])
        for (const ticket of listed.tickets) {
          const read = yield* admin.admin.getTicket({ params: { pid: projectId, id: ticket.ticket_id } })
          expect([ticket.created_at, ticket.updated_at]).toEqual([read.created_at, read.updated_at])
        }
        // the index on (updated_at, id) hands rows over in this order whatever the statement says;
        // without it the order is the statement's own
        yield* sql`DROP INDEX tickets_project_updated`
        yield* pagesInOrder
      }))
  })
})
