import packageJson from "../../package.json" with { type: "json" }

export const serviceName = "support-ticketing"

/** The one version of the service: package.json's, shown by /health, /openapi.json and the CLI. */
export const serviceVersion: string = packageJson.version
