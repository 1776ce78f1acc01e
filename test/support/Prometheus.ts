import { execFileSync, spawnSync } from "node:child_process"

/**
 * Prometheus's text format read by the Prometheus project's own parser, the one in its Python
 * client (`prometheus_client.parser`), from Debian's python3-prometheus-client: no JavaScript
 * parser on the npm registry reads labelled histograms right.
 */
const python = "/usr/bin/python3"

const program = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
families = [
  {"name": f.name, "type": f.type, "help": f.documentation,
   "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
  for f in text_string_to_metric_families(sys.stdin.read())
]
print(json.dumps(families))
`

/** Why the parser cannot run here, or undefined when it can. */
export const prometheusParserMissing: string | undefined = (() => {
  const probe = spawnSync(python, ["-c", "import prometheus_client.parser"], { stdio: "ignore" })
  return probe.status === 0
    ? undefined
    : "Prometheus's parser is not installed: apt-get install python3-prometheus-client (CI does)"
})()

export interface PromSample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

export interface PromFamily {
  /** for a counter, without its `_total` */
  readonly name: string
  readonly type: "counter" | "gauge" | "histogram" | "summary" | "untyped" | string
  readonly help: string
  readonly samples: ReadonlyArray<PromSample>
}

/** Every family of `text`; throws what the parser says when the text is not valid. */
export const parsePrometheusText = (text: string): ReadonlyArray<PromFamily> =>
  JSON.parse(execFileSync(python, ["-c", program], { input: text, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }))
