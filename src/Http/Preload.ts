/**
 * What Node loads before the service (`--import`, as `npm start` and `npm run start:dev` do), in
 * this order: first the choice of garbage collector, which may start the process again, then the
 * kept next-tick record.
 */
import "./SingleCoreGc.ts"

export { keptTickRecords } from "./TickRecords.ts"
