import { createHook } from "node:async_hooks"

/**
 * One of Node's own next-tick records, kept for the life of the process; loaded before the
 * service (`node --import`), as `npm start` does.
 *
 * Node builds a record for every `process.nextTick` (its streams call it about seven times per
 * HTTP request) from an object literal with computed keys, whose hidden classes V8 reaches through
 * transitions it holds only weakly. In some processes (every one measured on the embedded database
 * in memory, and some on PostgreSQL) those records came to be built in V8's slow runtime path:
 * 11-12 % of the CPU of a /health request, against 1 % in raw node:http. With one record kept
 * alive from before the service is loaded, the share stays at 1 % (README, "Performance, as
 * measured here"); kept from inside the bundle, after it was loaded, it did not help. Node hands
 * each record to an async hook's `init`, and the hook is disabled again at once: no request ever
 * runs under it.
 */
export const keptTickRecords: ReadonlyArray<object> = (() => {
  const kept: Array<object> = []
  const hook = createHook({
    init: (_asyncId, type, _triggerAsyncId, resource) => {
      if (type === "TickObject") kept.push(resource)
    }
  }).enable()
  try {
    process.nextTick(() => {})
  } finally {
    hook.disable()
  }
  return kept
})()
