import { Api } from "../Api.ts"

interface KnownRoute {
  readonly method: string
  readonly template: string
  readonly pattern: RegExp
}

/** Every route the service serves, from the contract, to name a request's route without the router. */
const knownRoutes: ReadonlyArray<KnownRoute> = [
  ...Object.values(Api.groups).flatMap((group) =>
    Object.values(group.endpoints).map((endpoint) => ({ method: endpoint.method, template: endpoint.path }))
  ),
  { method: "GET", template: "/openapi.json" },
  { method: "GET", template: "/docs" },
  { method: "GET", template: "/docs/assets/:file" }
].map(({ method, template }) => ({
  method,
  template,
  pattern: new RegExp(`^${template.replace(/\./g, "\\.").replace(/:[A-Za-z_]+/g, "[^/]+")}$`)
}))

/**
 * A request's route as its template (`/v1/tickets/:id`), from the path alone, or `unmatched`: for
 * an answer given before routing (a preflight, a body too large) or instead of it (a 405).
 */
export const routeTemplateOf = (method: string, path: string): string =>
  (knownRoutes.find((route) => route.method === method && route.pattern.test(path)) ??
    knownRoutes.find((route) => route.pattern.test(path)))?.template ?? "unmatched"

/** The methods served at `path`: none for an unknown path (404), others than the one asked for a 405. */
export const allowedMethods = (path: string): ReadonlyArray<string> =>
  knownRoutes.filter((route) => route.pattern.test(path)).map((route) => route.method)
