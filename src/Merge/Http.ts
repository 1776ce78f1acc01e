import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { ProjectId, TicketId } from "../Domain/Ids.ts"
import { Merge } from "./Merge.ts"

export const MergeHttpLive = HttpApiBuilder.group(Api, "merge", (handlers) =>
  Effect.map(Effect.service(Merge), (merges) =>
    handlers.handle("merge", ({ params, payload }) =>
      merges.merge(ProjectId.make(params.pid), TicketId.make(params.id), payload))))
