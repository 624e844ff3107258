/**
 * @module The API process: parse configuration, serve, and shut down gracefully on SIGINT/SIGTERM (in-flight
 * requests finish, the outbox sweep stops, connections close).
 */
import { loadConfig } from '../infra/config.ts'
import { refuseImplicitDevelopmentKey } from '../infra/secrets-keyring.ts'
import { createLogger } from '../infra/logger.ts'
import { chooseRateLimitStore } from '../infra/rate-limiter.ts'
import { installTracing } from '../infra/tracing/tracing.ts'
import { exitOnPortInUse } from '../infra/metrics/metrics-server.ts'
import { startApi } from './start-api.ts'

refuseImplicitDevelopmentKey(process.env)
const config = loadConfig()
const logger = createLogger(config.LOG_LEVEL, 'api')
// Before anything makes a span: OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
const tracing = installTracing('therapy-care-api')
const api = await startApi(config, logger).catch(exitOnPortInUse)
const rateLimits = chooseRateLimitStore(config)
logger.info(
  {
    url: config.PUBLIC_URL,
    port: api.port,
    metrics: api.metricsUrl ?? 'off',
    // Which counters the rate limit uses, and why: memory is per process (docs/rate-limits.md, "Stores").
    rateLimitStore: `${rateLimits.store} (${rateLimits.reason})`,
  },
  'API listening'
)

let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'API shutting down')
    api
      .stop()
      .then(() => tracing.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'API shutdown failed')
          process.exit(1)
        }
      )
  })
}
