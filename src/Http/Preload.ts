/**
 * What Node loads before the service (`--import`, as `npm start` and `npm run start:dev` do), in
 * this order: first glibc's arena count, which may start the process again, then the kept
 * next-tick record (imported only afterwards: a static import would run before the restart, and
 * the work would be done twice).
 */
import { restartWithOneArenaIfNeeded } from "./MallocArenas.ts"

restartWithOneArenaIfNeeded()

export const { keptTickRecords } = await import("./TickRecords.ts")
