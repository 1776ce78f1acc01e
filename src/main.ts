import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Logger, References } from "effect"
import { createServer } from "./Http/NodeServer.ts"
import { AppConfig } from "./Config.ts"
import * as Database from "./Database/Database.ts"
import * as Upkeep from "./Database/Upkeep.ts"
import { serveOnceStarted } from "./Http/Server.ts"
import { PipelineLive } from "./Jobs/Pipeline.ts"
import * as Tracing from "./Observability/Tracing.ts"
import { ServicesLive } from "./Services.ts"
import { reportingRefusals, StartupLive } from "./Startup.ts"

const MainLive = Layer.unwrap(AppConfig.useSync((config) => {
  // the port is bound before the demo project is made: its keys are shown once, and a port in
  // use must stop the start before that, not after; the first request still finds the demo
  const serving = serveOnceStarted(
    NodeHttpServer.layer(createServer, { port: config.port, host: config.host }),
    StartupLive
  )
  return Layer.mergeAll(
    serving,
    PipelineLive,
    // autovacuum looks once a minute by default, late for a table that grows by thousands a
    // second; every 10 s was late too: a burst's first seconds ran on plans made for a job queue
    // of a few dozen rows, reading it whole to mark jobs done (README, "PostgreSQL and several
    // instances")
    Upkeep.layer("2 seconds")
  ).pipe(
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(Database.layer),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, config.logLevel)),
    Layer.provide(config.logFormat === "json" ? Logger.layer([Logger.consoleJson]) : Layer.empty),
    Layer.provide(Tracing.layer(config))
  )
})).pipe(Layer.provide(AppConfig.layer), Layer.provide(NodeHttpServer.layerHttpServices))

Layer.launch(MainLive).pipe(
  reportingRefusals,
  NodeRuntime.runMain
)
