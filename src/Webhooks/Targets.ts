import { Data, Effect } from "effect"
import ipaddr from "ipaddr.js"
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns"

export class TargetRefused extends Data.TaggedError("TargetRefused")<{ readonly message: string }> {}

/** Only ordinary public unicast addresses: no loopback, private, link-local, CGNAT, multicast, ... */
const isPublic = (address: string) => {
  try {
    return ipaddr.process(address).range() === "unicast"
  } catch {
    return false
  }
}

const refusal = (host: string, address: string) =>
  `${host} is a private or loopback address (${address}); set WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow it`

/** An endpoint URL must be absolute http(s); checked when registered and before every attempt. */
export const parseTarget = (text: string): URL | string => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return "url must be an absolute http or https URL"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "url must be an absolute http or https URL"
  if (url.hostname === "") return "url must name a host"
  return url
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1")

/**
 * Refuses a target whose host is, or resolves to, an address that is not public, so a
 * webhook cannot be pointed at the service's own network. The agent's `guardedLookup` checks
 * again at connect time, which closes the gap of a name that resolves differently the second time.
 */
export const checkTarget = (url: URL, allowPrivate: boolean): Effect.Effect<void, TargetRefused> => {
  if (allowPrivate) return Effect.void
  const host = hostOf(url)
  if (ipaddr.isValid(host)) {
    return isPublic(host) ? Effect.void : Effect.fail(new TargetRefused({ message: refusal(host, host) }))
  }
  return Effect.callback<void, TargetRefused>((resume) => {
    dnsLookup(host, { all: true }, (error, addresses) => {
      if (error) return resume(Effect.fail(new TargetRefused({ message: `cannot resolve ${host}: ${error.code ?? error.message}` })))
      const bad = addresses.find((entry) => !isPublic(entry.address))
      resume(bad === undefined ? Effect.void : Effect.fail(new TargetRefused({ message: refusal(host, bad.address) })))
    })
  })
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => void

/** A `lookup` for the HTTP agent that refuses what `checkTarget` refuses, at the moment of connecting. */
export const guardedLookup = (allowPrivate: boolean) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback) =>
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, [])
      const bad = allowPrivate ? undefined : addresses.find((entry) => !isPublic(entry.address))
      if (bad !== undefined) {
        return callback(Object.assign(new Error(refusal(hostname, bad.address)), { code: "EPRIVATETARGET" }), [])
      }
      if (options.all === true) return callback(null, addresses)
      callback(null, addresses[0]!.address, addresses[0]!.family)
    })
