import { HEX_COLOUR } from "./contrast.ts"

export type Position = "bottom-right" | "bottom-left"

export interface WidgetConfig {
  readonly projectKey: string
  /** Absolute http(s) URL without a trailing slash. */
  readonly baseUrl: string
  readonly color: string
  readonly position: Position
  readonly greeting: string
  readonly fields: { readonly name: boolean; readonly email: boolean; readonly priority: boolean }
  /** The site's signed token for a signed-in visitor (a JWT), sent as `X-Visitor-Token`. */
  readonly identityToken?: string | undefined
}

export const DEFAULTS = {
  color: "#0284c7",
  position: "bottom-right" as Position,
  greeting: "How can we help?",
  fields: { name: true, email: true, priority: false }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

const show = (v: unknown): string => {
  try {
    return v === undefined ? "undefined" : JSON.stringify(v) ?? String(v)
  } catch {
    return String(v)
  }
}

/** Thrown for a bad setting; the message names the property. */
export class ConfigError extends Error {}

const fail = (property: string, expected: string, got: unknown): never => {
  throw new ConfigError(`SupportWidgetConfig.${property} ${expected} (got ${show(got)})`)
}

/**
 * Checks `window.SupportWidgetConfig` and fills in defaults. Throws a ConfigError whose message
 * names the offending property. `undefined` optional properties take their defaults.
 */
export function parseConfig(raw: unknown): WidgetConfig {
  if (!isObject(raw)) {
    throw new ConfigError("window.SupportWidgetConfig must be an object defined before the script loads")
  }
  const { projectKey, baseUrl, color, position, greeting, fields, identityToken } = raw

  if (typeof projectKey !== "string" || projectKey.trim() === "") {
    fail("projectKey", "is required: a non-empty string with the project's widget key", projectKey)
  }
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
    fail("baseUrl", "is required: the service's absolute http(s) URL", baseUrl)
  }
  let url: URL | undefined
  try {
    url = new URL((baseUrl as string).trim())
  } catch {
    /* reported below */
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    fail("baseUrl", "must be an absolute http(s) URL such as https://support.example.com", baseUrl)
  }
  if (color !== undefined && (typeof color !== "string" || !HEX_COLOUR.test(color))) {
    fail("color", "must be a CSS hex colour such as #0284c7 or #08c", color)
  }
  if (position !== undefined && position !== "bottom-right" && position !== "bottom-left") {
    fail("position", 'must be "bottom-right" or "bottom-left"', position)
  }
  if (greeting !== undefined && typeof greeting !== "string") {
    fail("greeting", "must be a string", greeting)
  }
  if (fields !== undefined && !isObject(fields)) {
    fail("fields", "must be an object such as { name: true, email: true, priority: false }", fields)
  }
  if (identityToken !== undefined && (typeof identityToken !== "string" || identityToken.trim() === "")) {
    fail("identityToken", "must be a non-empty string: the visitor's signed token from the site's server", identityToken)
  }
  const flags = { ...DEFAULTS.fields }
  for (const name of ["name", "email", "priority"] as const) {
    const flag = (fields as Record<string, unknown> | undefined)?.[name]
    if (flag === undefined) continue
    if (typeof flag !== "boolean") fail(`fields.${name}`, "must be true or false", flag)
    flags[name] = flag as boolean
  }

  return {
    projectKey: (projectKey as string).trim(),
    baseUrl: (baseUrl as string).trim().replace(/\/+$/, ""),
    color: (color as string | undefined) ?? DEFAULTS.color,
    position: (position as Position | undefined) ?? DEFAULTS.position,
    greeting: typeof greeting === "string" && greeting.trim() !== "" ? greeting : DEFAULTS.greeting,
    fields: flags,
    identityToken: (identityToken as string | undefined)?.trim()
  }
}
