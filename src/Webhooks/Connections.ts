import { NodeHttpClient } from "@effect/platform-node"
import { Effect } from "effect"
import { HttpClient, type HttpClientError } from "effect/http"
import { type ClientRequest, Agent as HttpAgent } from "node:http"
import { type AgentOptions, Agent as HttpsAgent } from "node:https"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"

/**
 * How long a connection to a receiver is kept for the next delivery. Receivers close idle ones
 * too (Node's server and many others after 5 s), and one that closes just as a delivery goes out
 * turns that delivery into a transport error; closing ours first avoids most of those. The agent's
 * `timeout` only closes pooled connections: a slow answer in flight is bounded by the webhook timeout.
 */
const idleConnectionMillis = 4_000

/** Errors of requests that went out on a kept-alive connection and failed before any answer came back. */
const failedOnIdleConnection = new WeakSet<object>()

/**
 * Remembers which requests failed on a reused connection before a byte of answer arrived: the
 * receiver had closed it while it was idle, so it never saw the request.
 */
const watchReuse = (socket: Duplex, request: ClientRequest) => {
  const bytesBefore = (socket as Socket).bytesRead
  const onResponse = () => request.off("error", onError)
  const onError = (error: Error) => {
    request.off("response", onResponse)
    if ((socket as Socket).bytesRead === bytesBefore) failedOnIdleConnection.add(error)
  }
  request.once("response", onResponse)
  request.once("error", onError)
}

class ReuseWatchingHttpAgent extends HttpAgent {
  override reuseSocket(socket: Duplex, request: ClientRequest) {
    watchReuse(socket, request)
    super.reuseSocket(socket, request)
  }
}

class ReuseWatchingHttpsAgent extends HttpsAgent {
  override reuseSocket(socket: Duplex, request: ClientRequest) {
    watchReuse(socket, request)
    super.reuseSocket(socket, request)
  }
}

const isIdleConnectionFailure = (error: HttpClientError.HttpClientError) =>
  error.reason._tag === "TransportError" && failedOnIdleConnection.has(error.reason.cause as object)

/**
 * The HTTP client for webhook deliveries: connections kept alive shorter than receivers keep
 * theirs, and a request that failed on a connection the receiver had already closed is sent once
 * more, at once, on a new connection. Nothing reached the receiver, so this is the same attempt
 * (same timestamp, same signatures), not a retry on the webhook schedule. A failure after the
 * receiver may have had the request (an answer had begun, or no answer in time) is left to the
 * schedule. Deno's node:http client never reports this failure: it sends the request again
 * itself, and on Deno 2.9 that copy can lose a body written after the headers, so the attempt
 * ends at the webhook timeout and the schedule takes over; the short idle time still applies.
 */
export const deliveryClient = (lookup: AgentOptions["lookup"]) =>
  Effect.gen(function*() {
    const kept = yield* Effect.zipWith(
      Effect.acquireRelease(
        Effect.sync(() => new ReuseWatchingHttpAgent({ keepAlive: true, timeout: idleConnectionMillis, lookup })),
        (agent) => Effect.sync(() => agent.destroy())
      ),
      Effect.acquireRelease(
        Effect.sync(() => new ReuseWatchingHttpsAgent({ keepAlive: true, timeout: idleConnectionMillis, lookup })),
        (agent) => Effect.sync(() => agent.destroy())
      ),
      (http, https) => ({ http, https })
    )
    // not the pool: its other connections to that receiver have been idle at least as long
    const fresh = yield* NodeHttpClient.makeAgent({ keepAlive: false, lookup })
    const overKept = yield* Effect.provideService(NodeHttpClient.makeNodeHttp, NodeHttpClient.HttpAgent, kept)
    const overFresh = yield* Effect.provideService(NodeHttpClient.makeNodeHttp, NodeHttpClient.HttpAgent, fresh)
    return HttpClient.transform(overKept, (response, request) =>
      Effect.catchIf(response, isIdleConnectionFailure, () => overFresh.execute(request)))
  })
