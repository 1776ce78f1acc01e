import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { type ContactId, ContactIdFromRow, type ProjectId } from "../Domain/Ids.ts"

/** The people who write in, by address, one per project; a new ticket records its sender in its own statement (TicketsRepo). */
export interface ContactsRepoShape {
  /**
   * The contact with this address, created on first sight; a given name refreshes the stored one,
   * so only a caller that vouches for it (a full key) may pass one.
   */
  readonly upsertContact: (projectId: ProjectId, email: string, name: string | null) => Effect.Effect<ContactId>
}

const Id = Schema.Struct({ id: ContactIdFromRow })

export class ContactsRepo extends Context.Service<ContactsRepo, ContactsRepoShape>()("app/Tickets/ContactsRepo") {
  static readonly make = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const upsertContact = (projectId: ProjectId, email: string, name: string | null) =>
      Effect.gen(function*() {
        const found = yield* sql`
          WITH upserted AS (
            INSERT INTO contacts (project_id, email, name) VALUES (${projectId}, ${email}, ${name})
            ON CONFLICT (project_id, email) DO UPDATE SET name = EXCLUDED.name, updated_at = now()
              WHERE EXCLUDED.name IS NOT NULL AND contacts.name IS DISTINCT FROM EXCLUDED.name
            RETURNING id
          )
          SELECT id FROM upserted
          UNION ALL
          SELECT id FROM contacts WHERE project_id = ${projectId} AND email = ${email}
          LIMIT 1`.pipe(Rows.first(Id))
        if (Option.isSome(found)) return found.value.id
        // a concurrent insert committed after this statement's snapshot: now it is visible
        const again = yield* sql`SELECT id FROM contacts WHERE project_id = ${projectId} AND email = ${email}`.pipe(
          Rows.single(Id)
        )
        return again.id
      })

    return { upsertContact }
  })

  static readonly layer = Layer.effect(this, this.make)
}
