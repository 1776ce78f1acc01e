import { createServer as createNodeServer, ServerResponse } from "node:http"

/**
 * A response that always ends in one write. @effect/platform-node marks every response
 * `strictContentLength`, and Node then skips its one-write `end(body)`: the head and the body
 * leave in a writev and an empty write follows, a few µs on every answer. The length Node would
 * check is the one Effect computed from that same body, so the flag is kept off.
 */
class OneWriteResponse<Request extends InstanceType<typeof ServerResponse>["req"]> extends ServerResponse<Request> {}
Object.defineProperty(OneWriteResponse.prototype, "strictContentLength", {
  get: () => false,
  set: () => {}
})

/** Node's HTTP server for NodeHttpServer.layer, with responses that end in one write. */
export const createServer = () => createNodeServer({ ServerResponse: OneWriteResponse })
