import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { Attachments } from "../../src/Attachments/Attachments.ts"
import { ProjectId } from "../../src/Domain/Ids.ts"
import { databaseKinds, databaseLayer } from "../support/Databases.ts"

describe.each(databaseKinds)("waiting uploads on %s", (kind) => {
  layer(Attachments.layer.pipe(Layer.provideMerge(databaseLayer(kind))), { excludeTestServices: true })((it) => {
    it.effect("an upload nothing named within a day is deleted; a younger one and an attached one stay", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const attachments = yield* Attachments
        const [project] = yield* sql<{ id: string }>`INSERT INTO projects (name) VALUES ('Uploads') RETURNING id`
        const projectId = ProjectId.make(project!.id)
        const file = (name: string) => ({ filename: name, contentType: "text/plain", content: new TextEncoder().encode(name) })
        const old = yield* attachments.upload(projectId, file("old.txt"))
        yield* attachments.upload(projectId, file("young.txt"))
        const kept = yield* attachments.upload(projectId, file("kept.txt"))
        const [ticket] = yield* sql<{ id: string }>`
          INSERT INTO tickets (project_id, ticket_number, subject, body) VALUES (${projectId}, 1, 's', 'b') RETURNING id`
        yield* sql`UPDATE attachments SET ticket_id = ${ticket!.id} WHERE id = ${kept.upload_id}`
        yield* sql`UPDATE attachments SET created_at = now() - interval '25 hours' WHERE id IN (${old.upload_id}, ${kept.upload_id})`
        expect(yield* attachments.pruneUploads).toBe(1)
        const left = yield* sql<{ filename: string }>`SELECT filename FROM attachments ORDER BY filename`
        expect(left.map((row) => row.filename)).toEqual(["kept.txt", "young.txt"])
      }))
  })
})
