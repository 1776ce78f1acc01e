/**
 * The rate limiter's Redis going away must not take the API with it: requests go unlimited at
 * once rather than waiting for Redis, /health says the service is degraded, the log says so once
 * (not once per reconnection attempt), and all of it undoes itself when Redis is back. Each test
 * runs a redis-server of its own on a free port; the shared one at 6379 is never touched.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { databaseKinds } from "../support/Databases.ts"
import { eventually } from "../support/Eventually.ts"
import { freePort } from "../support/Process.ts"
import { createProject, type RawResponse, TestServer, testServer, type TestServerShape } from "../support/TestServer.ts"

const limit = 50

/**
 * Not a measure of speed: a request that waits for an absent Redis waits for node-redis's own
 * command timeout (5 s) at least, so one that answers well before that did not wait.
 */
const withoutWaitingForRedis = 4_000

/** A redis-server on `port`, its data in memory only; killed when the scope closes. */
const ownRedis = (port: number) =>
  Effect.acquireRelease(
    Effect.promise(() => startRedis(port)).pipe(Effect.map((child) => ({
      port,
      /** Stops answering without closing its connections, as a Redis stuck on a slow command. */
      pause: () => child.kill("SIGSTOP"),
      resume: () => child.kill("SIGCONT"),
      stop: () => stopRedis(child)
    }))),
    (redis) => Effect.promise(() => redis.stop())
  )

const startRedis = (port: number) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk
      if (output.includes("Ready to accept connections")) {
        child.stdout!.off("data", onData)
        child.stdout!.resume()
        resolve(child)
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.resume()
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}:\n${output}`)))
  })

const stopRedis = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGKILL")
  await exited
}

interface LogLine {
  readonly level: string
  readonly text: string
}

/** The service with a Redis at `port` for its limiter, and every line it logs. */
const serviceWithRedisAt = (kind: (typeof databaseKinds)[number], port: number) =>
  Effect.gen(function*() {
    const lines: Array<LogLine> = []
    const capture = Logger.layer([
      Logger.make(({ logLevel, message }) => {
        lines.push({ level: logLevel, text: (Array.isArray(message) ? message : [message]).map(String).join(" ") })
      })
    ])
    const settings = { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: String(limit) }
    const context = yield* Layer.build(testServer(kind, settings).pipe(Layer.provide(capture)))
    const server = Context.get(context, TestServer)
    const project = yield* createProject(server)
    /** What the service logged about its rate-limit store, in order. */
    const storeLines = () => lines.filter((line) => /redis|rate.?limit/i.test(line.text))
    return { server, key: project.key, storeLines }
  })

/** `server.request`, given up on (a failure) once it has plainly waited for Redis. */
const request = (server: TestServerShape, method: string, path: string, key?: string, body?: unknown) =>
  Effect.promise(async (): Promise<RawResponse> => {
    const headers: Record<string, string> = {}
    if (key !== undefined) headers.authorization = `Bearer ${key}`
    if (body !== undefined) headers["content-type"] = "application/json"
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(withoutWaitingForRedis)
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text), text }
  })

const health = (server: TestServerShape) => Effect.map(request(server, "GET", "/health"), (response) => response.body)

const healthIs = (server: TestServerShape, status: string) =>
  eventually(`/health to say ${status}`, Effect.map(health(server), (body) => ({ done: body.status === status, value: body })))

/** Files a ticket and runs a search: the two kinds of authenticated call, each answered in full. */
const useTheApi = (server: TestServerShape, key: string) =>
  Effect.gen(function*() {
    const created = yield* request(server, "POST", "/v1/tickets", key, { subject: "Redis is down", body: "Still served" })
    expect(created.status).toBe(202)
    expect(created.body.ticket_number).toBeGreaterThan(0)
    const searched = yield* request(server, "GET", "/v1/articles/search?q=redis", key)
    expect(searched.status).toBe(200)
    return [created, searched] as const
  })

/** RateLimit-Remaining of two searches in a row. */
const remainingTwice = (server: TestServerShape, key: string) =>
  Effect.gen(function*() {
    const first = yield* request(server, "GET", "/v1/articles/search?q=x", key)
    const second = yield* request(server, "GET", "/v1/articles/search?q=x", key)
    expect([first.status, second.status]).toEqual([200, 200])
    return [first, second].map((response) => Number(response.headers.get("ratelimit-remaining")))
  })

/** Long enough for several reconnection attempts, each of which node-redis reports as an error. */
const whileItRetries = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2_000)))

/**
 * The end of an outage: one warning however long the retries go on; then, with a Redis at `port`
 * again, /health back to ok, budgets counted from the top (a restarted Redis has forgotten every
 * one), and one line saying so.
 */
const backOnceRedisReturns = (port: number, server: TestServerShape, key: string, storeLines: () => ReadonlyArray<LogLine>) =>
  Effect.gen(function*() {
    yield* whileItRetries
    expect(storeLines()).toEqual([{ level: "Warn", text: expect.stringMatching(/unavailable/) }])

    yield* ownRedis(port)
    yield* healthIs(server, "ok")
    expect(yield* remainingTwice(server, key)).toEqual([limit - 1, limit - 2])
    expect(storeLines()).toEqual([
      { level: "Warn", text: expect.stringMatching(/unavailable/) },
      { level: "Info", text: expect.stringMatching(/back/) }
    ])
  })

describe.each(databaseKinds)("the rate limiter's Redis going away, on %s", (kind) => {
  it.live("starting while Redis is down: serves unlimited, says degraded and logs it once; counts again once Redis is up", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      const { key, server, storeLines } = yield* serviceWithRedisAt(kind, port)

      expect(yield* health(server)).toEqual({ status: "degraded", service: expect.any(String), version: expect.any(String) })
      for (let i = 0; i < 5; i++) {
        const [created] = yield* useTheApi(server, key)
        // unlimited while the budget cannot be read: the whole budget is left
        expect(created.headers.get("ratelimit-remaining")).toBe(String(limit))
      }
      yield* backOnceRedisReturns(port, server, key, storeLines)
    }), 60_000)

  it.live("Redis going away while serving: unlimited at once, degraded, logged once; counting again when it restarts", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      const redis = yield* ownRedis(port)
      const { key, server, storeLines } = yield* serviceWithRedisAt(kind, port)
      expect((yield* health(server)).status).toBe("ok")
      expect(yield* remainingTwice(server, key)).toEqual([limit - 1, limit - 2])

      yield* Effect.promise(redis.stop)
      for (let i = 0; i < 5; i++) yield* useTheApi(server, key)
      expect((yield* health(server)).status).toBe("degraded")
      yield* backOnceRedisReturns(port, server, key, storeLines)
    }), 60_000)

  it.live("Redis that stops answering: the API does not wait for it, and /health says degraded until it answers again", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      const redis = yield* ownRedis(port)
      const { key, server, storeLines } = yield* serviceWithRedisAt(kind, port)
      expect(yield* remainingTwice(server, key)).toEqual([limit - 1, limit - 2])

      redis.pause()
      yield* useTheApi(server, key)
      expect((yield* health(server)).status).toBe("degraded")
      expect(storeLines()).toEqual([{ level: "Warn", text: expect.stringMatching(/unavailable/) }])

      redis.resume()
      // no request needed: the service looks by itself
      yield* healthIs(server, "ok")
      const [first, second] = yield* remainingTwice(server, key)
      expect(second).toBe(first! - 1)
      expect(storeLines()).toEqual([
        { level: "Warn", text: expect.stringMatching(/unavailable/) },
        { level: "Info", text: expect.stringMatching(/back/) }
      ])
    }), 60_000)
})
