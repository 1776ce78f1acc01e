import { Effect } from "effect"
import type { HttpClientResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import type { CreateTicketInput, UpdateTicketInput } from "../../src/Domain/Ticket.ts"
import { eventually } from "./Eventually.ts"
import { adminToken, type TestServerShape } from "./TestServer.ts"

/**
 * The calls the pipeline suites make again and again, through the contract's typed client. The
 * setup and the reads die on failure (a failure there is no outcome under test); the changes
 * come back with their HTTP status, which the tests check.
 */

/** A typed call made with `responseMode: "decoded-and-response"`, as its answer and HTTP status. */
export const withStatus = <A, E, R>(call: Effect.Effect<readonly [A, HttpClientResponse.HttpClientResponse], E, R>) =>
  Effect.map(call, ([value, response]) => ({ value, status: response.status }))

export const createTicket = (server: TestServerShape, key: string, payload: CreateTicketInput) =>
  Effect.flatMap(server.api(key), (api) => api.tickets.create({ payload, headers: {} })).pipe(Effect.orDie)

export const adminRead = (server: TestServerShape, projectId: string, ticketId: string) =>
  Effect.flatMap(server.api(adminToken), (admin) => admin.admin.getTicket({ params: { pid: projectId, id: ticketId } }))
    .pipe(Effect.orDie)

/** An agent of the project, through the operator API, with its status. */
export const createAgent = (server: TestServerShape, projectId: string, email: string, name: string) =>
  Effect.flatMap(server.api(adminToken), (admin) =>
    withStatus(admin.admin.createAgent({
      params: { pid: projectId },
      payload: { email, name },
      responseMode: "decoded-and-response"
    })))

/** A contact's message through the public API, with its status. */
export const contactMessage = (server: TestServerShape, key: string, ticketId: string, body: string, contactEmail: string) =>
  Effect.flatMap(server.api(key), (api) =>
    withStatus(api.tickets.addMessage({
      params: { id: ticketId },
      payload: { body, contact_email: contactEmail },
      headers: {},
      responseMode: "decoded-and-response"
    })))

/** An operator's message on a ticket, with its status. */
export const agentMessage = (server: TestServerShape, projectId: string, ticketId: string, body: string, internal?: boolean) =>
  Effect.flatMap(server.api(adminToken), (admin) =>
    withStatus(admin.admin.addAgentMessage({
      params: { pid: projectId, id: ticketId },
      payload: internal === undefined ? { body } : { body, internal },
      responseMode: "decoded-and-response"
    })))

/** An operator's change of a ticket, with its status. */
export const updateTicket = (server: TestServerShape, projectId: string, ticketId: string, payload: UpdateTicketInput) =>
  Effect.flatMap(server.api(adminToken), (admin) =>
    withStatus(admin.admin.updateTicket({
      params: { pid: projectId, id: ticketId },
      payload,
      responseMode: "decoded-and-response"
    })))

export interface JobRow {
  readonly kind: string
  readonly status: string
  readonly attempts: number
  /** the event an event's job carries */
  readonly event: string | null
  readonly last_error: string | null
}

/** The ticket's jobs, oldest first. */
export const jobsOf = (ticketId: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<JobRow>`
      SELECT kind, status, attempts, payload->>'kind' AS event, last_error FROM jobs
      WHERE ticket_id = ${ticketId} ORDER BY created_at, kind`.pipe(Effect.orDie))

/**
 * Every job of the ticket is finished (done, or failed for good), and so every job they enqueue
 * exists: a job's follow-up work is written in the same transaction that finishes its change.
 */
export const settled = (ticketId: string) =>
  eventually(
    `the jobs of ticket ${ticketId} to finish`,
    Effect.map(jobsOf(ticketId), (jobs) => ({
      done: jobs.every((job) => job.status === "done" || job.status === "failed"),
      value: jobs
    }))
  )
