/**
 * @module Serves a registry's metrics at `/metrics` on a port of its own, bound to loopback unless configured
 * otherwise (METRICS_HOST): the API's public port never answers them, and a scraper on the same host or network
 * namespace (Prometheus, an agent) reaches them without the world doing so. The same port serves what else is for
 * operators only: the API's readiness with its details at `/health` (api/routes/health).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Registry } from 'prom-client'

export interface MetricsServer {
  url: string
  close(): Promise<void>
}

/** The metrics port is taken (another platform on this machine): said in one line naming the variable to change. */
export class PortInUseError extends Error {
  constructor(variable: string, host: string, port: number) {
    super(`${host}:${port} is in use (${variable}): set ${variable} to a free port, 0 for any, or off`)
    this.name = 'PortInUseError'
  }
}

/**
 * Ends a process that could not start because a port was taken: one line on stderr, exit code 1, no stack trace.
 * Anything else is rethrown, to fail as it would have.
 */
export function exitOnPortInUse(error: unknown): never {
  if (!(error instanceof PortInUseError)) throw error
  process.stderr.write(`${error.message}\n`)
  process.exit(1)
}

/** A JSON document served beside `/metrics` (GET only), with the status it decides. */
export type OperatorDocument = () => Promise<{ statusCode: number; body: unknown }>

/**
 * @param port - 0 for any free port (tests)
 * @param onError - told when collecting failed (the scrape then answers 500)
 * @param documents - other paths served, such as the API's `/health` readiness
 * @param variable - the setting that chose the port, named when it is taken
 * @throws PortInUseError when the port is taken
 */
export async function startMetricsServer(
  registry: Registry,
  host: string,
  port: number,
  onError: (error: unknown) => void,
  documents: Record<string, OperatorDocument> = {},
  variable = 'METRICS_PORT'
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = req.url?.split('?')[0] ?? ''
    const document = req.method === 'GET' && Object.hasOwn(documents, path) ? documents[path] : undefined
    if (document) {
      document()
        .then(({ statusCode, body }) =>
          res
            .writeHead(statusCode, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
            .end(JSON.stringify(body))
        )
        .catch((error: unknown) => {
          onError(error)
          res.writeHead(500, { 'Content-Type': 'text/plain' }).end('unavailable\n')
        })
      return
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n')
      return
    }
    registry
      .metrics()
      .then((text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text))
      .catch((error: unknown) => {
        onError(error)
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics unavailable\n')
      })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(variable, host, port) : error)
    )
    server.listen(port, host, resolve)
  })
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
