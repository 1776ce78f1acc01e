/**
 * A new ticket and its follow-up jobs commit together or not at all (the transactional outbox):
 * with the test's database refusing every job, a create must leave no ticket behind, nor take
 * a ticket number, and must not be acknowledged.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { databaseKinds } from "../support/Databases.ts"
import { createProject, TestServer, testServer } from "../support/TestServer.ts"

/** Every insert into jobs fails, as a full disk or a broken constraint would make it, until dropped. */
const refuseJobs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE FUNCTION test_refuse_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'the test refuses every job'; END $$`)
  yield* sql.unsafe(`CREATE TRIGGER test_refuse_jobs BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION test_refuse_jobs()`)
  return sql.unsafe(`DROP TRIGGER test_refuse_jobs ON jobs`).pipe(Effect.asVoid)
})

describe.each(databaseKinds)("the outbox of a new ticket on %s", (kind) => {
  layer(testServer(kind, { RATE_LIMIT_PER_MINUTE: "100000" }), { excludeTestServices: true })((it) => {
    it.effect("is written in the ticket's transaction: when its jobs cannot be written, no ticket is either", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const sql = yield* SqlClient.SqlClient
        const { key, projectId } = yield* createProject(server)
        const ticketsOfProject = sql<{ subject: string; ticket_number: number }>`
          SELECT subject, ticket_number FROM tickets WHERE project_id = ${projectId} ORDER BY ticket_number`
        const allowJobs = yield* refuseJobs

        // alone (one statement, perhaps with other requests' creates), and with tags (a transaction)
        const attempts = [
          { subject: "Refused alone", body: "No job, no ticket", sender_email: "kim@example.com" },
          { subject: "Refused with tags", body: "No job, no ticket", tags: ["billing"] }
        ]
        for (const body of attempts) {
          const response = yield* Effect.promise(() => server.request("POST", "/v1/tickets", { key, body }))
          expect(response.status, body.subject).toBeGreaterThanOrEqual(500)
          expect(response.body.error.code, body.subject).toBe("INTERNAL_ERROR")
        }
        expect(yield* ticketsOfProject).toEqual([])
        const [contacts] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM contacts WHERE project_id = ${projectId}`
        expect(contacts!.n).toBe(0)

        yield* allowJobs
        const accepted = yield* Effect.promise(() =>
          server.request("POST", "/v1/tickets", { key, body: { subject: "Accepted", body: "With its jobs" } }))
        expect(accepted.status).toBe(202)
        // the refused creates took no number either
        expect(yield* ticketsOfProject).toEqual([{ subject: "Accepted", ticket_number: 1 }])
        const jobs = yield* sql<{ kind: string }>`SELECT kind FROM jobs WHERE ticket_id = ${accepted.body.ticket_id} ORDER BY kind`
        expect(jobs.map((job) => job.kind)).toEqual(["duplicate_check", "triage"])
      }))
  })
})
