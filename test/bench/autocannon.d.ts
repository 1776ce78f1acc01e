// autocannon ships no types; this covers only the parts of its programmatic API the benchmark uses.
declare module "autocannon" {
  import type { EventEmitter } from "node:events"

  export interface RequestParams {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
  }

  export interface Request extends RequestParams {
    /** called before every send of this request; may return a changed copy */
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams
    /** called with every response of this request */
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
  }

  export interface Options {
    url: string
    connections?: number
    duration?: number
    /** stop after this many requests instead of after `duration` */
    amount?: number
    /** requests per second over all connections: an open-loop rate instead of as fast as possible */
    overallRate?: number
    /** per-request timeout in seconds (default 10) */
    timeout?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: ReadonlyArray<Request>
  }

  /** hdr-histogram-percentiles-obj: the usual percentiles plus mean and extremes. */
  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p1: number
    p2_5: number
    p50: number
    p90: number
    p97_5: number
    p99: number
    p99_9: number
  }

  export interface Result {
    duration: number
    errors: number
    timeouts: number
    mismatches: number
    non2xx: number
    resets: number
    "2xx": number
    statusCodeStats: Record<string, { count: number }>
    /** milliseconds */
    latency: Histogram
    /** requests per second, sampled every second */
    requests: Histogram & { sent: number }
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void
    on(event: "reqError", listener: (error: Error) => void): this
    on(event: string, listener: (...args: Array<any>) => void): this
  }

  export default function autocannon(options: Options): Instance
}
