import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { Audit } from "./Audit.ts"

export const AuditHttpLive = HttpApiBuilder.group(Api, "audit", (handlers) =>
  Effect.map(Effect.service(Audit), (audit) => handlers.handle("list", ({ query }) => audit.list(query))))
