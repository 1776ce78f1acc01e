import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger } from "effect"
import { AppConfig } from "./Config.ts"
import * as Database from "./Database/Database.ts"
import { listen, serveOn, ServicesLive } from "./Http/Server.ts"
import { PipelineLive } from "./Jobs/Pipeline.ts"
import { StartupLive } from "./Startup.ts"

const MainLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  Layer.merge(serveOn(listen(config.port, config.host)), PipelineLive).pipe(
    // the first request must find the demo project: seed before the port opens
    Layer.provide(StartupLive),
    Layer.provide(ServicesLive),
    Layer.provideMerge(Database.layer),
    Layer.provide(Logger.minimumLogLevel(config.logLevel))
  )
)).pipe(Layer.provide(AppConfig.layer), Layer.provide(NodeContext.layer))

Layer.launch(MainLive).pipe(
  // no trace exporter is configured, so spans (one per request, one per query) would be built
  // only to be dropped: measured at half the CPU of a query
  Effect.withTracerEnabled(false),
  NodeRuntime.runMain
)
