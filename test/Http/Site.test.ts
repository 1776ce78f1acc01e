import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { databaseKinds } from "../support/Databases.ts"
import { TestServer, testServer } from "../support/TestServer.ts"

describe.each(databaseKinds)("what a browser asks the site for, on %s", (kind) => {
  layer(testServer(kind), { excludeTestServices: true })((it) => {
    it.effect("GET /favicon.ico is an icon: no key, cacheable; unknown paths beside it keep the 404 envelope", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const response = yield* Effect.promise(() => fetch(`${server.baseUrl}/favicon.ico`))
        const bytes = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toMatch(/^image\//)
        expect(response.headers.get("cache-control")).toMatch(/public.*max-age=[1-9]/)
        // an ICO directory (reserved 0, type 1) of one image, 32 pixels square
        expect([...bytes.subarray(0, 8)]).toEqual([0, 0, 1, 0, 1, 0, 32, 32])
        expect(bytes.length).toBeLessThan(8 * 1024)

        for (const path of ["/favicon.png", "/favicon.ico/x"]) {
          const unknown = yield* Effect.promise(() => server.request("GET", path))
          expect([path, unknown.status, unknown.body?.error?.code]).toEqual([path, 404, "NOT_FOUND"])
          expect(unknown.headers.get("content-type")).toMatch(/^application\/json/)
        }
      }))
  })
})
