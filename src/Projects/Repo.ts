import { Context, Effect, Layer, Option, Schema } from "effect"
import { Buffer } from "node:buffer"
import { SqlClient } from "effect/sql"
import * as Rows from "../Database/Rows.ts"
import { IntFromRow, TimestampFromRow } from "../Domain/Fields.ts"
import { type ApiKeyId, ApiKeyIdFromRow, type ProjectId, ProjectIdFromRow } from "../Domain/Ids.ts"
import { type ApiKeySummary, KeyScope, type ProjectSummary } from "../Domain/Project.ts"

/** A key as a request's authentication reads it: whose it is, what it may do, and its project's identity settings. */
const KeyRow = Schema.Struct({
  key_id: ApiKeyIdFromRow,
  project_id: ProjectIdFromRow,
  scope: KeyScope,
  /** null: the service's RATE_LIMIT_PER_MINUTE */
  rate_limit_per_minute: Schema.NullOr(Schema.Number),
  /** the project's, for verifying its visitors' tokens; null when it has none */
  identity_secret: Schema.NullOr(Schema.String),
  require_verified_visitors: Schema.Boolean
})
export type KeyRow = typeof KeyRow.Type

const Id = Schema.Struct({ id: ApiKeyIdFromRow })
const CreatedProject = Schema.Struct({ project_id: ProjectIdFromRow, name: Schema.String, key_id: ApiKeyIdFromRow })
const Summary = Schema.Struct({ project_id: ProjectIdFromRow, name: Schema.String, created_at: TimestampFromRow })
const Count = Schema.Struct({ n: IntFromRow })
const KeySummary = Schema.Struct({
  key_id: ApiKeyIdFromRow,
  name: Schema.NullOr(Schema.String),
  scope: KeyScope,
  rate_limit_per_minute: Schema.NullOr(Schema.Number),
  created_at: TimestampFromRow,
  revoked_at: Schema.NullOr(TimestampFromRow)
})
const Setting = Schema.Struct({ value: Schema.String })
const SecretMade = Schema.Struct({ created_at: TimestampFromRow })
const Identity = Schema.Struct({
  has_identity_secret: Schema.Boolean,
  identity_secret_created_at: Schema.NullOr(TimestampFromRow),
  require_verified_visitors: Schema.Boolean
})

export interface NewKey {
  readonly name: string | null
  readonly scope: KeyScope
  readonly hash: Uint8Array
  readonly prefix: string
  /** null: the service's RATE_LIMIT_PER_MINUTE */
  readonly rateLimitPerMinute: number | null
}

