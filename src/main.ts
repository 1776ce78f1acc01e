import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Layer, Logger, References } from "effect"
import { appLayer } from "./App.ts"
import { AppConfig } from "./Config.ts"
import { createServer, requestTimeouts } from "./Http/NodeServer.ts"
import { jsonLogger, textLogger } from "./Observability/Logging.ts"
import * as Tracing from "./Observability/Tracing.ts"
import { reportingRefusals } from "./Startup.ts"

/** The process: the settings, its logging and tracing, and the app on Node's HTTP server. */
const MainLive = Layer.unwrap(AppConfig.useSync((config) =>
  appLayer(NodeHttpServer.layer(() => createServer(requestTimeouts(config.requestTimeout)), {
    port: config.port,
    host: config.host
  })).pipe(
    Layer.provide(Layer.succeed(References.MinimumLogLevel, config.logLevel)),
    Layer.provide(Logger.layer([config.logFormat === "json" ? jsonLogger : textLogger])),
    Layer.provide(Tracing.layer(config))
  )
)).pipe(Layer.provide(AppConfig.layer))

Layer.launch(MainLive).pipe(
  reportingRefusals,
  NodeRuntime.runMain
)
