import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, References } from "effect"
import { createServer } from "./Http/NodeServer.ts"
import { AppConfig } from "./Config.ts"
import * as Database from "./Database/Database.ts"
import * as Statistics from "./Database/Statistics.ts"
import { serveOn } from "./Http/Server.ts"
import { PipelineLive } from "./Jobs/Pipeline.ts"
import { ServicesLive } from "./Services.ts"
import { reportingRefusals, StartupLive } from "./Startup.ts"

const MainLive = Layer.unwrap(AppConfig.useSync((config) =>
  Layer.mergeAll(
    serveOn(NodeHttpServer.layer(createServer, { port: config.port, host: config.host })),
    PipelineLive,
    // autovacuum looks once a minute by default: late for a table that grows by thousands a second
    Statistics.layer("10 seconds")
  ).pipe(
    // the first request must find the demo project: seed before the port opens
    Layer.provide(StartupLive),
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(Database.layer),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, config.logLevel))
  )
)).pipe(Layer.provide(AppConfig.layer), Layer.provide(NodeHttpServer.layerHttpServices))

Layer.launch(MainLive).pipe(
  // no trace exporter is configured, so spans (one per request, one per query) would be built
  // only to be dropped
  Effect.withTracerEnabled(false),
  reportingRefusals,
  NodeRuntime.runMain
)
