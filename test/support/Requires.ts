import { describe, it } from "vitest"

/**
 * Set by `.ci/run`, which provides everything a suite can need: there a missing requirement is a
 * broken machine, and a skip would let the suites that need it pass without running.
 */
export const onCi = ["1", "true"].includes((process.env.CI ?? "").toLowerCase())

/** Why the PostgreSQL half cannot run, or undefined when DATABASE_URL names a server. */
export const postgresMissing: string | undefined = process.env.DATABASE_URL
  ? undefined
  : "no PostgreSQL server: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres; .ci/run does)"

/** Why a suite that needs Redis cannot run, or undefined when REDIS_URL names one. */
export const redisMissing: string | undefined = process.env.REDIS_URL
  ? undefined
  : "no Redis server: set REDIS_URL (e.g. redis://127.0.0.1:6379; .ci/run does)"

/** The reasons that hold, joined; undefined when nothing is missing. */
export const missingOf = (...reasons: ReadonlyArray<string | undefined>): string | undefined => {
  const missing = reasons.filter((reason): reason is string => reason !== undefined)
  return missing.length === 0 ? undefined : missing.join("; ")
}

const failsOnCi = (missing: string) => () => {
  throw new Error(`CI=1, and this cannot run here: ${missing}`)
}

/**
 * A suite that needs something of the machine: it runs when `missing` is undefined; otherwise it
 * is skipped with the reason in its title, or under CI=1 replaced by one failing test naming it.
 */
export const describeNeeding = (missing: string | undefined, title: string, body: () => void) => {
  if (missing === undefined) return describe(title, body)
  if (onCi) return describe(title, () => it(`has what it needs (${missing})`, failsOnCi(missing)))
  return describe.skip(`${title} (skipped: ${missing})`, body)
}

/** One test that needs something of the machine, as `describeNeeding` has it for a suite. */
export const itNeeding = (
  missing: string | undefined,
  title: string,
  body: () => Promise<unknown> | void,
  timeout?: number
) => {
  if (missing === undefined) return it(title, body, timeout)
  if (onCi) return it(`${title} (has what it needs: ${missing})`, failsOnCi(missing))
  return it.skip(`${title} (skipped: ${missing})`, body, timeout)
}