export class ProjectsRepo extends Context.Service<ProjectsRepo>()("app/Projects/Repo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findKeyByHash = (hash: Uint8Array) =>
      sql`SELECT k.id AS key_id, k.project_id, k.scope, k.rate_limit_per_minute,
            p.identity_secret, p.require_verified_visitors
          FROM api_keys k JOIN projects p ON p.id = k.project_id
          WHERE k.key_hash = ${hash} AND k.revoked_at IS NULL`.pipe(Rows.first(KeyRow))

    /** The project and its first key, in one statement. */
    const insertProject = (name: string, key: NewKey) =>
      sql`WITH project AS (
            INSERT INTO projects (name) VALUES (${name}) RETURNING id, name
          )
          INSERT INTO api_keys (project_id, name, scope, key_hash, key_prefix)
          SELECT project.id, ${key.name}, ${key.scope}, ${key.hash}, ${key.prefix} FROM project
          RETURNING project_id, ${name}::text AS name, id AS key_id`.pipe(Rows.single(CreatedProject))

    const insertKey = (projectId: ProjectId, key: NewKey) =>
      sql`INSERT INTO api_keys (project_id, name, scope, key_hash, key_prefix, rate_limit_per_minute)
          VALUES (${projectId}, ${key.name}, ${key.scope}, ${key.hash}, ${key.prefix}, ${key.rateLimitPerMinute})
          RETURNING id`.pipe(Rows.single(Id), Effect.map((row) => row.id))

    const listProjects = sql`SELECT id AS project_id, name, created_at FROM projects ORDER BY created_at, id`.pipe(
      Rows.all(Summary),
      Effect.map((rows): ReadonlyArray<ProjectSummary> => rows)
    )

    /** The project's keys, newest first, without the key or its hash. */
    const listKeys = (projectId: ProjectId) =>
      sql`SELECT id AS key_id, name, scope, rate_limit_per_minute, created_at, revoked_at FROM api_keys
          WHERE project_id = ${projectId} ORDER BY created_at DESC, id DESC`.pipe(
        Rows.all(KeySummary),
        Effect.map((rows): ReadonlyArray<ApiKeySummary> => rows)
      )

    const projectExists = (projectId: ProjectId) => sql`SELECT 1 FROM projects WHERE id = ${projectId}`.pipe(Rows.some)

    /** Revokes the key and tells every instance (NOTIFY api_keys, at commit) to forget the keys it knows. */
    const revokeKey = (projectId: ProjectId, keyId: ApiKeyId) =>
      sql`WITH revoked AS (
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
            WHERE id = ${keyId} AND project_id = ${projectId}
            RETURNING id
          )
          SELECT id, pg_notify('api_keys', id::text) FROM revoked`.pipe(Rows.some)

    /*
     * What a key's lookup reads (its budget, its project's identity settings) changes in statements
     * that also NOTIFY api_keys, at commit, so that every instance forgets the keys it knows.
     */

    /** The key's own budget (null: the service's); None when the project has no such key. */
    const setKeyLimit = (projectId: ProjectId, keyId: ApiKeyId, limit: number | null) =>
      sql`WITH changed AS (
            UPDATE api_keys SET rate_limit_per_minute = ${limit}
            WHERE id = ${keyId} AND project_id = ${projectId}
            RETURNING id, name, scope, rate_limit_per_minute, created_at, revoked_at
          )
          SELECT id AS key_id, name, scope, rate_limit_per_minute, created_at, revoked_at,
            pg_notify('api_keys', id::text) AS notified
          FROM changed`.pipe(
        Rows.first(KeySummary),
        Effect.map((row): Option.Option<ApiKeySummary> => row)
      )

    /** A new identity secret in place of any earlier one; None when there is no such project. */
    const setIdentitySecret = (projectId: ProjectId, secret: string) =>
      sql`WITH changed AS (
            UPDATE projects SET identity_secret = ${secret}, identity_secret_created_at = now()
            WHERE id = ${projectId}
            RETURNING id, identity_secret_created_at
          )
          SELECT identity_secret_created_at AS created_at, pg_notify('api_keys', id::text) AS notified
          FROM changed`.pipe(Rows.first(SecretMade), Effect.map(Option.map((row) => row.created_at)))

    const getIdentity = (projectId: ProjectId) =>
      sql`SELECT identity_secret IS NOT NULL AS has_identity_secret, identity_secret_created_at, require_verified_visitors
          FROM projects WHERE id = ${projectId}`.pipe(Rows.first(Identity))

    /**
     * None when there is no such project, or when verified visitors would be required of a project
     * without an identity secret: the condition is checked on the row being updated, so a removal
     * of the secret at the same moment cannot slip between.
     */
    const setRequireVerifiedVisitors = (projectId: ProjectId, require: boolean) =>
      sql`WITH changed AS (
            UPDATE projects SET require_verified_visitors = ${require}
            WHERE id = ${projectId} AND (identity_secret IS NOT NULL OR NOT ${require})
            RETURNING id, identity_secret, identity_secret_created_at, require_verified_visitors
          )
          SELECT identity_secret IS NOT NULL AS has_identity_secret, identity_secret_created_at, require_verified_visitors,
            pg_notify('api_keys', id::text) AS notified
          FROM changed`.pipe(Rows.first(Identity))

    /** No secret, and so no visitor need be verified; false when there is no such project. */
    const removeIdentitySecret = (projectId: ProjectId) =>
      sql`WITH changed AS (
            UPDATE projects
            SET identity_secret = NULL, identity_secret_created_at = NULL, require_verified_visitors = false
            WHERE id = ${projectId}
            RETURNING id
          )
          SELECT id, pg_notify('api_keys', id::text) AS notified FROM changed`.pipe(Rows.some)

    const countProjects = sql`SELECT count(*) AS n FROM projects`.pipe(Rows.single(Count), Effect.map((row) => row.n))

    const getSetting = (name: string) =>
      sql`SELECT value FROM service_settings WHERE name = ${name}`.pipe(
        Rows.first(Setting),
        Effect.map(Option.map((row) => row.value))
      )

    const putSetting = (name: string, value: string) =>
      sql`INSERT INTO service_settings (name, value) VALUES (${name}, ${value})
          ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`.pipe(Rows.run)

    /**
     * The setting's stored value, storing `value` first when it has none: instances starting
     * together agree on the first one stored. A statement's snapshot may miss a row another
     * instance committed while it waited on it, so it looks once more.
     */
    const keepSetting = (name: string, value: string) => {
      const once = sql`WITH kept AS (
            INSERT INTO service_settings (name, value) VALUES (${name}, ${value})
            ON CONFLICT (name) DO NOTHING RETURNING value
          )
          SELECT value FROM kept UNION ALL SELECT value FROM service_settings WHERE name = ${name}`.pipe(Rows.first(Setting))
      return Effect.flatMap(once, (row) => Option.isSome(row) ? Effect.succeed(row) : once).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.die(new Error(`service setting ${name} could not be stored`)),
          onSome: (row) => Effect.succeed(row.value)
        }))
      )
    }

    /**
     * A key of the service's own (32 random bytes), made by whichever instance starts first and
     * kept, so every instance signs and checks with the same one, across restarts. Read once at
     * start, outside any request: no trace of its own.
     */
    const keepSecret = (name: string) =>
      Effect.suspend(() =>
        keepSetting(name, Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url"))
      ).pipe(Effect.withTracerEnabled(false))

    return {
      findKeyByHash,
      insertProject,
      insertKey,
      listProjects,
      listKeys,
      projectExists,
      revokeKey,
      setKeyLimit,
      setIdentitySecret,
      getIdentity,
      setRequireVerifiedVisitors,
      removeIdentitySecret,
      countProjects,
      getSetting,
      putSetting,
      keepSetting,
      keepSecret
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
