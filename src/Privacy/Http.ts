import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { ProjectId } from "../Domain/Ids.ts"
import { Privacy } from "./Privacy.ts"
import { archiveResponse } from "./Response.ts"

export const PrivacyHttpLive = HttpApiBuilder.group(Api, "privacy", (handlers) =>
  Effect.map(Effect.service(Privacy), (privacy) =>
    handlers
      .handle("exportContact", ({ params, query }) => privacy.exportContact(ProjectId.make(params.pid), query.email))
      .handle("exportContactZip", ({ params, query }) =>
        Effect.map(privacy.exportZip(ProjectId.make(params.pid), query.email), archiveResponse))
      .handle("eraseContact", ({ params, payload }) => privacy.eraseContact(ProjectId.make(params.pid), payload.email))))
